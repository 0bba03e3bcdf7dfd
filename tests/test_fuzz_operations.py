"""Every operation in DynamoDB's model, fed bodies generated from its botocore shape (valid in
shape, random in content, aimed at an existing table), never answers 500 or drops the
connection: bad input gets DynamoDB's errors, good input an answer."""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterator
from typing import Any

import botocore.session
import pytest

from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.test_protocol import raw

MODEL = botocore.session.get_session().get_service_model("dynamodb")
STREAMS = botocore.session.get_session().get_service_model("dynamodbstreams")
WORDS = ["fuzz", "pk", "sk", "g", "#n", ":v", "a.b", "pk = :v", "SET a = :v", "attribute_exists(pk)", "x" * 300,
         "", "ALL", "NEW_IMAGE", "TRIM_HORIZON", "gsi", "arn:aws:dynamodb:us-east-1:000000000000:table/fuzz"]


def value(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    kind = rng.choice(["S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS"] if depth < 3 else ["S", "N"])
    if kind == "S":
        return {"S": rng.choice(["a", "b", "", "fuzz", "é" * 3])}
    if kind == "N":
        return {"N": rng.choice(["1", "-2.5", "1E+3", "0", "x"])}
    if kind == "B":
        return {"B": base64.b64encode(rng.randbytes(rng.randrange(4))).decode()}
    if kind in ("BOOL", "NULL"):
        return {kind: rng.random() < 0.8}
    if kind == "L":
        return {"L": [value(rng, depth + 1) for _ in range(rng.randrange(3))]}
    if kind == "M":
        return {"M": {rng.choice(WORDS[:6]): value(rng, depth + 1) for _ in range(rng.randrange(3))}}
    return {kind: [rng.choice(["1", "2", "a"]) for _ in range(rng.randrange(3))]}


def generate(shape: Any, rng: random.Random, depth: int = 0) -> Any:
    if shape.name == "AttributeValue":
        return value(rng)
    t = shape.type_name
    if t == "structure":
        out = {}
        for name, member in shape.members.items():
            if name in shape.required_members or rng.random() < 0.4:
                if name == "TableName":
                    out[name] = rng.choice(["fuzz", "fuzz", "missing-table"])
                elif depth < 6:
                    out[name] = generate(member, rng, depth + 1)
        return out
    if t == "list":
        return [generate(shape.member, rng, depth + 1) for _ in range(rng.randrange(3))] if depth < 6 else []
    if t == "map":
        key = "fuzz" if shape.key.name in ("TableArn", "TableName") or "Table" in shape.key.name else None
        return {key or rng.choice(WORDS[:6]): generate(shape.value, rng, depth + 1) for _ in range(rng.randrange(3))}
    if t == "string":
        if shape.enum:
            return rng.choice(shape.enum)
        return rng.choice(WORDS)
    if t in ("integer", "long"):
        return rng.choice([0, 1, 2, 5, 100, 1000])
    if t == "boolean":
        return rng.random() < 0.5
    if t == "blob":
        return base64.b64encode(rng.randbytes(3)).decode()
    if t == "timestamp":
        return 1700000000
    if t == "double":
        return 1.5
    return None


@pytest.fixture(scope="module")
def fuzz_url() -> Iterator[str]:
    with DynemuServer(throttling=False) as url:
        client = make_client(url)
        client.create_table(
            TableName="fuzz",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
                                  {"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "ALL"}}],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
        )
        for pk in ("a", "b", "fuzz"):
            client.put_item(TableName="fuzz", Item={"pk": {"S": pk}, "sk": {"S": "a"}, "g": {"S": "a"}})
        yield url


SKIP = {"DeleteTable", "UpdateTable"}  # would remove or reshape the shared table mid-run; tested elsewhere


@pytest.mark.parametrize(
    ("model", "operation"),
    [("DynamoDB_20120810", op) for op in MODEL.operation_names if op not in SKIP]
    + [("DynamoDBStreams_20120810", op) for op in STREAMS.operation_names],
)
def test_generated_bodies_never_500(fuzz_url: str, model: str, operation: str) -> None:
    service = MODEL if model.startswith("DynamoDB_") else STREAMS
    shape = service.operation_model(operation).input_shape
    rng = random.Random(f"{operation}-seed")
    for _ in range(150):
        body = generate(shape, rng) if shape is not None else {}
        status, _, data = raw(fuzz_url, json.dumps(body), target=f"{model}.{operation}")
        assert status in (200, 400), (operation, body, data[:300])
        if status == 400:
            assert "__type" in json.loads(data)
