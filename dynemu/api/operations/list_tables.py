"""ListTables, apart from tables.py's other table operations: it needs neither the index and
table definitions (engine/ddl.py) nor DescribeTable's wire form, and it is what a client
usually calls first, so a server that has answered only ListTables has imported none of them
(tests/test_startup_lazy.py)."""

from __future__ import annotations

from typing import Any

from dynemu.api.protocol import Context


def list_tables(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    limit = body.get("Limit") or 100
    start = body.get("ExclusiveStartTableName")
    ctx.db.transient.settle()  # a deletion that has run its time is over
    names = sorted(ctx.db.tables)
    if start is not None:
        names = [n for n in names if n > start]
    page = names[:limit]
    out: dict[str, Any] = {"TableNames": page}
    if len(names) > limit:
        out["LastEvaluatedTableName"] = page[-1]
    return out


OPERATIONS = {"ListTables": list_tables}
