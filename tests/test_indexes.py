"""Local and global secondary indexes through boto3: creation rules, DescribeTable, projections,
sparse indexes, index keys of the wrong type, Query and Scan on indexes, capacity and item
collections. UpdateTable's GSI operations: test_indexes_update.py; multi-attribute keys:
test_indexes_multi.py; the model check: test_index_properties.py."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.helpers import assert_error, assert_validation, error_of

_names = itertools.count()
PARAM = "One or more parameter values were invalid: "


def ks(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"AttributeName": n, "KeyType": k} for n, k in pairs]


def ad(**types: str) -> list[dict[str, str]]:
    return [{"AttributeName": n, "AttributeType": t} for n, t in types.items()]


def proj(kind: str, *non_key: str) -> dict[str, Any]:
    p: dict[str, Any] = {"ProjectionType": kind}
    if non_key:
        p["NonKeyAttributes"] = list(non_key)
    return p


def lsi(name: str, range_name: str, kind: str = "ALL", *non_key: str) -> dict[str, Any]:
    return {"IndexName": name, "KeySchema": ks(("pk", "HASH"), (range_name, "RANGE")), "Projection": proj(kind, *non_key)}


def gsi(name: str, hash_name: str, range_name: str | None = None, kind: str = "ALL", *non_key: str) -> dict[str, Any]:
    keys = [(hash_name, "HASH")] + ([(range_name, "RANGE")] if range_name else [])
    return {"IndexName": name, "KeySchema": ks(*keys), "Projection": proj(kind, *non_key)}



@pytest.fixture
def create(ddb: Any) -> Iterator[Callable[..., str]]:
    """Create a table (pk S, sk N by default) with indexes; dropped afterwards."""
    made: list[str] = []

    def make(*, lsis: list[dict[str, Any]] | None = None, gsis: list[dict[str, Any]] | None = None,
             defs: dict[str, str] | None = None, range_key: bool = True, **extra: Any) -> str:
        name = f"idx-{next(_names)}"
        keys = [("pk", "HASH")] + ([("sk", "RANGE")] if range_key else [])
        types = {"pk": "S", **({"sk": "N"} if range_key else {}), **(defs or {})}
        kwargs: dict[str, Any] = {"BillingMode": "PAY_PER_REQUEST", **extra}
        if lsis:
            kwargs["LocalSecondaryIndexes"] = lsis
        if gsis:
            kwargs["GlobalSecondaryIndexes"] = gsis
        ddb.create_table(TableName=name, KeySchema=ks(*keys), AttributeDefinitions=ad(**types), **kwargs)
        made.append(name)
        return name

    yield make
    for name in made:
        try:
            ddb.delete_table(TableName=name)
        except ddb.exceptions.ClientError:
            pass


def scan_all(ddb: Any, table: str, index: str, **kw: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    start = None
    while True:
        args = dict(TableName=table, IndexName=index, **kw)
        if start:
            args["ExclusiveStartKey"] = start
        page = ddb.scan(**args)
        out += page.get("Items", [])
        start = page.get("LastEvaluatedKey")
        if not start:
            return out


def qv(**values: Any) -> dict[str, Any]:
    return {f":{k}": v for k, v in values.items()}


S = lambda s: {"S": s}  # noqa: E731
N = lambda n: {"N": str(n)}  # noqa: E731


# --- CreateTable: the index rules -------------------------------------------------------------


def _base(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "TableName": f"idx-bad-{next(_names)}",
        "KeySchema": ks(("pk", "HASH"), ("sk", "RANGE")),
        "AttributeDefinitions": ad(pk="S", sk="N", a="S", b="N"),
        "BillingMode": "PAY_PER_REQUEST",
    }
    body.update(over)
    return body


CREATE_ERRORS = [
    ("lsi-empty", dict(LocalSecondaryIndexes=[], AttributeDefinitions=ad(pk="S", sk="N")),
     PARAM + "List of LocalSecondaryIndexes is empty"),
    ("gsi-empty", dict(GlobalSecondaryIndexes=[], AttributeDefinitions=ad(pk="S", sk="N")),
     PARAM + "List of GlobalSecondaryIndexes is empty"),
    ("unused-definition", dict(GlobalSecondaryIndexes=[gsi("gi1", "a")]),
     PARAM + "Some AttributeDefinitions are not used. AttributeDefinitions: [pk, sk, a, b], keys used: [pk, sk, a]"),
    ("undefined", dict(GlobalSecondaryIndexes=[gsi("gi1", "a"), gsi("gi2", "q", "b")]),
     PARAM + "Some index key attributes are not defined in AttributeDefinitions. Keys: [q, b], "
     "AttributeDefinitions: [pk, sk, a, b]"),
    ("lsi-no-table-range", dict(KeySchema=ks(("pk", "HASH")), AttributeDefinitions=ad(pk="S", a="S"),
                                LocalSecondaryIndexes=[lsi("li1", "a")]),
     PARAM + "Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"),
    ("lsi-other-hash", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"), LocalSecondaryIndexes=[
        {"IndexName": "li1", "KeySchema": ks(("a", "HASH"), ("sk", "RANGE")), "Projection": proj("ALL")}]),
     PARAM + "Index KeySchema does not have the same leading hash key as table KeySchema for index: li1. "
     "index hash key: a, table hash key: pk"),
    ("lsi-no-range", dict(AttributeDefinitions=ad(pk="S", sk="N"), LocalSecondaryIndexes=[
        {"IndexName": "li1", "KeySchema": ks(("pk", "HASH")), "Projection": proj("ALL")}]),
     PARAM + "Index KeySchema does not have a range key for index: li1"),
    ("lsi-same-names", dict(AttributeDefinitions=ad(pk="S", sk="N"), LocalSecondaryIndexes=[
        {"IndexName": "li1", "KeySchema": ks(("pk", "HASH"), ("pk", "RANGE")), "Projection": proj("ALL")}]),
     "Both the Hash Key and the Range Key element in the KeySchema have the same name"),
    ("gsi-range-first", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"), GlobalSecondaryIndexes=[
        {"IndexName": "gi1", "KeySchema": ks(("a", "RANGE"), ("sk", "HASH")), "Projection": proj("ALL")}]),
     "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"),
    ("no-projection-type", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"), GlobalSecondaryIndexes=[
        {"IndexName": "gi1", "KeySchema": ks(("a", "HASH")), "Projection": {}}]),
     PARAM + "Unknown ProjectionType: null"),
    ("keys-only-with-attributes", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"),
                                       GlobalSecondaryIndexes=[gsi("gi1", "a", None, "KEYS_ONLY", "x")]),
     PARAM + "ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified"),
    ("include-without-attributes", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"),
                                        GlobalSecondaryIndexes=[gsi("gi1", "a", None, "INCLUDE")]),
     PARAM + "ProjectionType is INCLUDE, but NonKeyAttributes is not specified"),
    ("include-duplicates", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"),
                                GlobalSecondaryIndexes=[gsi("gi1", "a", None, "INCLUDE", "x", "y", "x")]),
     PARAM + "Duplicate element in NonKeyAttributes: x"),
    ("duplicate-name", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"), LocalSecondaryIndexes=[lsi("dup", "a")],
                            GlobalSecondaryIndexes=[gsi("dup", "a")]),
     PARAM + "Duplicate index name: dup"),
    ("six-lsis", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"),
                      LocalSecondaryIndexes=[lsi(f"lsi{i}", "a") for i in range(6)]),
     PARAM + "Number of LocalSecondaryIndexes exceeds per-table limit of 5"),
    ("twenty-one-gsis", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"),
                             GlobalSecondaryIndexes=[gsi(f"gsi{i:02}", "a") for i in range(21)]),
     PARAM + "GlobalSecondaryIndex count exceeds the per-table limit of 20"),
    ("on-demand-gsi-throughput", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"), GlobalSecondaryIndexes=[
        {**gsi("gi1", "a"), "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}]),
     PARAM + "ProvisionedThroughput should not be specified for index: gi1 when BillingMode is PAY_PER_REQUEST"),
    ("provisioned-gsi-without", dict(AttributeDefinitions=ad(pk="S", sk="N", a="S"), BillingMode="PROVISIONED",
                                     ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
                                     GlobalSecondaryIndexes=[gsi("gi1", "a")]),
     PARAM + "ProvisionedThroughput is not specified for index: gi1"),
]


@pytest.mark.parametrize("over,message", [c[1:] for c in CREATE_ERRORS], ids=[c[0] for c in CREATE_ERRORS])
def test_create_table_index_errors(raw: Any, over: dict[str, Any], message: str) -> None:
    assert_validation(message, raw.create_table, **_base(**over))


def test_projected_attribute_limit(raw: Any) -> None:
    # 100 NonKeyAttributes over all indexes ("Service, account, and table quotas")
    lsis = [lsi(f"lsi{i}", "a", "INCLUDE", *[f"x{i}_{j}" for j in range(20)]) for i in range(5)]
    body = _base(AttributeDefinitions=ad(pk="S", sk="N", a="S"), LocalSecondaryIndexes=lsis)
    raw.create_table(**body)  # exactly 100
    raw.delete_table(TableName=body["TableName"])
    extra = gsi("gi1", "a", None, "INCLUDE", "z")
    code, _ = error_of(raw.create_table, **_base(AttributeDefinitions=ad(pk="S", sk="N", a="S"),
                                                  LocalSecondaryIndexes=lsis, GlobalSecondaryIndexes=[extra]))
    assert code == "ValidationException"  # the service's text is not known (index_specs: UNSURE)


def test_gsi_throughput_above_quota(raw: Any) -> None:
    body = _base(AttributeDefinitions=ad(pk="S", sk="N", a="S"), BillingMode="PROVISIONED",
                 ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
                 GlobalSecondaryIndexes=[{**gsi("gi1", "a"),
                                          "ProvisionedThroughput": {"ReadCapacityUnits": 40001, "WriteCapacityUnits": 1}}])
    assert_error(
        "LimitExceededException",
        "The requested ReadCapacityUnits for index gi1, 40001, is above the per index maximum for the account in "
        "us-east-1. Per table maximum: 40000. Refer to the Amazon DynamoDB Developer Guide for current limits and "
        "how to request higher limits.",
        raw.create_table, **body,
    )


# --- DescribeTable ------------------------------------------------------------------------------


def test_describe_reports_every_index(ddb: Any, create: Callable[..., str]) -> None:
    name = f"idx-{next(_names)}"
    resp = ddb.create_table(
        TableName=name, KeySchema=ks(("pk", "HASH"), ("sk", "RANGE")),
        AttributeDefinitions=ad(pk="S", sk="N", l="N", g="S"),
        BillingMode="PROVISIONED", ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        LocalSecondaryIndexes=[lsi("by_l", "l", "INCLUDE", "zz", "aa")],
        GlobalSecondaryIndexes=[{**gsi("by_g", "g", "sk", "KEYS_ONLY"),
                                 "ProvisionedThroughput": {"ReadCapacityUnits": 3, "WriteCapacityUnits": 2}}],
    )["TableDescription"]
    try:
        assert resp["GlobalSecondaryIndexes"][0]["IndexStatus"] == "CREATING"
        table = ddb.describe_table(TableName=name)["Table"]
        arn = table["TableArn"]
        assert table["LocalSecondaryIndexes"] == [{
            "IndexName": "by_l",
            "KeySchema": ks(("pk", "HASH"), ("l", "RANGE")),
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["aa", "zz"]},
            "IndexSizeBytes": 0, "ItemCount": 0, "IndexArn": f"{arn}/index/by_l",
        }]
        g = table["GlobalSecondaryIndexes"][0]
        assert g["IndexName"] == "by_g" and g["IndexStatus"] == "ACTIVE" and "Backfilling" not in g
        assert g["KeySchema"] == ks(("g", "HASH"), ("sk", "RANGE"))
        assert g["Projection"] == {"ProjectionType": "KEYS_ONLY"}
        assert g["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 3, "WriteCapacityUnits": 2}
        assert g["IndexArn"] == f"{arn}/index/by_g"
        ddb.put_item(TableName=name, Item={"pk": S("a"), "sk": N(1), "l": N(5), "g": S("x"), "zz": S("z"), "q": S("q")})
        table = ddb.describe_table(TableName=name)["Table"]
        assert table["LocalSecondaryIndexes"][0]["ItemCount"] == 1
        assert table["GlobalSecondaryIndexes"][0]["ItemCount"] == 1
        assert table["LocalSecondaryIndexes"][0]["IndexSizeBytes"] > table["GlobalSecondaryIndexes"][0]["IndexSizeBytes"] > 0
    finally:
        ddb.delete_table(TableName=name)


def test_on_demand_gsi_reports_zero_throughput(ddb: Any, create: Callable[..., str]) -> None:
    name = create(defs={"g": "S"}, gsis=[gsi("by_g", "g")])
    g = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert g["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}


# --- projections, sparse indexes, moving items ------------------------------------------------------


@pytest.fixture
def three(create: Callable[..., str]) -> str:
    """pk/sk table; LSI ``by_l`` KEYS_ONLY on l; GSI ``inc`` (g) INCLUDE x; GSI ``all`` (g, n) ALL."""
    return create(
        defs={"l": "N", "g": "S", "n": "N"},
        lsis=[lsi("by_l", "l", "KEYS_ONLY")],
        gsis=[gsi("inc", "g", None, "INCLUDE", "x"), gsi("all", "g", "n", "ALL")],
    )


def test_each_projection_type(ddb: Any, three: str) -> None:
    item = {"pk": S("a"), "sk": N(1), "l": N(9), "g": S("G"), "n": N(3), "x": S("x"), "y": S("y")}
    ddb.put_item(TableName=three, Item=item)
    assert scan_all(ddb, three, "by_l") == [{"pk": S("a"), "sk": N(1), "l": N(9)}]
    assert scan_all(ddb, three, "inc") == [{"pk": S("a"), "sk": N(1), "g": S("G"), "x": S("x")}]
    assert scan_all(ddb, three, "all") == [item]


def test_sparse_indexes(ddb: Any, three: str) -> None:
    ddb.put_item(TableName=three, Item={"pk": S("a"), "sk": N(1), "g": S("G")})  # no n: not in "all"
    ddb.put_item(TableName=three, Item={"pk": S("a"), "sk": N(2), "l": N(1)})  # no g
    ddb.put_item(TableName=three, Item={"pk": S("a"), "sk": N(3)})
    assert [i["sk"] for i in scan_all(ddb, three, "inc")] == [N(1)]
    assert scan_all(ddb, three, "all") == []
    assert [i["sk"] for i in scan_all(ddb, three, "by_l")] == [N(2)]
    desc = ddb.describe_table(TableName=three)["Table"]
    assert [g["ItemCount"] for g in desc["GlobalSecondaryIndexes"]] == [1, 0]
    assert desc["LocalSecondaryIndexes"][0]["ItemCount"] == 1


def test_updates_move_items_in_and_out(ddb: Any, three: str) -> None:
    key = {"pk": S("a"), "sk": N(1)}

    def in_g(value: str) -> list[dict[str, Any]]:
        return ddb.query(TableName=three, IndexName="inc", KeyConditionExpression="g = :g",
                         ExpressionAttributeValues=qv(g=S(value)))["Items"]

    ddb.put_item(TableName=three, Item={**key, "g": S("A")})
    assert len(in_g("A")) == 1
    ddb.update_item(TableName=three, Key=key, UpdateExpression="SET g = :b", ExpressionAttributeValues=qv(b=S("B")))
    assert in_g("A") == [] and in_g("B") == [{**key, "g": S("B")}]
    ddb.update_item(TableName=three, Key=key, UpdateExpression="SET x = :x", ExpressionAttributeValues=qv(x=S("X")))
    assert in_g("B") == [{**key, "g": S("B"), "x": S("X")}]
    ddb.update_item(TableName=three, Key=key, UpdateExpression="REMOVE g")
    assert in_g("B") == [] and scan_all(ddb, three, "inc") == []
    ddb.update_item(TableName=three, Key=key, UpdateExpression="SET g = :a, n = :n",
                    ExpressionAttributeValues=qv(a=S("A"), n=N(1)))
    assert len(in_g("A")) == 1 and len(scan_all(ddb, three, "all")) == 1
    ddb.delete_item(TableName=three, Key=key)
    assert scan_all(ddb, three, "inc") == [] and scan_all(ddb, three, "all") == []
    desc = ddb.describe_table(TableName=three)["Table"]
    assert [(g["ItemCount"], g["IndexSizeBytes"]) for g in desc["GlobalSecondaryIndexes"]] == [(0, 0), (0, 0)]


def test_batch_and_transaction_writes_maintain_indexes(ddb: Any, three: str) -> None:
    ddb.batch_write_item(RequestItems={three: [
        {"PutRequest": {"Item": {"pk": S("b"), "sk": N(i), "g": S("G"), "n": N(i)}}} for i in range(3)
    ]})
    assert len(scan_all(ddb, three, "all")) == 3
    ddb.transact_write_items(TransactItems=[
        {"Delete": {"TableName": three, "Key": {"pk": S("b"), "sk": N(0)}}},
        {"Update": {"TableName": three, "Key": {"pk": S("b"), "sk": N(1)}, "UpdateExpression": "SET g = :h",
                    "ExpressionAttributeValues": qv(h=S("H"))}},
        {"Put": {"TableName": three, "Item": {"pk": S("b"), "sk": N(9), "g": S("G"), "n": N(9), "l": N(1)}}},
    ])
    assert sorted(i["g"]["S"] + i["n"]["N"] for i in scan_all(ddb, three, "all")) == ["G2", "G9", "H1"]
    assert len(scan_all(ddb, three, "by_l")) == 1


# --- index key attributes of the wrong type -------------------------------------------------------------


def test_wrong_index_key_type_is_refused(ddb: Any, three: str) -> None:
    key = {"pk": S("a"), "sk": N(1)}
    assert_validation(PARAM + "Type mismatch for Index Key g Expected: S Actual: N IndexName: all",
                      ddb.put_item, TableName=three, Item={**key, "g": N(1)})
    assert_validation(PARAM + "Type mismatch for Index Key g Expected: S Actual: NULL IndexName: all",
                      ddb.put_item, TableName=three, Item={**key, "g": {"NULL": True}})
    assert_validation(PARAM + "Type mismatch for Index Key l Expected: N Actual: S IndexName: by_l",
                      ddb.put_item, TableName=three, Item={**key, "l": S("1")})
    assert "Item" not in ddb.get_item(TableName=three, Key=key)
    ddb.put_item(TableName=three, Item={**key, "g": S("A")})
    assert_validation(PARAM + "Type mismatch for Index Key n Expected: N Actual: S IndexName: all",
                      ddb.update_item, TableName=three, Key=key, UpdateExpression="SET n = :s, y = :s",
                      ExpressionAttributeValues=qv(s=S("s")))
    assert ddb.get_item(TableName=three, Key=key)["Item"] == {**key, "g": S("A")}
    assert_validation(
        "One or more parameter values are not valid. A value specified for a secondary index key is not supported. "
        "The AttributeValue for a key attribute cannot contain an empty string value. IndexName: all, IndexKey: g",
        ddb.put_item, TableName=three, Item={**key, "g": S("")},
    )
    assert_validation(
        PARAM + "Size limit exceeded for Index Key g Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: all",
        ddb.put_item, TableName=three, Item={**key, "g": S("x" * 2049)},
    )
    assert [i["g"] for i in scan_all(ddb, three, "inc")] == [S("A")]


# --- Query and Scan on indexes ---------------------------------------------------------------------


def _fill(ddb: Any, table: str, n: int = 25) -> None:
    for i in range(n):
        ddb.put_item(TableName=table, Item={"pk": S(f"p{i % 3}"), "sk": N(i), "g": S("G" if i % 5 else "H"),
                                            "n": N(i % 4), "l": N(100 - i), "x": S("x" * i), "y": S("y")})


def test_query_gsi_pages_in_index_order(ddb: Any, three: str) -> None:
    _fill(ddb, three)
    expected = sorted(
        ((i % 4, f"p{i % 3}", i) for i in range(25) if i % 5), key=lambda t: (t[0], t[1], t[2])
    )
    for forward in (True, False):
        got: list[tuple[int, str, int]] = []
        start = None
        while True:
            kw: dict[str, Any] = {"ExclusiveStartKey": start} if start else {}
            page = ddb.query(TableName=three, IndexName="all", KeyConditionExpression="g = :g",
                             ExpressionAttributeValues=qv(g=S("G")), Limit=7, ScanIndexForward=forward, **kw)
            got += [(int(i["n"]["N"]), i["pk"]["S"], int(i["sk"]["N"])) for i in page["Items"]]
            start = page.get("LastEvaluatedKey")
            if start is None:
                break
            assert set(start) == {"g", "n", "pk", "sk"}
        assert got == (expected if forward else expected[::-1])


def test_query_gsi_sort_key_conditions(ddb: Any, three: str) -> None:
    _fill(ddb, three)
    page = ddb.query(TableName=three, IndexName="all", KeyConditionExpression="g = :g AND n BETWEEN :a AND :b",
                     ExpressionAttributeValues=qv(g=S("G"), a=N(1), b=N(2)), Select="COUNT")
    assert page["Count"] == len([i for i in range(25) if i % 5 and 1 <= i % 4 <= 2])
    page = ddb.query(TableName=three, IndexName="all", KeyConditionExpression="g = :g AND n < :b",
                     FilterExpression="begins_with(x, :x)", ExpressionAttributeValues=qv(g=S("H"), b=N(3), x=S("xxxxxxxxxx")))
    # H items: sk 0, 5, 10, 15, 20 with n 0, 1, 2, 3, 0; index order (n, pk, sk) and x of 10+ chars
    assert [int(i["sk"]["N"]) for i in page["Items"]] == [20, 10]
    assert page["ScannedCount"] == 4


def test_query_lsi_with_consistent_read_and_fetch(ddb: Any, three: str) -> None:
    _fill(ddb, three)
    kw = dict(TableName=three, IndexName="by_l", KeyConditionExpression="pk = :p AND l < :l",
              ExpressionAttributeValues=qv(p=S("p1"), l=N(90)), ReturnConsumedCapacity="INDEXES")
    page = ddb.query(ConsistentRead=True, **kw)
    assert [int(i["l"]["N"]) for i in page["Items"]] == sorted(100 - i for i in range(25) if i % 3 == 1 and 100 - i < 90)
    assert set(page["Items"][0]) == {"pk", "sk", "l"}
    assert page["ConsumedCapacity"] == {"TableName": three, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 0.0},
                                        "LocalSecondaryIndexes": {"by_l": {"CapacityUnits": 1.0}}}
    # attributes outside the projection: fetched from the table, each item charged (LSI.md)
    page = ddb.query(Select="ALL_ATTRIBUTES", **kw)
    assert page["Items"][0]["y"] == S("y") and len(page["Items"]) == page["Count"] == 4
    assert page["ConsumedCapacity"]["Table"] == {"CapacityUnits": 2.0}  # 4 items x 4 KB, eventually consistent
    page = ddb.query(ProjectionExpression="x, l", **kw)
    assert all(set(i) == {"x", "l"} for i in page["Items"])


def test_gsi_read_rules(ddb: Any, three: str) -> None:
    base = dict(TableName=three, IndexName="inc", KeyConditionExpression="g = :g", ExpressionAttributeValues=qv(g=S("G")))
    assert_validation("Consistent reads are not supported on global secondary indexes",
                      ddb.query, ConsistentRead=True, **base)
    assert_validation("Consistent reads are not supported on global secondary indexes",
                      ddb.scan, TableName=three, IndexName="inc", ConsistentRead=True)
    assert_validation(PARAM + "Select type ALL_ATTRIBUTES is not supported for global secondary index inc because "
                      "its projection type is not ALL", ddb.query, Select="ALL_ATTRIBUTES", **base)
    assert_validation(PARAM + "Global secondary index inc does not project [y, z]",
                      ddb.query, ProjectionExpression="x, y, z", **base)
    assert_validation(PARAM + "Secondary index inc does not project one or more filter attributes: [y]",
                      ddb.query, FilterExpression="y = :g", **base)
    assert_validation("Filter Expression can only contain non-primary key attributes: Primary key attribute: g",
                      ddb.query, FilterExpression="g = :g", **base)
    assert_validation("The table does not have the specified index: nope",
                      ddb.query, **{**base, "IndexName": "nope"})
    assert_validation("Query condition missed key schema element: g", ddb.query, TableName=three, IndexName="inc",
                      KeyConditionExpression="pk = :g", ExpressionAttributeValues=qv(g=S("G")))
    assert_validation(PARAM + "Condition parameter type does not match schema type",
                      ddb.query, **{**base, "ExpressionAttributeValues": qv(g=N(1))})


def test_index_start_keys(ddb: Any, three: str) -> None:
    _fill(ddb, three, 6)
    base = dict(TableName=three, IndexName="all", KeyConditionExpression="g = :g", ExpressionAttributeValues=qv(g=S("G")))
    assert_validation("The provided starting key is invalid", ddb.query,
                      ExclusiveStartKey={"pk": S("p1"), "sk": N(1)}, **base)
    assert_validation("The provided starting key is outside query boundaries based on provided condition",
                      ddb.query, ExclusiveStartKey={"pk": S("p1"), "sk": N(1), "g": S("H"), "n": N(1)}, **base)
    assert_validation("The provided starting key is invalid: The provided key element does not match the schema",
                      ddb.scan, TableName=three, IndexName="all", ExclusiveStartKey={"pk": S("p1"), "sk": N(1)})


def test_parallel_scan_of_an_index(ddb: Any, three: str) -> None:
    _fill(ddb, three)
    whole = scan_all(ddb, three, "by_l")
    parts: list[dict[str, Any]] = []
    for segment in range(3):
        parts += scan_all(ddb, three, "by_l", Segment=segment, TotalSegments=3, Limit=4)
    key = lambda i: (i["pk"]["S"], i["sk"]["N"])  # noqa: E731
    assert len(whole) == 25 and sorted(map(key, parts)) == sorted(map(key, whole))


def test_scan_lsi_select_all_attributes_fetches(ddb: Any, three: str) -> None:
    _fill(ddb, three, 4)
    items = scan_all(ddb, three, "by_l", Select="ALL_ATTRIBUTES")
    assert len(items) == 4 and all("y" in i for i in items)
    assert scan_all(ddb, three, "by_l", Select="ALL_PROJECTED_ATTRIBUTES")[0].keys() == {"pk", "sk", "l"}


# --- capacity -----------------------------------------------------------------------------------------


def test_write_capacity_breakdown(ddb: Any, three: str) -> None:
    key = {"pk": S("a"), "sk": N(1)}
    item = {**key, "l": N(1), "g": S("G"), "n": N(1), "x": S("x")}
    cc = ddb.put_item(TableName=three, Item=item, ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert cc == {"TableName": three, "CapacityUnits": 4.0, "Table": {"CapacityUnits": 1.0},
                  "LocalSecondaryIndexes": {"by_l": {"CapacityUnits": 1.0}},
                  "GlobalSecondaryIndexes": {"inc": {"CapacityUnits": 1.0}, "all": {"CapacityUnits": 1.0}}}

    # a non-projected attribute changes: only the ALL index is written
    cc = ddb.update_item(TableName=three, Key=key, UpdateExpression="SET y = :y", ExpressionAttributeValues=qv(y=S("y")),
                         ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert cc["CapacityUnits"] == 2.0 and cc["GlobalSecondaryIndexes"] == {"all": {"CapacityUnits": 1.0}}
    assert "LocalSecondaryIndexes" not in cc
    # the GSI key moves: a delete and a put on both GSIs
    cc = ddb.update_item(TableName=three, Key=key, UpdateExpression="SET g = :g", ExpressionAttributeValues=qv(g=S("H")),
                         ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert cc["GlobalSecondaryIndexes"] == {"inc": {"CapacityUnits": 2.0}, "all": {"CapacityUnits": 2.0}}
    assert cc["CapacityUnits"] == 5.0
    cc = ddb.delete_item(TableName=three, Key=key, ReturnConsumedCapacity="TOTAL")["ConsumedCapacity"]
    assert cc == {"TableName": three, "CapacityUnits": 4.0}


def test_gsi_query_capacity(ddb: Any, three: str) -> None:
    _fill(ddb, three, 3)
    cc = ddb.query(TableName=three, IndexName="inc", KeyConditionExpression="g = :g",
                   ExpressionAttributeValues=qv(g=S("G")), ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert cc == {"TableName": three, "CapacityUnits": 0.5, "Table": {"CapacityUnits": 0.0},
                  "GlobalSecondaryIndexes": {"inc": {"CapacityUnits": 0.5}}}


# --- item collections -----------------------------------------------------------------------------------


@pytest.fixture
def small_collections() -> Iterator[Any]:
    """A private server whose item collections are limited to 3000 bytes."""
    with DynemuServer(throttling=False, item_collection_limit="3000") as url:
        yield make_client(url)


def test_item_collection_metrics_and_limit(small_collections: Any) -> None:
    ddb = small_collections
    name = "collections"
    ddb.create_table(TableName=name, KeySchema=ks(("pk", "HASH"), ("sk", "RANGE")), BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=ad(pk="S", sk="N", l="N"), LocalSecondaryIndexes=[lsi("by_l", "l", "ALL")])
    resp = ddb.put_item(TableName=name, Item={"pk": S("a"), "sk": N(0), "l": N(1), "v": S("v" * 500)},
                        ReturnItemCollectionMetrics="SIZE")
    assert resp["ItemCollectionMetrics"] == {"ItemCollectionKey": {"pk": S("a")}, "SizeEstimateRangeGB": [0.0, 1.0]}
    ddb.put_item(TableName=name, Item={"pk": S("a"), "sk": N(1), "l": N(1), "v": S("v" * 500)})
    # two items of ~510 bytes, each also in the ALL-projected LSI: ~2 KB of the 3000 allowed
    assert_error("ItemCollectionSizeLimitExceededException", "Collection size exceeded",
                 ddb.put_item, TableName=name, Item={"pk": S("a"), "sk": N(2), "l": N(1), "v": S("v" * 500)})
    ddb.put_item(TableName=name, Item={"pk": S("a"), "sk": N(2), "v": S("v" * 500)})  # not in the LSI: fits
    ddb.put_item(TableName=name, Item={"pk": S("b"), "sk": N(0), "l": N(1), "v": S("v" * 500)})  # other collection
    resp = ddb.delete_item(TableName=name, Key={"pk": S("a"), "sk": N(0)}, ReturnItemCollectionMetrics="SIZE")
    assert resp["ItemCollectionMetrics"]["ItemCollectionKey"] == {"pk": S("a")}
    ddb.put_item(TableName=name, Item={"pk": S("a"), "sk": N(3), "l": N(2), "v": S("v" * 400)})


def test_no_item_collection_metrics_without_lsi(ddb: Any, three: str, create: Callable[..., str]) -> None:
    name = create(defs={"g": "S"}, gsis=[gsi("by_g", "g")])
    resp = ddb.put_item(TableName=name, Item={"pk": S("a"), "sk": N(0)}, ReturnItemCollectionMetrics="SIZE")
    assert "ItemCollectionMetrics" not in resp


def test_delete_table_leaves_its_indexes_out_of_the_description(ddb: Any) -> None:
    # issue 24, item 11: as the service answers, DeleteTable's description has no indexes
    # (DescribeTable has them until the table is gone)
    name = f"idx-{next(_names)}"
    ddb.create_table(TableName=name, KeySchema=ks(("pk", "HASH"), ("sk", "RANGE")), BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=ad(pk="S", sk="N", g="S"), LocalSecondaryIndexes=[lsi("by_g", "g")],
                     GlobalSecondaryIndexes=[gsi("gsi", "g")])
    before = ddb.describe_table(TableName=name)["Table"]
    assert before["GlobalSecondaryIndexes"][0]["IndexName"] == "gsi"
    assert before["LocalSecondaryIndexes"][0]["IndexName"] == "by_g"
    desc = ddb.delete_table(TableName=name)["TableDescription"]
    assert desc["TableStatus"] == "DELETING"
    assert "GlobalSecondaryIndexes" not in desc and "LocalSecondaryIndexes" not in desc
