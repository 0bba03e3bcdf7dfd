"""Query and Scan."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations.exprs import bind_to, compile_expressions
from dynemu.api.protocol import Context
from dynemu.engine import capacity, values
from dynemu.engine.capacity import ConsumedCapacity
from dynemu.engine.expressions import Compiled
from dynemu.engine.reads import Page, read_page, segment_bounds
from dynemu.engine.table import Table
from dynemu.storage import keyspace


def _select(body: dict[str, Any], compiled: Compiled, operation: str) -> str:
    """Select, checked against the projection parameters as the service checks it."""
    select = body.get("Select")
    projected = compiled.projection is not None
    which = "ProjectionExpression" if "ProjectionExpression" in body else "AttributesToGet"
    if select is None:
        return "SPECIFIC_ATTRIBUTES" if projected else "ALL_ATTRIBUTES"
    if select == "ALL_ATTRIBUTES" and projected:
        raise errors.validation(f"Cannot specify the {which} when choosing to get ALL_ATTRIBUTES")
    if select == "ALL_PROJECTED_ATTRIBUTES":
        if projected:
            raise errors.validation(f"Cannot specify the {which} when choosing to get ALL_PROJECTED_ATTRIBUTES")
        if body.get("IndexName") is None:
            verb = "Querying" if operation == "Query" else "Scanning"
            raise errors.validation(f"ALL_PROJECTED_ATTRIBUTES can be used only when {verb} using an IndexName")
    if select == "COUNT" and projected:
        raise errors.validation(f"Cannot specify the {which} when choosing to get only the Count")
    if select == "SPECIFIC_ATTRIBUTES" and not projected:
        raise errors.validation(
            "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"
        )
    return select


def _no_indexes(table: Table, body: dict[str, Any]) -> None:
    index = body.get("IndexName")
    if index is not None:
        raise errors.validation(f"The table does not have the specified index: {index}")


def _start_key(table: Table, body: dict[str, Any], invalid: str) -> bytes | None:
    esk = body.get("ExclusiveStartKey")
    if esk is None:
        return None
    try:
        return table.key_for_request(values.validate_item(esk))
    except errors.DynamoError as err:
        if err.type_name != "ValidationException":
            raise
        raise errors.validation(invalid) from None


def _respond(body: dict[str, Any], table: Table, page: Page, select: str, compiled: Compiled) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if select != "COUNT":
        projection = compiled.projection
        out["Items"] = [projection.apply(i) for i in page.items] if projection is not None else page.items
    out["Count"] = len(page.items)
    out["ScannedCount"] = page.scanned
    if page.last_key is not None:
        out["LastEvaluatedKey"] = page.last_key
    mode = body.get("ReturnConsumedCapacity")
    if mode == "TOTAL" or mode == "INDEXES":
        # Query and Scan: the sizes of the items read, summed and rounded up to 4 KB once.
        cc = ConsumedCapacity(body["TableName"])
        cc.add_read(capacity.query_read_units_h(page.read_bytes, bool(body.get("ConsistentRead"))))
        out["ConsumedCapacity"] = cc.render(mode)
    return out


def query(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    compiled = compile_expressions("Query", body)
    select = _select(body, compiled, "Query")
    table = ctx.db.get(body["TableName"])
    _no_indexes(table, body)
    compiled = bind_to(compiled, table)
    kc = compiled.key_condition
    if kc is None:
        raise errors.validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
    tid = table.spec.table_id
    pk = kc.partition_value
    if kc.sort is None:
        start = keyspace.partition_prefix(tid, pk)
        stop = keyspace.prefix_end(start)
    else:
        start, stop = keyspace.sort_key_range(tid, pk, kc.sort.op, kc.sort.values)
    after = _start_key(table, body, "The provided starting key is invalid")
    if after is not None and not after.startswith(keyspace.partition_prefix(tid, pk)):
        raise errors.validation("The provided starting key is outside query boundaries based on provided condition")
    keep = compiled.filter.evaluate if compiled.filter is not None else None
    page = read_page(
        table, start, stop, reverse=body.get("ScanIndexForward") is False, limit=body.get("Limit"),
        after=after, keep=keep,
    )
    return _respond(body, table, page, select, compiled)


def scan(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    segment, total = body.get("Segment"), body.get("TotalSegments")
    if segment is not None and total is None:
        raise errors.validation(
            "The TotalSegments parameter is required but was not present in the request when Segment parameter "
            "is present"
        )
    if total is not None:
        if segment is None:
            raise errors.validation(
                "The Segment parameter is required but was not present in the request when parameter "
                "TotalSegments is present"
            )
        if segment >= total:
            raise errors.validation(
                "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
                f"Segment: {segment} is not less than TotalSegments: {total}"
            )
    compiled = compile_expressions("Scan", body)
    select = _select(body, compiled, "Scan")
    table = ctx.db.get(body["TableName"])
    _no_indexes(table, body)
    tid = table.spec.table_id
    if total is None:
        start = keyspace.items_prefix(tid)
        stop = keyspace.prefix_end(start)
    else:
        start, stop = segment_bounds(tid, segment, total)
    after = _start_key(
        table, body, "The provided starting key is invalid: The provided key element does not match the schema"
    )
    if after is not None and total is not None and not (start <= after < stop):
        raise errors.validation(
            "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with "
            f"correct Segment. TotalSegments: {total} Segment: {segment}"
        )
    keep = compiled.filter.evaluate if compiled.filter is not None else None
    page = read_page(table, start, stop, limit=body.get("Limit"), after=after, keep=keep)
    return _respond(body, table, page, select, compiled)


OPERATIONS = {"Query": query, "Scan": scan}
