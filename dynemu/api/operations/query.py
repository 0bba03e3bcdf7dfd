"""Query and Scan."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations.common import render_consumed
from dynemu.api.operations.exprs import bind_to, compile_expressions
from dynemu.api.protocol import Context
from dynemu.engine import reads, values
from dynemu.engine.expressions import Compiled


def _select(body: dict[str, Any], compiled: Compiled, operation: str) -> str:
    """Select, checked against the projection parameters as the service checks it."""
    select = body.get("Select")
    projected = compiled.projection is not None
    which = "ProjectionExpression" if "ProjectionExpression" in body else "AttributesToGet"
    if select is None:
        return "SPECIFIC_ATTRIBUTES" if projected else "ALL_ATTRIBUTES"
    if projected and select in ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "COUNT"):
        raise errors.validation(errors.msg_select_conflict(which, select))
    if select == "ALL_PROJECTED_ATTRIBUTES" and body.get("IndexName") is None:
        raise errors.validation(errors.msg_all_projected_needs_index(operation))
    if select == "SPECIFIC_ATTRIBUTES" and not projected:
        raise errors.validation(errors.MSG_SPECIFIC_NEEDS_PROJECTION)
    return select


# --- Query and Scan: parse, run through the read executor, render ----------------------------


def _run(ctx: Context, body: dict[str, Any], operation: str, **where: Any) -> dict[str, Any]:
    """Everything Query and Scan share once their own parameters are checked: the table,
    the index, the key schema the expressions bind to, one page from the read executor."""
    def checks() -> tuple[Compiled, str]:
        compiled = compile_expressions(operation, body)
        return compiled, _select(body, compiled, operation)

    compiled, select = values.nesting_last(checks)  # a value nested too deep last (docs/rules.md)
    table = ctx.db.get(body["TableName"])
    consistent = bool(body.get("ConsistentRead"))
    name = body.get("IndexName")
    ix = reads.find_index(table, name, consistent=consistent) if name is not None else None
    # key conditions and the filter are checked against the source's key (a multi-attribute
    # key's rules: KeyCondition._bind_multi)
    compiled = compiled.bind(ix.key_schema) if ix is not None else bind_to(compiled, table)
    mode = body.get("ReturnConsumedCapacity")
    result = reads.read_range(
        ctx.db,
        reads.RangeRead(
            table, body["TableName"], ix, compiled.key_condition if operation == "Query" else None,
            start_key=body.get("ExclusiveStartKey"), limit=body.get("Limit"),
            reverse=operation == "Query" and body.get("ScanIndexForward") is False, consistent=consistent, filter=compiled.filter,
            projection=compiled.projection, select=body.get("Select"), consumed=mode == "TOTAL" or mode == "INDEXES",
            as_stored=compiled.projection is None,
            **where,
        ),
    )  # fmt: skip
    return _respond(body, result, select, compiled)


def _respond(body: dict[str, Any], result: reads.RangeResult, select: str, compiled: Compiled) -> dict[str, Any]:
    page = result.page
    out: dict[str, Any] = {}
    if select != "COUNT":
        projection = compiled.projection
        out["Items"] = [projection.apply(i) for i in page.items] if projection is not None else page.items
    out["Count"] = len(page.items)
    out["ScannedCount"] = page.scanned
    if page.last_key is not None:
        out["LastEvaluatedKey"] = page.last_key
    if result.consumed is not None:
        out["ConsumedCapacity"] = render_consumed(result.consumed, body["ReturnConsumedCapacity"])
    return out


def query(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    return _run(ctx, body, "Query")


def scan(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    segment, total = body.get("Segment"), body.get("TotalSegments")
    if segment is not None and total is None:
        raise errors.validation(errors.MSG_SEGMENT_WITHOUT_TOTAL)
    if total is not None:
        if segment is None:
            raise errors.validation(errors.MSG_TOTAL_WITHOUT_SEGMENT)
        if segment >= total:
            raise errors.validation(errors.msg_segment_out_of_range(segment, total))
    return _run(ctx, body, "Scan", segment=segment, total_segments=total)


OPERATIONS = {"Query": query, "Scan": scan}
