"""PutItem, GetItem, DeleteItem, UpdateItem."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations import index_specs
from dynemu.api.operations.common import render_consumed, return_values
from dynemu.api.operations.exprs import bind_to, compile_expressions
from dynemu.api.protocol import Context
from dynemu.engine import reads, values
from dynemu.engine.expressions import Compiled, Update
from dynemu.engine.expressions.parser import parse_update
from dynemu.engine.expressions.update import UpdateTemplate
from dynemu.engine.reads import KeyRead
from dynemu.engine.schema import Item
from dynemu.engine.table import Condition, Mutation, Table
from dynemu.engine.writes import Write, WriteResult

RV_PUT_DELETE = ("NONE", "ALL_OLD")
RV_UPDATE = ("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW")


def _failure_item(body: dict[str, Any]) -> bool:
    return body.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"


def _keyed(ctx: Context, body: dict[str, Any], operation: str) -> tuple[Item, Compiled, Table, bytes]:
    """What GetItem and DeleteItem start with (UpdateItem too, inline), in the service's order:
    the Key's values, the expressions (errors before the table lookup), the table, the storage
    key."""
    key_attrs = values.validate_item(body["Key"])
    compiled = compile_expressions(operation, body)
    table = ctx.db.get(body["TableName"])
    compiled = bind_to(compiled, table)
    return key_attrs, compiled, table, table.key_for_request(key_attrs)


# --- UpdateItem: the value-independent part of an UpdateExpression, cached ------------------

# With any of these the request takes the general path (conditions depend on the values).
_NOT_UPDATE_ONLY = frozenset(("ConditionExpression", "AttributeUpdates", "Expected", "ConditionalOperator"))
_UPDATE_CACHE_SIZE = 1024
# (text, names, (value key, value type)...) -> the expression's template, for requests whose
# compile succeeded: every check of an UpdateExpression depends only on these (the value
# placeholders' types, never their contents), except each value's own rules.
_update_cache: dict[tuple[Any, ...], UpdateTemplate] = {}


def _cached_update(body: dict[str, Any]) -> Update | None:
    """What ``compile_expressions("UpdateItem", body)`` gives, without its checks, when a
    request of the same text, names and value types passed them; None when the request
    needs the general path (a first request, a condition, legacy parameters, a bad value:
    the general path reports its errors in the service's order)."""
    text = body.get("UpdateExpression")
    if type(text) is not str or not (
        _NOT_UPDATE_ONLY.isdisjoint(body) or all(body.get(p) is None for p in _NOT_UPDATE_ONLY)
    ):
        return None
    names = body.get("ExpressionAttributeNames")
    raw = body.get("ExpressionAttributeValues")
    checked = _checked_values(raw) if raw is not None else {}
    if checked is None or type(names) not in (dict, type(None)):
        return None
    key = (
        text,
        None if names is None else tuple(names.items()),
        None if raw is None else tuple([(k, next(iter(v))) for k, v in checked.items()]),
    )
    template = _update_cache.get(key)
    if template is None:
        compile_expressions("UpdateItem", body)  # raises the request's first error
        if len(_update_cache) >= _UPDATE_CACHE_SIZE:
            _update_cache.clear()
        template = _update_cache[key] = UpdateTemplate(parse_update(text), names or {})
    return template.bind(checked)


def _checked_values(raw: Any) -> dict[str, Any] | None:
    """ExpressionAttributeValues with each value checked and normalised, or None when one
    is empty or breaks a value rule (the general path then gives the service's error)."""
    if type(raw) is not values.CheckedItem or not raw:
        return None
    if not raw.pending:  # every value already passed the value rules (api.validation)
        return raw
    out = dict(raw)
    for name in raw.pending:
        try:
            out[name] = values.validate_value(raw[name])
        except errors.DynamoError:
            return None
    return out


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
    rv = return_values(body, RV_PUT_DELETE)
    item, size = values.validate_item_sized(body["Item"])
    values.check_item_size(size)  # before the table is looked up, as the service does
    compiled = compile_expressions("PutItem", body)
    table = ctx.db.get(body["TableName"])
    compiled = bind_to(compiled, table)
    write = Write.put(
        table, item, size=size, condition=_condition(compiled), return_old_on_failure=_failure_item(body),
        table_name=body["TableName"],
    )  # fmt: skip
    result, m = _execute(ctx, body, write)
    return _write_response(body, result, m.old if rv == "ALL_OLD" else None)


def delete_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    rv = return_values(body, RV_PUT_DELETE)
    key_attrs, compiled, table, key = _keyed(ctx, body, "DeleteItem")
    write = Write(
        "Delete", table, key, key_attrs, condition=_condition(compiled), return_old_on_failure=_failure_item(body),
        table_name=body["TableName"],
    )  # fmt: skip
    result, m = _execute(ctx, body, write)
    return _write_response(body, result, m.old if rv == "ALL_OLD" else None)


def update_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    rv = return_values(body, RV_UPDATE)
    # _keyed's steps, in its order: the Key's values, the expressions, the table, the key
    key_attrs = values.validate_item(body["Key"])
    cached = _cached_update(body) if "UpdateExpression" in body else None
    if cached is None:
        compiled = compile_expressions("UpdateItem", body)
        table = ctx.db.get(body["TableName"])
        compiled = bind_to(compiled, table)
        update, condition, key = compiled.update, _condition(compiled), table.key_for_request(key_attrs)
    else:  # the cached expression needs only the key-attribute rule
        table = ctx.db.get(body["TableName"])
        spec = table.spec
        if spec.hash_key.name in cached.top_names or (
            spec.range_key is not None and spec.range_key.name in cached.top_names
        ):
            Compiled(update=cached).bind(spec.key_schema)  # raises the service's error
        update, condition, key = cached, None, table.key_for_request(key_attrs)
    write = Write(
        "Update", table, key, key_attrs, update=update, condition=condition,
        return_old_on_failure=_failure_item(body), table_name=body["TableName"],
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
        attributes = update.touched_new.apply(m.new)  # the paths given a new value
    return _write_response(body, result, attributes)


def get_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    key_attrs, compiled, table, key = _keyed(ctx, body, "GetItem")
    mode = body.get("ReturnConsumedCapacity")
    read = KeyRead(table, key, key_attrs, body["TableName"], bool(body.get("ConsistentRead")))
    item, cc = reads.get_item(ctx.db, read, consumed=mode == "TOTAL" or mode == "INDEXES")
    out: dict[str, Any] = {}
    if item is not None:
        out["Item"] = compiled.projection.apply(item) if compiled.projection is not None else item
    if cc is not None:
        out["ConsumedCapacity"] = render_consumed(cc, mode)  # type: ignore[arg-type]
    return out


OPERATIONS = {
    "PutItem": put_item,
    "GetItem": get_item,
    "DeleteItem": delete_item,
    "UpdateItem": update_item,
}
