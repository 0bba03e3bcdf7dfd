"""PutItem, GetItem, DeleteItem, UpdateItem."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from dynemu import errors
from dynemu.api.operations import index_specs
from dynemu.api.operations.common import render_consumed, return_values
from dynemu.api.operations.exprs import bind_to, compile_expressions
from dynemu.api.protocol import Context
from dynemu.engine import reads, values
from dynemu.engine.expressions import Compiled, Update
from dynemu.engine.reads import KeyRead
from dynemu.engine.schema import Item
from dynemu.engine.table import Condition, Mutation, Table
from dynemu.engine.writes import Write, WriteResult

T = TypeVar("T")
RV_PUT_DELETE = ("NONE", "ALL_OLD")
RV_UPDATE = ("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW")


def _failure_item(body: dict[str, Any]) -> bool:
    return body.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"


def _keyed(ctx: Context, body: dict[str, Any], operation: str, rv: tuple[str, ...] | None) -> tuple[str, Item, Compiled, Table, bytes]:
    """What GetItem, DeleteItem and UpdateItem start with, in the service's order: the
    request's checks (ReturnValues, the Key's values, the expressions: errors before the table
    lookup), the table, the storage key."""

    def checks() -> tuple[str, Item, Compiled]:
        returned = return_values(body, rv) if rv is not None else "NONE"
        return returned, values.validate_item(body["Key"]), compile_expressions(operation, body)

    returned, key_attrs, compiled = _checked(body, checks) if rv is not None else values.nesting_last(checks)
    table = ctx.db.get(body["TableName"])
    compiled = bind_to(compiled, table)
    return returned, key_attrs, compiled, table, table.key_for_request(key_attrs)


def _checked(body: dict[str, Any], checks: Callable[[], T]) -> T:
    """The request checks of PutItem, UpdateItem or DeleteItem: the nesting rule last, and a
    request check's error in the "1 validation error detected: " envelope, unless a value
    nests too deep (then the service answers bare; docs/rules.md, "The validation envelope")."""
    try:
        return values.nesting_last(checks)
    except errors.DynamoError as e:
        if e.envelope and not _too_deep(body):
            raise errors.enveloped(e) from None
        raise


def _too_deep(body: dict[str, Any]) -> bool:
    """Whether a value of the request nests past the limit (only on the error path)."""
    found: list[Any] = []
    for member in ("Item", "Key", "ExpressionAttributeValues"):
        m = body.get(member)
        if type(m) is dict or type(m) is values.MeasuredMap:
            found.extend(m.values())
    for member in ("Expected", "AttributeUpdates"):
        for cond in (body.get(member) or {}).values():
            if type(cond) is dict:
                found.append(cond.get("Value"))
                found.extend(cond.get("AttributeValueList") or ())
    return any(values.nested_too_deep(v) for v in found)


def _write_response(body: dict[str, Any], result: WriteResult, attributes: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if attributes:
        out["Attributes"] = attributes
    mode = body.get("ReturnConsumedCapacity")
    if result.ledger is not None and mode is not None:
        # the table's units plus its indexes' (INDEXES: per index; engine.indexes.charge)
        ((cc),) = result.ledger.tables.values()
        out["ConsumedCapacity"] = render_consumed(cc, mode)
    m = result.done[0].mutation
    assert m is not None
    metrics = index_specs.item_collection_metrics(body, m.table, m)
    if metrics is not None:
        out["ItemCollectionMetrics"] = metrics
    return out


def _execute(ctx: Context, body: dict[str, Any], write: Write) -> tuple[WriteResult, Mutation]:
    """One item write through the write executor: a throttle is the request's error."""
    mode = body.get("ReturnConsumedCapacity")
    result = ctx.db.execute([write], on_throttle="raise", consumed=mode == "TOTAL" or mode == "INDEXES")
    m = write.mutation
    assert m is not None
    return result, m


def _condition(compiled: Compiled) -> Condition | None:
    return compiled.condition.evaluate if compiled.condition is not None else None


def put_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    def checks() -> tuple[str, Item, int, Compiled]:
        rv = return_values(body, RV_PUT_DELETE)
        item, size = values.validate_item_sized(body["Item"])
        values.check_item_size(size)  # before the table is looked up, as the service does
        return rv, item, size, compile_expressions("PutItem", body)

    rv, item, size, compiled = _checked(body, checks)
    table = ctx.db.get(body["TableName"])
    compiled = bind_to(compiled, table)
    write = Write.put(
        table, item, size=size, condition=_condition(compiled), return_old_on_failure=_failure_item(body),
        table_name=body["TableName"],
    )  # fmt: skip
    result, m = _execute(ctx, body, write)
    return _write_response(body, result, m.old if rv == "ALL_OLD" else None)


def delete_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    rv, key_attrs, compiled, table, key = _keyed(ctx, body, "DeleteItem", RV_PUT_DELETE)
    write = Write(
        "Delete", table, key, key_attrs, condition=_condition(compiled), return_old_on_failure=_failure_item(body),
        table_name=body["TableName"],
    )  # fmt: skip
    result, m = _execute(ctx, body, write)
    return _write_response(body, result, m.old if rv == "ALL_OLD" else None)


def update_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    rv, key_attrs, compiled, table, key = _keyed(ctx, body, "UpdateItem", RV_UPDATE)
    update, condition = compiled.update, _condition(compiled)
    write = Write(
        "Update", table, key, key_attrs, update=update, condition=condition,
        return_old_on_failure=_failure_item(body), table_name=body["TableName"],
        charged=isinstance(update, Update),  # an UpdateExpression (docs/rules.md, "Item size by surface")
    )  # fmt: skip
    result, m = _execute(ctx, body, write)
    attributes: dict[str, Any] | None = None
    if rv == "ALL_OLD":
        attributes = m.old
    elif rv == "ALL_NEW":
        attributes = m.new
    elif update is not None and rv == "UPDATED_OLD":
        attributes = update.touched.apply(m.old)  # the paths the update touched
    elif update is not None and rv == "UPDATED_NEW":
        attributes = update.touched_new.apply(m.new)  # the same paths, read in the new item
    return _write_response(body, result, attributes)


def get_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    _, key_attrs, compiled, table, key = _keyed(ctx, body, "GetItem", None)
    mode = body.get("ReturnConsumedCapacity")
    read = KeyRead(table, key, key_attrs, body["TableName"], bool(body.get("ConsistentRead")))
    projection = compiled.projection
    result = reads.read_keys(ctx.db, [read], consumed=mode == "TOTAL" or mode == "INDEXES", as_stored=projection is None)
    item = result.items[0]
    out: dict[str, Any] = {}
    if item is not None:
        out["Item"] = projection.apply(item) if projection is not None else item
    if result.ledger is not None:
        out["ConsumedCapacity"] = render_consumed(result.ledger.for_table(read.table_name), mode)  # type: ignore[arg-type]
    return out


OPERATIONS = {
    "PutItem": put_item,
    "GetItem": get_item,
    "DeleteItem": delete_item,
    "UpdateItem": update_item,
}
