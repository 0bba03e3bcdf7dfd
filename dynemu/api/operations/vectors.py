"""SearchVectors (API reference "SearchVectors"; developer guide "Creating and searching
vector indexes").

The order of checks: the request's shape (the botocore model, like every operation), TopK's
range, the expressions (SearchConditionExpression as a condition and ProjectionExpression
as a projection, by the one expression pipeline), the table, then the engine's
(``engine/vectors/search.py``): the index, its backfill, the search vector, the filter's
form, attributes and HASH rules (``engine/vectors/condition.py``), and the response's
16 MB (the projected results' sizes).
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine import reads
from dynemu.engine.expressions import compile_request
from dynemu.engine.vectors.search import VectorSearch
from dynemu.engine.vectors.spec import MAX_TOP_K


def _expressions(body: dict[str, Any]) -> Any:
    """SearchConditionExpression and ProjectionExpression through the expression engine
    (the placeholder rules of every expression; errors name the parameter)."""
    request = {
        k: body[k]
        for k in ("SearchConditionExpression", "ProjectionExpression", "ExpressionAttributeNames",
                  "ExpressionAttributeValues")
        if k in body
    }  # fmt: skip
    return compile_request("SearchVectors", request) if request else None


def search_vectors(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    top_k = body["TopK"]
    if not 1 <= top_k <= MAX_TOP_K:
        raise errors.validation(errors.msg_top_k_range(top_k, MAX_TOP_K))
    compiled = _expressions(body)
    table = ctx.db.get(body["TableName"])
    rcc = body.get("ReturnConsumedCapacity") or "NONE"
    search = VectorSearch(
        table, body["IndexName"], body["SearchVector"], top_k,
        compiled.filter if compiled is not None else None, consumed=rcc != "NONE",
        projection=compiled.projection if compiled is not None else None,
    )  # fmt: skip
    result = reads.search_vectors(ctx.db, search)
    out: dict[str, Any] = {"SearchResults": [{"Item": item, "Score": score} for item, score in result.results]}
    if rcc != "NONE":
        out["ConsumedCapacity"] = {"VectorSearchRequestBytes": float(result.request_bytes)}
    return out


OPERATIONS = {"SearchVectors": search_vectors}
