"""The scenario modules; importing this package registers every scenario."""

from compat.scenarios import (  # noqa: F401
    backups,
    batch,
    capacity,
    errors,
    expressions,
    global_tables,
    indexes,
    items,
    paging,
    partiql,
    streams,
    tables,
    transactions,
    ttl,
    vectors,
)
