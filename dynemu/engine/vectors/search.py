"""SearchVectors' engine side: the index, the search vector, the filter, the exact top-K,
the results and their VectorSearchRequestBytes (the read executor, ``engine/reads.py:
search_vectors``, admits and debits it).

SearchConditionExpression (``engine/vectors/condition.py``, "SearchConditionExpression
reference for vector indexes") is applied before the top-K, so TopK results come back
whenever that many items match.

VectorSearchRequestBytes ("Monitoring vector index capacity": it "scales with the size of
the vector data the search examines and returns", and grows logarithmically with the
index): dynemu's model is ``4 x Dimensions x (1 + ceil(log2(n + 1)))`` for the query and
the vectors an approximate search would examine among the ``n`` the filter keeps, plus
the sizes of the entries returned.

A response is limited to 16 MB, without pagination ("Requirements and limitations"): a
search whose results (their projected items, after ProjectionExpression, by DynamoDB's item
size) exceed it is refused with a ValidationException (dynemu's choice: the guide does not
say whether the service refuses or truncates).

With ``--eventual-lag-ms`` an item written within the lag is not in the results yet (its
previous entry neither: the index is between the two), as vector indexes are updated
asynchronously ("Data synchronization between tables and vector indexes").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from dynemu import errors
from dynemu.engine import consistency, values
from dynemu.engine.schema import Item
from dynemu.engine.table import Table
from dynemu.engine.vectors import condition, find
from dynemu.engine.vectors import spec as spec_
from dynemu.engine.vectors.maintain import VectorIndex
from dynemu.storage import keyspace


@dataclass(slots=True)
class VectorSearch:
    """One SearchVectors request, parsed."""

    table: Table
    index_name: str
    vector: list[Any]  # the SearchVector's attribute values, as sent
    top_k: int
    condition: Any = None  # a compiled condition (``tree``): SearchConditionExpression
    consumed: bool = False
    projection: Any = None  # a compiled ProjectionExpression (``apply``), or None


@dataclass(slots=True)
class SearchResult:
    results: list[tuple[Item, float]] = field(default_factory=list)
    request_bytes: int = 0


def find_vector_index(table: Table, name: str) -> VectorIndex:
    """The index SearchVectors names; an index still being backfilled refuses searches
    ("Troubleshooting vector indexes" gives both texts)."""
    vix = find(table, name)
    if vix is None:
        raise errors.validation(errors.msg_no_such_index(name))
    if vix.spec.status != "ACTIVE" or vix.cursor is not None:
        raise errors.validation(errors.msg_backfilling_vector_index(name))
    return vix


def query_vector(vix: VectorIndex, raw: list[Any]) -> Any:
    """The search vector as float32 (a numpy array)."""
    from dynemu.engine.vectors.matrix import as_query, parse

    numbers = parse(raw)  # the values first: an L-wrapped vector is invalid, whatever its length
    if numbers is None:
        raise errors.validation(errors.MSG_SEARCH_VECTOR_INVALID)
    dims = vix.spec.dimensions
    if len(raw) != dims:
        raise errors.validation(errors.msg_search_vector_dimensions(len(raw), dims))
    return as_query(numbers)


def run(r: VectorSearch, now: float) -> SearchResult:
    """The search: exact top-K among the rows the filter keeps and the lag model shows."""
    table = r.table
    vix = find_vector_index(table, r.index_name)
    query = query_vector(vix, r.vector)
    mask_of = condition.plan(vix, r.condition)
    mx = vix.matrix
    keep = mask_of(mx) if mask_of is not None else None
    pending = consistency.pending_writes(table, now) if table.recent is not None else {}
    if pending:
        import numpy as np

        if keep is None:
            keep = np.ones(mx.n, dtype=bool)
        for key in pending:
            row = mx.rows.get(keyspace.hashed_part(key))
            if row is not None:
                keep[row] = False
    kept = mx.n if keep is None else int(keep.sum())
    top = mx.top(query, r.top_k, keep)
    result = SearchResult()
    returned = response = 0
    for key, score in top:
        raw = table.store.get(vix.prefix + key)
        if raw is None:  # cannot happen: the matrix follows the committed entries
            continue
        returned += spec_.entry_header(raw)[0]
        item = spec_.entry_item(raw)
        if r.projection is not None:
            item = r.projection.apply(item)
        response += values.item_size(item)
        if response > spec_.MAX_RESPONSE_BYTES:
            raise errors.validation(errors.msg_search_response_too_large(spec_.MAX_RESPONSE_BYTES))
        result.results.append((item, score))
    examined = 1 + math.ceil(math.log2(kept + 1))
    result.request_bytes = 4 * vix.spec.dimensions * examined + returned
    return result
