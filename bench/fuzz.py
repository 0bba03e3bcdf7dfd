"""Seeded fuzzing with malformed raw requests: dynemu must never answer 5xx, drop a connection
or hang, whatever it is sent (issue 17). The one 5xx that is an answer: a body that is not in
the Content-Encoding it claims gets the service's 500 InternalServerError (issue 24).

    python bench/fuzz.py                       # 20,000 requests, seed 0, in-memory server
    python bench/fuzz.py --count 50000 --seed 7 --leveldb
    python bench/fuzz.py --endpoint http://127.0.0.1:8000   # a server you started

The kinds of request (each a few percent of the run, chosen by the seed): numbers whose
exponent or digits overflow, ``null`` at every depth (RequestItems values, list elements,
TransactItems, ExpressionAttributeNames/Values, keys, items), odd regions and access keys in
the credential scope (``..``, ``.``, 300 characters, slashes, non-ASCII), missing or broken
Authorization headers, bodies that are not JSON objects, truncated and deeply nested JSON,
unknown and broken Content-Encodings, wrong content types and targets, random expressions,
and valid requests of every data-plane operation with one node replaced by a random value.

Prints counts by status and by kind, and the first few 5xx / drops / hangs; exits 1 if any.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import http.client
import json
import random
import sys
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

TABLE = "fuzz"
GSI_TABLE = "fuzz-gsi"
PREFIX = "DynamoDB_20120810."
JSON_TYPE = "application/x-amz-json-1.0"


def auth(region: str = "us-east-1", key: str = "AKIDFUZZ") -> str:
    return f"AWS4-HMAC-SHA256 Credential={key}/20260101/{region}/dynamodb/aws4_request, SignedHeaders=host, Signature=x"


@dataclass
class Case:
    kind: str
    target: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    broken_coding: bool = False  # a body not in its claimed coding: 500, as the service answers


# --- building blocks ---------------------------------------------------------------------------

BAD_NUMBERS = [
    "1e+99999999999999999999", "-1E-99999999999999999999", "0e99999999999999999999", "1e2147483648",
    "1e999999", "1e-999999", "9" * 39, "9" * 5000, "0." + "0" * 200 + "1", "1" + "0" * 126, "1e126", "1e-131",
    "NaN", "Infinity", "-", "1e", ".", "1..2", " 1", "0x1F", "1e+", "１", "-0", "00000", "1E+125", "1E-130",
]  # fmt: skip
ODD_REGIONS = ["..", ".", "a" * 300, "", "/", "us-east-1/..", "%2e%2e", "é", "x y", "a\\b", "-", "CON", "a" * 63,
               "US-EAST-1", "local", "a_b", "a:b", "..%2f..", "\u202e"]  # fmt: skip
ODD_KEYS = ["", "A" * 200, "..", "../x", "é", "a b", "AKID", "a/b"]
ODD_VALUES: list[Any] = [None, [], {}, "", 0, -1, 2**63, 10**40, 1.5, True, "x" * 1000, [None], {"": None},
                         {"S": None}, {"N": "1e+99999999999999999999"}, [[[]]], {"L": [None]}]  # fmt: skip
EXPRESSIONS = ["", "#", ":", "a = ", "(((((a)))))", "a = :v AND", "SET", "SET a = a + :v", "REMOVE #n[1]", "a[99999999999]",
               "size(a) > :v", "begins_with(a)", "attribute_type(a, :v)", "a BETWEEN :v AND", "#n.#n.#n = :v",
               "a" * 5000, "(" * 200 + "a" + ")" * 200, "a IN (" + ",".join([":v"] * 200) + ")", "contains(a,:v)",
               "NOT NOT NOT a = :v", "a = :v OR " * 50 + "a = :v", "SET #n = list_append(:v, a)", "\x00"]  # fmt: skip


def attribute(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if r < 0.1:
        return copy.deepcopy(rng.choice(ODD_VALUES))
    kind = rng.choice(["S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"] if depth < 4 else ["S", "N"])
    if kind == "S":
        return {"S": rng.choice(["a", "", "é", "x" * 50])}
    if kind == "N":
        return {"N": rng.choice(BAD_NUMBERS + ["1", "2.5", "-3"])}
    if kind == "B":
        return {"B": rng.choice(["AA==", "", "***", "AAA", "AQ=="])}
    if kind in ("BOOL", "NULL"):
        return {kind: rng.choice([True, False, "true", None, 1])}
    if kind == "L":
        return {"L": [attribute(rng, depth + 1) for _ in range(rng.randrange(4))]}
    if kind == "M":
        return {"M": {rng.choice(["a", "b", "", "#"]): attribute(rng, depth + 1) for _ in range(rng.randrange(4))}}
    return {kind: [rng.choice(["1", "1", "a", None, "1e+99999999999999999999", "AA=="]) for _ in range(rng.randrange(4))]}


def key(rng: random.Random) -> Any:
    return {"pk": attribute(rng)} if rng.random() < 0.5 else {"pk": {"S": rng.choice(["a", "b", "c"])}}


def names(rng: random.Random) -> Any:
    return rng.choice([{"#n": "a"}, {"#n": None}, {"#n": ""}, {"#n": "a", "#m": None}, {}, None, ["#n"], {"n": "a"}])


def values(rng: random.Random) -> Any:
    return rng.choice([{":v": attribute(rng)}, {":v": None}, {}, None, {":v": {"N": rng.choice(BAD_NUMBERS)}}])


# --- valid templates of every data-plane operation ----------------------------------------------


def templates(rng: random.Random) -> list[tuple[str, Any]]:
    item = {"pk": {"S": rng.choice("abc")}, "g": {"S": "x"}, "n": {"N": "1"}}
    table = rng.choice([TABLE, GSI_TABLE])
    k = {"pk": {"S": rng.choice("abc")}}
    return [
        ("GetItem", {"TableName": table, "Key": k, "ProjectionExpression": "#n", "ExpressionAttributeNames": {"#n": "n"}}),
        ("PutItem", {"TableName": table, "Item": item, "ConditionExpression": "attribute_not_exists(pk) OR n < :v",
                     "ExpressionAttributeValues": {":v": {"N": "5"}}, "ReturnValues": "ALL_OLD"}),
        ("UpdateItem", {"TableName": table, "Key": k, "UpdateExpression": "SET #n = if_not_exists(#n, :v) ADD c :v",
                        "ExpressionAttributeNames": {"#n": "n"}, "ExpressionAttributeValues": {":v": {"N": "1"}},
                        "ReturnValues": "UPDATED_NEW"}),
        ("DeleteItem", {"TableName": table, "Key": k, "ReturnValues": "ALL_OLD"}),
        ("Query", {"TableName": table, "KeyConditionExpression": "pk = :v", "ExpressionAttributeValues": {":v": {"S": "a"}},
                   "Limit": 5, "FilterExpression": "n > :n", "ScanIndexForward": False}),
        ("Query", {"TableName": GSI_TABLE, "IndexName": "by-g", "KeyConditionExpression": "g = :v",
                   "ExpressionAttributeValues": {":v": {"S": "x"}}}),
        ("Scan", {"TableName": table, "Limit": 3, "Segment": 0, "TotalSegments": 2, "ExclusiveStartKey": k}),
        ("BatchGetItem", {"RequestItems": {table: {"Keys": [k, {"pk": {"S": "z"}}], "ConsistentRead": True}}}),
        ("BatchWriteItem", {"RequestItems": {table: [{"PutRequest": {"Item": item}}, {"DeleteRequest": {"Key": k}}]}}),
        ("TransactWriteItems", {"TransactItems": [
            {"Put": {"TableName": table, "Item": item}},
            {"Update": {"TableName": TABLE, "Key": {"pk": {"S": "t"}}, "UpdateExpression": "ADD c :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}}}},
            {"ConditionCheck": {"TableName": TABLE, "Key": {"pk": {"S": "u"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
        ]}),
        ("TransactGetItems", {"TransactItems": [{"Get": {"TableName": table, "Key": k}}]}),
        ("DescribeTable", {"TableName": table}),
        ("ListTables", {"Limit": 10}),
        ("DescribeTimeToLive", {"TableName": table}),
        ("CreateTable", {"TableName": f"fuzz-new-{rng.randrange(5)}", "BillingMode": "PAY_PER_REQUEST",
                         "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                         "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}),
        ("DeleteTable", {"TableName": f"fuzz-new-{rng.randrange(5)}"}),
    ]  # fmt: skip


def _nodes(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _nodes(v, path + (i,))


def mutate(doc: Any, rng: random.Random) -> Any:
    """``doc`` with one node (or one map key) replaced by an odd value."""
    paths = [p for p in _nodes(doc) if p]
    if not paths:
        return copy.deepcopy(rng.choice(ODD_VALUES))
    path = rng.choice(paths)
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if isinstance(parent, dict) and rng.random() < 0.2:
        parent[rng.choice(["", "é", "x" * 300, "..", "#n", ":v"])] = parent.pop(last)
    else:
        parent[last] = copy.deepcopy(rng.choice(ODD_VALUES + [attribute(rng), rng.choice(EXPRESSIONS), rng.choice(BAD_NUMBERS)]))
    return doc


# --- the kinds ---------------------------------------------------------------------------------------


def _json(doc: Any) -> bytes:
    return json.dumps(doc).encode()


def kind_numbers(rng: random.Random) -> Case:
    n = {"N": rng.choice(BAD_NUMBERS)}
    op, doc = rng.choice([
        ("PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "a"}, "v": n}}),
        ("PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "a"}, "v": {"NS": ["1", n["N"]]}}}),
        ("PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "a"}, "v": {"L": [{"M": {"x": n}}]}}}),
        ("GetItem", {"TableName": TABLE, "Key": {"pk": n}}),
        ("UpdateItem", {"TableName": TABLE, "Key": {"pk": {"S": "a"}}, "UpdateExpression": "ADD v :v",
                        "ExpressionAttributeValues": {":v": n}}),
        ("UpdateItem", {"TableName": TABLE, "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET v = :v + :v",
                        "ExpressionAttributeValues": {":v": n}}),
        ("Query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p", "FilterExpression": "v > :v",
                   "ExpressionAttributeValues": {":p": {"S": "a"}, ":v": n}}),
        ("Scan", {"TableName": TABLE, "ScanFilter": {"v": {"ComparisonOperator": "GT", "AttributeValueList": [n]}}}),
        ("DeleteItem", {"TableName": TABLE, "Key": {"pk": {"S": "a"}}, "Expected": {"v": {"Value": n}}}),
    ])  # fmt: skip
    return Case("numbers", op, _json(doc))


def kind_nulls(rng: random.Random) -> Case:
    op, doc = rng.choice([
        ("BatchGetItem", {"RequestItems": {TABLE: None}}),
        ("BatchWriteItem", {"RequestItems": {TABLE: None}}),
        ("BatchWriteItem", {"RequestItems": {TABLE: [None]}}),
        ("BatchGetItem", {"RequestItems": {TABLE: {"Keys": [None]}}}),
        ("TransactWriteItems", {"TransactItems": [None]}),
        ("TransactGetItems", {"TransactItems": [None, None]}),
        ("GetItem", {"TableName": TABLE, "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "#a",
                     "ExpressionAttributeNames": {"#a": None}}),
        ("GetItem", {"TableName": TABLE, "Key": {"pk": None}}),
        ("GetItem", {"TableName": TABLE, "Key": {"pk": {"S": "a"}}, "AttributesToGet": [None]}),
        ("PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "a"}, "x": None}}),
        ("PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "a"}, "x": {"L": [None]}}}),
        ("PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "a"}, "x": {"M": {"y": None}}}}),
        ("PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "a"}, "x": {"SS": [None]}}}),
        ("UpdateItem", {"TableName": TABLE, "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET #a = :v",
                        "ExpressionAttributeNames": {"#a": None}, "ExpressionAttributeValues": {":v": None}}),
        ("Query", {"TableName": TABLE, "KeyConditions": {"pk": None}}),
        ("Query", {"TableName": TABLE, "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [None]}}}),
        ("CreateTable", {"TableName": "fuzz-null", "KeySchema": [None], "AttributeDefinitions": [None],
                         "GlobalSecondaryIndexes": [None], "BillingMode": "PAY_PER_REQUEST"}),
        ("TagResource", {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/fuzz", "Tags": [None]}),
    ])  # fmt: skip
    return Case("nulls", op, _json(doc))


def kind_regions(rng: random.Random) -> Case:
    op = rng.choice(["ListTables", "CreateTable", "DescribeTable"])
    doc = {"TableName": TABLE, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
           "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"}
    header = rng.choice([
        auth(rng.choice(ODD_REGIONS)), auth(key=rng.choice(ODD_KEYS)), auth(rng.choice(ODD_REGIONS), rng.choice(ODD_KEYS)),
        "AWS4-HMAC-SHA256 Credential=A/20260101/../../tmp/x/dynamodb/aws4_request", "AWS4-HMAC-SHA256",
        "Credential=", "garbage", "AWS4-HMAC-SHA256 Credential=/////", "AWS4-HMAC-SHA256 Credential=A/B",
    ])  # fmt: skip
    return Case("regions", op, _json(doc if op != "ListTables" else {}), {"Authorization": header})


def kind_bodies(rng: random.Random) -> Case:
    body = rng.choice([
        b"null", b"[]", b"123", b'"x"', b"true", b"", b"{", b'{"TableName": "fuzz"', b"\xff\xfe", b"{}" * 3,
        b'{"TableName": "fuzz", "Key": {"pk": {"S": "a"}}}' [: rng.randrange(1, 40)],
        b'{"a":' * 3000 + b"1" + b"}" * 3000, b"[" * 100000, b'{"TableName": "' + b"x" * 70000 + b'"}',
        b'{"TableName": "fuzz", "Item": {"pk": {"S": "a"}, "v": ' + b'{"L": [' * 40 + b'{"S": "x"}' + b"]}" * 40 + b"}}",
        b'{"TableName": "fuzz", "Key": {"pk": {"S": "\\ud800"}}}', b'{"TableName": 1e400}', b"NaN",
    ])  # fmt: skip
    op = rng.choice(["GetItem", "PutItem", "ListTables", "Query", "BatchWriteItem"])
    return Case("bodies", op, body)


# mtime=0: gzip headers carry no clock time, so a seed always yields the same bytes
_BOMB = gzip.compress(b"{" + b" " * (17 * 1024 * 1024) + b"}", mtime=0)  # 17 MB once decoded: 413


def kind_encodings(rng: random.Random) -> Case:
    body = b'{"Limit": 1}'
    gz = gzip.compress(body, mtime=0)
    # (coding, body, whether the body is not in the coding it claims: the service's 500)
    coding, data, broken = rng.choice([
        ("br", body, False), ("compress", body, False), ("gzip", b"", True), ("gzip", gz[:-5], True),
        ("gzip", body, True), ("deflate", b"\x00garbage", True), ("gzip, br", gz, False), ("x-gzip", gz, False),
        ("deflate", zlib.compress(body), False), ("gzip", gz + b"junk", True),
        ("gzip", gzip.compress(b"null", mtime=0), False), ("gzip", _BOMB, False), ("identity", body, False),
        ("", body, False),
    ])  # fmt: skip
    headers = {"Content-Encoding": coding, "Accept-Encoding": rng.choice(["gzip", "x-gzip;q=0.5, deflate", "*", "br", ""])}
    return Case("encodings", "ListTables", data, headers, broken_coding=broken)


def kind_headers(rng: random.Random) -> Case:
    headers = rng.choice([
        {"Content-Type": "text/plain"}, {"Content-Type": ""}, {"Content-Type": "application/json; charset=utf-8"},
        {"Content-Type": "APPLICATION/X-AMZ-JSON-1.0"}, {"X-Amz-Target": ""}, {"X-Amz-Target": "DynamoDB_20120810."},
        {"X-Amz-Target": "Nope.ListTables"}, {"X-Amz-Target": "DynamoDB_20120810.Frobnicate"},
        {"X-Amz-Target": "DynamoDBStreams_20120810.ListStreams"}, {"Authorization": ""}, {"X-Amz-Date": "garbage"},
    ])  # fmt: skip
    return Case("headers", "ListTables", b"{}", headers)


def kind_expressions(rng: random.Random) -> Case:
    expr = rng.choice(EXPRESSIONS)
    field_name = rng.choice(["ConditionExpression", "UpdateExpression", "ProjectionExpression"])
    doc = {"TableName": TABLE, "Key": {"pk": {"S": "a"}}, field_name: expr,
           "ExpressionAttributeNames": names(rng), "ExpressionAttributeValues": values(rng)}
    op = "UpdateItem" if field_name != "ProjectionExpression" else "GetItem"
    if rng.random() < 0.3:
        op, doc = "Query", {"TableName": TABLE, "KeyConditionExpression": expr, "FilterExpression": rng.choice(EXPRESSIONS),
                            "ExpressionAttributeNames": names(rng), "ExpressionAttributeValues": values(rng)}
    return Case("expressions", op, _json({k: v for k, v in doc.items() if v is not None}))


def kind_mutations(rng: random.Random) -> Case:
    op, doc = rng.choice(templates(rng))
    for _ in range(rng.randrange(1, 4)):
        doc = mutate(doc, rng)
    return Case("mutations", op, _json(doc))


KINDS: list[tuple[Callable[[random.Random], Case], int]] = [
    (kind_numbers, 12), (kind_nulls, 12), (kind_regions, 8), (kind_bodies, 8), (kind_encodings, 5),
    (kind_headers, 5), (kind_expressions, 15), (kind_mutations, 35),
]  # fmt: skip


def cases(seed: int, count: int) -> Iterator[Case]:
    rng = random.Random(seed)
    kinds, weights = zip(*KINDS, strict=True)
    for _ in range(count):
        yield rng.choices(kinds, weights)[0](rng)


# --- the run -----------------------------------------------------------------------------------------


@dataclass
class Report:
    by_status: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[tuple[str, str]] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)  # 5xx, drops, hangs

    def bad(self) -> int:
        return sum(n for s, n in self.by_status.items()
                   if (s.startswith("5") and s != "500-coding") or s in ("drop", "hang"))


class Client:
    def __init__(self, url: str, timeout: float) -> None:
        u = urlparse(url)
        self.host, self.port, self.timeout = u.hostname or "127.0.0.1", u.port or 80, timeout
        self.conn: http.client.HTTPConnection | None = None

    def send(self, case: Case) -> tuple[str, bytes]:
        headers = {"Content-Type": JSON_TYPE, "X-Amz-Target": PREFIX + case.target, "Authorization": auth()}
        headers.update(case.headers)
        headers = {k: v for k, v in headers.items() if v != "" or k in ("Content-Type", "Authorization", "X-Amz-Target")}
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            # header values as UTF-8 bytes: odd regions are not all Latin-1
            self.conn.request("POST", "/", body=case.body, headers={k: v.encode() for k, v in headers.items()})
            resp = self.conn.getresponse()
            data = resp.read()
        except TimeoutError:
            self.close()
            return "hang", b""
        except (ConnectionError, http.client.HTTPException, OSError) as e:
            self.close()
            return "drop", repr(e).encode()
        if resp.will_close:
            self.close()
        return str(resp.status), data

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def setup(url: str) -> None:
    """The tables the requests aim at: a plain one and one with a GSI and a stream."""
    client = Client(url, 30)
    for name, extra in ((TABLE, {}), (GSI_TABLE, {
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        "GlobalSecondaryIndexes": [{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                    "Projection": {"ProjectionType": "ALL"}}],
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    })):  # fmt: skip
        doc = {"TableName": name, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
               "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"}
        doc.update(extra)
        client.send(Case("setup", "CreateTable", _json(doc)))
    client.close()


def run(url: str, seed: int, count: int, timeout: float = 30.0) -> Report:
    setup(url)
    report = Report()
    client = Client(url, timeout)
    for case in cases(seed, count):
        status, data = client.send(case)
        if case.broken_coding and status == "500" and b"#InternalServerError" in data:
            status = "500-coding"  # the service's answer, not a failure
        report.by_status[status] += 1
        report.by_kind[(case.kind, status[0] if status[0].isdigit() else status)] += 1
        if (status.startswith("5") and status != "500-coding") or status in ("drop", "hang"):
            if len(report.failures) < 20:
                report.failures.append(f"{status} {case.kind} {case.target} {case.headers} {case.body[:300]!r} -> {data[:300]!r}")
    client.close()
    return report


def _print(report: Report, count: int, seconds: float) -> None:
    print(f"{count} requests in {seconds:.1f} s")
    print("by status: " + ", ".join(f"{s}: {n}" for s, n in sorted(report.by_status.items())))
    kinds = sorted({k for k, _ in report.by_kind})
    for kind in kinds:
        parts = {s: n for (k, s), n in report.by_kind.items() if k == kind}
        print(f"  {kind:12s} " + ", ".join(f"{s}xx: {n}" if s.isdigit() else f"{s}: {n}" for s, n in sorted(parts.items())))
    print(f"5xx, drops and hangs: {report.bad()}")
    for line in report.failures:
        print("  " + line)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--endpoint", help="a running server (default: start one in this process)")
    p.add_argument("--leveldb", action="store_true", help="the started server uses LevelDB in a temp directory")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds before a request counts as a hang")
    args = p.parse_args()
    started = time.perf_counter()
    if args.endpoint:
        report = run(args.endpoint, args.seed, args.count, args.timeout)
    else:
        import tempfile

        sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
        from dynemu.testing import DynemuServer

        with tempfile.TemporaryDirectory() as tmp:
            options: dict[str, Any] = {"data_dir": tmp} if args.leveldb else {}
            with DynemuServer(throttling=False, **options) as url:
                report = run(url, args.seed, args.count, args.timeout)
    _print(report, args.count, time.perf_counter() - started)
    sys.exit(1 if report.bad() else 0)


if __name__ == "__main__":
    main()
