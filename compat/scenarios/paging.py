"""Query and Scan: key conditions, order, Limit, paging, Select, segments."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario
from compat.scenarios._util import pick, sorted_items


def _seeded(c: Ctx, n: int = 10) -> str:
    name = c.table(range=("sk", "N"))
    for i in range(n):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"N": str(i)}, "odd": {"BOOL": i % 2 == 1}})
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "other"}, "sk": {"N": "1"}})
    return name


def _sks(r: dict[str, Any]) -> list[str]:
    return [i["sk"]["N"] for i in r.get("Items", [])]


def _query(c: Ctx, name: str, **kw: Any) -> Any:
    args = {"TableName": name, "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}}}
    args["ExpressionAttributeValues"] = {**args["ExpressionAttributeValues"], **kw.pop("values", {})}
    if "KeyConditionExpression" in kw:
        args["KeyConditionExpression"] = kw.pop("KeyConditionExpression")
    r = c.call("query", **args, **kw)
    if "error" in r:
        return r
    return {"sks": _sks(r), **pick(r, "Count", "ScannedCount", "LastEvaluatedKey")}


def _pages(c: Ctx, op: str, **kw: Any) -> list[dict[str, Any]]:
    pages, start = [], None
    for _ in range(20):
        args = dict(kw)
        if start:
            args["ExclusiveStartKey"] = start
        r = getattr(c.ddb, op)(**args)
        pages.append({"n": r["Count"], "scanned": r["ScannedCount"], "last": r.get("LastEvaluatedKey")})
        start = r.get("LastEvaluatedKey")
        if not start:
            break
    return pages


@scenario("paging")
def query_order(c: Ctx) -> Any:
    """Query forward and backward (ScanIndexForward false)."""
    name = _seeded(c)
    return [_query(c, name), _query(c, name, ScanIndexForward=False)]


@scenario("paging")
def query_sort_key_conditions(c: Ctx) -> Any:
    """Key conditions on the sort key: <, <=, >, >=, BETWEEN, =."""
    name = _seeded(c)
    out = {}
    for cond in ("sk < :a", "sk <= :a", "sk > :a", "sk >= :a", "sk = :a", "sk BETWEEN :a AND :b"):
        values = {":a": {"N": "3"}, ":b": {"N": "6"}} if ":b" in cond else {":a": {"N": "3"}}
        out[cond] = _query(c, name, KeyConditionExpression=f"pk = :p AND {cond}", values=values)
        out[cond] = out[cond].get("sks", out[cond])
    return out


@scenario("paging")
def query_begins_with(c: Ctx) -> Any:
    """begins_with on a string sort key."""
    name = c.table(range=("sk", "S"))
    for v in ("a#1", "a#2", "b#1", "a"):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": v}})
    r = c.ddb.query(TableName=name, KeyConditionExpression="pk = :p AND begins_with(sk, :a)",
                    ExpressionAttributeValues={":p": {"S": "p"}, ":a": {"S": "a#"}})
    return [i["sk"]["S"] for i in r["Items"]]


@scenario("paging")
def query_limit(c: Ctx) -> Any:
    """Query with Limit 3: Count, LastEvaluatedKey."""
    return _query(c, _seeded(c), Limit=3)


@scenario("paging")
def query_limit_exact(c: Ctx) -> Any:
    """Query with Limit equal to the number of matching items."""
    return _query(c, _seeded(c), Limit=10)


@scenario("paging")
def query_paging_loop(c: Ctx) -> Any:
    """Query with Limit 4 followed page after page."""
    name = _seeded(c)
    return _pages(c, "query", TableName=name, Limit=4, KeyConditionExpression="pk = :p",
                  ExpressionAttributeValues={":p": {"S": "p"}})


@scenario("paging")
def query_limit_with_filter(c: Ctx) -> Any:
    """Limit counts items evaluated before the FilterExpression."""
    return _query(c, _seeded(c), Limit=4, FilterExpression="odd = :t", values={":t": {"BOOL": True}})


@scenario("paging")
def query_select_count(c: Ctx) -> Any:
    """Select COUNT returns counts and no Items."""
    name = _seeded(c)
    r = c.ddb.query(TableName=name, Select="COUNT", KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "p"}})
    return pick(r, "Count", "ScannedCount", "Items")


@scenario("paging")
def query_exclusive_start_key(c: Ctx) -> Any:
    """Query from a hand-made ExclusiveStartKey, backwards."""
    name = _seeded(c)
    return _query(c, name, ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"N": "5"}}, ScanIndexForward=False)


@scenario("paging")
def query_key_condition_on_non_key(c: Ctx) -> Any:
    """A KeyConditionExpression naming a non-key attribute."""
    name = _seeded(c)
    return _query(c, name, KeyConditionExpression="pk = :p AND #o = :t", values={":t": {"N": "1"}},
                  ExpressionAttributeNames={"#o": "other"})


@scenario("paging")
def query_without_hash_condition(c: Ctx) -> Any:
    """A KeyConditionExpression on the sort key only."""
    name = _seeded(c)
    return c.call("query", TableName=name, KeyConditionExpression="sk > :a", ExpressionAttributeValues={":a": {"N": "1"}})


@scenario("paging")
def query_hash_inequality(c: Ctx) -> Any:
    """A KeyConditionExpression with < on the partition key."""
    name = _seeded(c)
    return c.call("query", TableName=name, KeyConditionExpression="pk < :p", ExpressionAttributeValues={":p": {"S": "p"}})


@scenario("paging")
def query_limit_zero(c: Ctx) -> Any:
    """Query with Limit 0 (sent raw, past boto3's checks)."""
    name = _seeded(c)
    c.override("Query", Limit=0)
    return _query(c, name, Limit=1)


@scenario("paging")
def scan_all(c: Ctx) -> Any:
    """Scan of a whole small table: Count, ScannedCount, items."""
    name = _seeded(c, 4)
    r = c.ddb.scan(TableName=name)
    return {"Count": r["Count"], "ScannedCount": r["ScannedCount"], "Items": sorted_items(r["Items"]),
            "LastEvaluatedKey": r.get("LastEvaluatedKey")}


@scenario("paging")
def scan_paging_loop(c: Ctx) -> Any:
    """Scan with Limit 3 page after page: page sizes and the total read."""
    name = _seeded(c)
    pages = _pages(c, "scan", TableName=name, Limit=3)
    return {"sizes": [p["n"] for p in pages], "more": [p["last"] is not None for p in pages]}


@scenario("paging")
def scan_limit_with_filter(c: Ctx) -> Any:
    """Scan with Limit 5 and a filter: ScannedCount is the Limit."""
    name = _seeded(c)
    r = c.ddb.scan(TableName=name, Limit=5, FilterExpression="odd = :t", ExpressionAttributeValues={":t": {"BOOL": True}})
    return {"ScannedCount": r["ScannedCount"], "more": "LastEvaluatedKey" in r}


@scenario("paging")
def scan_segments(c: Ctx) -> Any:
    """Parallel Scan with TotalSegments 3: the segments together hold every item once."""
    name = _seeded(c)
    seen: list[str] = []
    for seg in range(3):
        r = c.ddb.scan(TableName=name, Segment=seg, TotalSegments=3)
        seen += [f'{i["pk"]["S"]}/{i["sk"]["N"]}' for i in r["Items"]]
    return {"count": len(seen), "unique": len(set(seen))}


@scenario("paging")
def scan_segment_out_of_range(c: Ctx) -> Any:
    """Scan with Segment equal to TotalSegments."""
    name = _seeded(c, 1)
    return c.call("scan", TableName=name, Segment=2, TotalSegments=2)


@scenario("paging")
def scan_select_specific(c: Ctx) -> Any:
    """Scan with a ProjectionExpression and Select SPECIFIC_ATTRIBUTES."""
    name = _seeded(c, 2)
    r = c.ddb.scan(TableName=name, Select="SPECIFIC_ATTRIBUTES", ProjectionExpression="sk")
    return sorted_items(r["Items"])


@scenario("paging")
def scan_select_all_projected_on_table(c: Ctx) -> Any:
    """Scan of a table (no index) with Select ALL_PROJECTED_ATTRIBUTES."""
    name = _seeded(c, 1)
    return c.call("scan", TableName=name, Select="ALL_PROJECTED_ATTRIBUTES")


@scenario("paging")
def query_filter_on_key(c: Ctx) -> Any:
    """A FilterExpression naming the sort key."""
    return _query(c, _seeded(c), FilterExpression="sk > :a", values={":a": {"N": "1"}})


@scenario("paging")
def query_number_sort_order(c: Ctx) -> Any:
    """Numeric sort keys order by value: negatives, fractions, exponents."""
    name = c.table(range=("sk", "N"))
    for v in ("25", "-10", "3", "1e-5", "-2.5", "0", "100", "-0.001"):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"N": v}})
    return _query(c, name)["sks"]


@scenario("paging")
def query_binary_sort_order(c: Ctx) -> Any:
    """Binary sort keys order as unsigned bytes."""
    name = c.table(range=("sk", "B"))
    for v in (b"\xff", b"\x00", b"\x7f", b"\x80", b"\x00\x00", b"a"):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"B": v}})
    r = c.ddb.query(TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}})
    return [i["sk"]["B"] for i in r["Items"]]


@scenario("paging")
def query_string_sort_order(c: Ctx) -> Any:
    """String sort keys order by UTF-8 bytes."""
    name = c.table(range=("sk", "S"))
    for v in ("b", "B", "a", "é", "z", "Z", "ab", "\U0001f600", "\uffff"):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": v}})
    r = c.ddb.query(TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}})
    return [i["sk"]["S"] for i in r["Items"]]


@scenario("paging")
def scan_one_megabyte_pages(c: Ctx) -> Any:
    """Scan of 14 items of 100 KB: a page stops at 1 MB of data read."""
    name = c.table()
    c.put(name, *({"pk": {"S": f"k{i:02}"}, "v": {"S": "x" * 100_000}} for i in range(14)))
    pages = _pages(c, "scan", TableName=name, ProjectionExpression="pk")
    return {"pages": len(pages), "items": sum(p["n"] for p in pages)}


@scenario("paging")
def scan_exclusive_start_key(c: Ctx) -> Any:
    """Scan resumed from the LastEvaluatedKey of a first page of 2."""
    name = _seeded(c, 5)
    first = c.ddb.scan(TableName=name, Limit=2)
    rest = c.ddb.scan(TableName=name, ExclusiveStartKey=first["LastEvaluatedKey"])
    keys = [f'{i["pk"]["S"]}/{i["sk"]["N"]}' for i in first["Items"] + rest["Items"]]
    return {"total": len(keys), "unique": len(set(keys)), "rest_more": "LastEvaluatedKey" in rest}


@scenario("paging")
def query_begins_with_on_number(c: Ctx) -> Any:
    """begins_with on a numeric sort key."""
    return _query(c, _seeded(c), KeyConditionExpression="pk = :p AND begins_with(sk, :a)", values={":a": {"N": "1"}})


@scenario("paging")
def query_bad_start_key(c: Ctx) -> Any:
    """Query with an ExclusiveStartKey missing the sort key."""
    return _query(c, _seeded(c), ExclusiveStartKey={"pk": {"S": "p"}})


@scenario("paging")
def query_specific_without_projection(c: Ctx) -> Any:
    """Select SPECIFIC_ATTRIBUTES with no ProjectionExpression."""
    return _query(c, _seeded(c), Select="SPECIFIC_ATTRIBUTES")


@scenario("paging")
def scan_segment_without_total(c: Ctx) -> Any:
    """Scan with Segment and no TotalSegments."""
    name = _seeded(c, 1)
    return c.call("scan", TableName=name, Segment=0)


@scenario("paging")
def scan_filter_count(c: Ctx) -> Any:
    """Scan with a FilterExpression and Select COUNT."""
    name = _seeded(c)
    r = c.ddb.scan(TableName=name, Select="COUNT", FilterExpression="odd = :t", ExpressionAttributeValues={":t": {"BOOL": True}})
    return pick(r, "Count", "ScannedCount", "Items")


@scenario("paging")
def lsi_query_limit_key(c: Ctx) -> Any:
    """An LSI Query stopped by Limit: LastEvaluatedKey holds the table and index keys."""
    name = c.table(range=("sk", "S"), attrs=(("l", "N"),), LocalSecondaryIndexes=[{
        "IndexName": "by-l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
        "Projection": {"ProjectionType": "ALL"}}])
    for i, sk in enumerate("cab"):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": sk}, "l": {"N": str(i)}})
    r = c.ddb.query(TableName=name, IndexName="by-l", KeyConditionExpression="pk = :p", Limit=2,
                    ExpressionAttributeValues={":p": {"S": "p"}}, ScanIndexForward=False)
    return pick(r, "Items", "LastEvaluatedKey")
