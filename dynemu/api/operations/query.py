"""Query and Scan."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dynemu import errors
from dynemu.api.operations.exprs import bind_to, compile_expressions
from dynemu.api.protocol import Context
from dynemu.engine import capacity, consistency, indexes, values
from dynemu.engine.capacity import ConsumedCapacity
from dynemu.engine.expressions import Compiled
from dynemu.engine.indexes import Index
from dynemu.engine.reads import Page, read_page, segment_bounds
from dynemu.engine.table import Table
from dynemu.storage import keyspace
from dynemu.storage.encoding import encode_key_value

Fetch = Callable[[dict[str, Any]], tuple[dict[str, Any] | None, int]]


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


# --- reading an index -------------------------------------------------------------------


def _index(table: Table, body: dict[str, Any]) -> Index | None:
    """The index named by IndexName, with the checks DynamoDB makes first (dynalite's
    actions/query.js and scan.js; the backfill message: aws-cloudformation/cloudformation-
    coverage-roadmap#1075, quoting the service)."""
    name = body.get("IndexName")
    if name is None:
        return None
    ix = indexes.find(table, name)
    if ix is None:
        raise errors.validation(f"The table does not have the specified index: {name}")
    if ix.spec.status == "CREATING":
        raise errors.validation("Cannot read from backfilling global secondary index")
    if ix.is_global and body.get("ConsistentRead"):
        raise errors.validation("Consistent reads are not supported on global secondary indexes")
    return ix


def _index_fetch(body: dict[str, Any], table: Table, ix: Index, compiled: Compiled) -> Fetch | None:
    """How an index read gets attributes its projection lacks: an LSI fetches the table
    item (LSI.md, "Read capacity units"); a GSI refuses them with the service's messages
    (dynalite's probes; localstack/localstack#478 and sensedeep/dynamodb-onetable#377 quote
    the two "does not project" texts)."""
    projected = ix.projected
    if projected is None:
        return None
    projection = compiled.projection
    needs = body.get("Select") == "ALL_ATTRIBUTES" or (
        projection is not None and not projection.top_names <= projected
    )
    if ix.is_global and needs:
        if body.get("Select") == "ALL_ATTRIBUTES":
            raise errors.invalid_parameter(
                f"Select type ALL_ATTRIBUTES is not supported for global secondary index {ix.name} because its "
                "projection type is not ALL"
            )
        missing = sorted(projection.top_names - projected)  # type: ignore[union-attr]
        raise errors.invalid_parameter(f"Global secondary index {ix.name} does not project [{', '.join(missing)}]")
    if not needs:
        if compiled.filter is not None and not compiled.filter.names <= projected:
            missing = sorted(compiled.filter.names - projected)
            raise errors.invalid_parameter(
                f"Secondary index {ix.name} does not project one or more filter attributes: [{', '.join(missing)}]"
            )
        return None
    tid = table.spec.table_id
    hk = table.spec.hash_key.name
    rk = table.spec.range_key.name if table.spec.range_key is not None else None

    def fetch(entry: dict[str, Any]) -> tuple[dict[str, Any] | None, int]:
        return table.read(keyspace.item_key(tid, entry[hk], entry[rk] if rk else None))

    return fetch


def _index_start_key(table: Table, ix: Index, body: dict[str, Any], invalid: str) -> bytes | None:
    """ExclusiveStartKey of an index read: exactly the index and table key attributes
    (the LastEvaluatedKey an index page returns), as the storage key of that entry."""
    esk = body.get("ExclusiveStartKey")
    if esk is None:
        return None
    try:
        esk = values.validate_item(esk)
    except errors.DynamoError as err:
        if err.type_name != "ValidationException":
            raise
        raise errors.validation(invalid) from None
    types = {a.name: a.type for a in table.spec.attribute_definitions}
    if len(esk) != len(ix.lek_names) or any(types.get(n) not in (esk.get(n) or {}) for n in ix.lek_names):
        raise errors.validation(invalid)
    spec = table.spec
    suffix = encode_key_value(esk[spec.hash_key.name])
    if spec.range_key is not None:
        suffix += encode_key_value(esk[spec.range_key.name])
    key = ix.entry_key(esk, suffix)
    if key is None:
        raise errors.validation(invalid)
    return key


def _query_index(
    body: dict[str, Any], table: Table, ix: Index, compiled: Compiled, select: str, now: float
) -> dict[str, Any]:
    # key conditions and the filter are checked against the index's key (a multi-attribute
    # key's rules: KeyCondition._bind_multi)
    compiled = compiled.bind(ix.key_schema)
    kc = compiled.key_condition
    if kc is None:
        raise errors.validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
    partition = ix.partition_prefix(kc.partition_values)
    prefix = partition + b"".join(encode_key_value(v) for v in kc.sort_prefix)
    if kc.sort is None:
        start, stop = prefix, keyspace.prefix_end(prefix)
    else:
        start, stop = keyspace.condition_range(prefix, kc.sort.op, kc.sort.values)
    after = _index_start_key(table, ix, body, "The provided starting key is invalid")
    if after is not None and not after.startswith(partition):
        raise errors.validation("The provided starting key is outside query boundaries based on provided condition")
    fetch = _index_fetch(body, table, ix, compiled)
    keep = compiled.filter.evaluate if compiled.filter is not None else None
    page = _read(
        table, ix, body, now, start, stop, reverse=body.get("ScanIndexForward") is False, limit=body.get("Limit"),
        after=after, keep=keep, key_of=ix.key_of, fetch=fetch,
    )
    return _respond(body, table, page, select, compiled, ix)


def _scan_index(
    body: dict[str, Any], table: Table, ix: Index, compiled: Compiled, select: str, now: float
) -> dict[str, Any]:
    segment, total = body.get("Segment"), body.get("TotalSegments")
    if total is None:
        start, stop = ix.prefix, keyspace.prefix_end(ix.prefix)
    else:
        start, stop = segment_bounds(table.spec.table_id, segment, total, ix.prefix)
    after = _index_start_key(
        table, ix, body, "The provided starting key is invalid: The provided key element does not match the schema"
    )
    _check_segment_start(after, start, stop, segment, total)
    fetch = _index_fetch(body, table, ix, compiled)
    keep = compiled.filter.evaluate if compiled.filter is not None else None
    page = _read(table, ix, body, now, start, stop, limit=body.get("Limit"), after=after, keep=keep,
                 key_of=ix.key_of, fetch=fetch)
    return _respond(body, table, page, select, compiled, ix)


def _read(table: Table, ix: Index | None, body: dict[str, Any], now: float, start: bytes, stop: bytes,
          **kwargs: Any) -> Page:
    """Admit the read on the partition where it starts, read one page, charge what it read:
    the table's capacity for the table and its LSIs (LSI.md), a GSI's own for the GSI."""
    cap = table.capacity
    if ix is None:
        state, skip = cap.state, len(keyspace.items_prefix(table.spec.table_id))
    else:
        state, skip = (cap.index_state(ix, now) if ix.is_global else cap.state), len(ix.prefix)
    suffix = start[skip:]
    p = cap.check_index(state, suffix, now, write=False)
    page = read_page(table, start, stop, **kwargs)
    consistent = bool(body.get("ConsistentRead"))
    if not consistent and ix is None:  # the replication-lag model, when --eventual-lag-ms is set
        page.items = consistency.stale_items(table, page.items, now)
    elif ix is not None and ix.is_global:  # a GSI shows a write only once the lag has passed
        page.items = consistency.lagging_index_page(
            table, ix, page.items, start, stop, reverse=kwargs.get("reverse", False), keep=kwargs.get("keep"), now=now
        )
    units_h = capacity.query_read_units_h(page.read_bytes, consistent)
    if page.fetched:
        units_h += capacity.query_read_units_h(page.fetch_bytes, consistent)
    state.debit(p, units_h / 2, 0.0, now, suffix)
    if now >= state._next_maint:
        state.maintain(now)
    return page


def _check_segment_start(after: bytes | None, start: bytes, stop: bytes, segment: int | None, total: int | None) -> None:
    if after is not None and total is not None and not (start <= after < stop):
        raise errors.validation(
            "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with "
            f"correct Segment. TotalSegments: {total} Segment: {segment}"
        )


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


def _respond(
    body: dict[str, Any], table: Table, page: Page, select: str, compiled: Compiled, index: Index | None = None
) -> dict[str, Any]:
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
        consistent = bool(body.get("ConsistentRead"))
        cc = ConsumedCapacity(body["TableName"])
        units = capacity.query_read_units_h(page.read_bytes, consistent)
        if index is None:
            cc.add_read(units)
        else:  # the index's reads; an LSI's fetches are the table's, each item rounded to 4 KB
            cc.add_index(index.name, is_global=index.is_global, read_h=units)
            if page.fetched:
                cc.add_read(capacity.query_read_units_h(page.fetch_bytes, consistent))
        out["ConsumedCapacity"] = cc.render(mode)
    return out


def query(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    compiled = compile_expressions("Query", body)
    select = _select(body, compiled, "Query")
    table = ctx.db.get(body["TableName"])
    ix = _index(table, body)
    if ix is not None:
        return _query_index(body, table, ix, compiled, select, ctx.db.now())
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
    page = _read(
        table, None, body, ctx.db.now(), start, stop, reverse=body.get("ScanIndexForward") is False,
        limit=body.get("Limit"), after=after, keep=keep,
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
    ix = _index(table, body)
    if ix is not None:
        return _scan_index(body, table, ix, compiled, select, ctx.db.now())
    tid = table.spec.table_id
    if total is None:
        start = keyspace.items_prefix(tid)
        stop = keyspace.prefix_end(start)
    else:
        start, stop = segment_bounds(tid, segment, total)
    after = _start_key(
        table, body, "The provided starting key is invalid: The provided key element does not match the schema"
    )
    _check_segment_start(after, start, stop, segment, total)
    keep = compiled.filter.evaluate if compiled.filter is not None else None
    page = _read(table, None, body, ctx.db.now(), start, stop, limit=body.get("Limit"), after=after, keep=keep)
    return _respond(body, table, page, select, compiled)


OPERATIONS = {"Query": query, "Scan": scan}
