"""The scenario modules; importing this package registers every scenario."""

from compat.scenarios import (  # noqa: F401
    batch,
    capacity,
    errors,
    expressions,
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
