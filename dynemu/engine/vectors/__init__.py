"""Vector indexes (developer guide, "Vector indexes"): their definitions, maintenance as a
write observer of the table (``maintain.VectorMaintainer``), and the exact search
(``search``). numpy is imported only once a table has a vector index.

A table's vector indexes are attached by ``attach`` (``Namespace._attach``): the matrix of
each index is rebuilt from its stored entries, and an index whose backfill was cut short by
a restart is backfilled again from scratch.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dynemu.engine.table import Mutation, Table
from dynemu.engine.vectors import spec as spec_
from dynemu.engine.vectors.spec import Catalog, VectorIndexSpec
from dynemu.storage.base import WriteBatch

if TYPE_CHECKING:
    from dynemu.engine.vectors.maintain import VectorIndex, VectorMaintainer


def maintainer(table: Table) -> VectorMaintainer | None:
    m: VectorMaintainer | None = table.vectors
    return m


def all_indexes(table: Table) -> list[VectorIndex]:
    m = maintainer(table)
    return m.indexes if m is not None else []


def find(table: Table, name: str) -> VectorIndex | None:
    m = maintainer(table)
    return m.by_name.get(name) if m is not None else None


def save(table: Table) -> None:
    """Persist the table's vector index definitions."""
    batch = WriteBatch()
    key = spec_.catalog_key(table.spec.table_id)
    specs = [ix.spec for ix in all_indexes(table)]
    if specs:
        batch.put(key, Catalog(specs).encode())
    else:
        batch.delete(key)
    table.store.write(batch)


def attach(table: Table) -> None:
    """Give a loaded table its vector indexes (none: nothing is attached, numpy is not
    imported). An index left CREATING by a restart is backfilled again, at once."""
    catalog = Catalog.decode(table.store.get(spec_.catalog_key(table.spec.table_id)))
    if not catalog.specs:
        return
    from dynemu.engine.vectors import maintain

    m = maintain.VectorMaintainer(table, catalog.specs)
    table.vectors = m
    restarted = False
    for vix in m.indexes:
        if vix.spec.status == "CREATING":
            maintain.drop_entries(table, vix)
            job = maintain.Backfill(table, vix)
            while not job.step():
                pass
            restarted = True
        else:
            maintain.rebuild(table, vix)
    if restarted:
        save(table)


def ensure_maintainer(table: Table) -> VectorMaintainer:
    m = maintainer(table)
    if m is None:
        from dynemu.engine.vectors import maintain

        m = maintain.VectorMaintainer(table, [])
        table.vectors = m
    return m


def start_backfill(db: Any, table: Table, vix: VectorIndex) -> None:
    """Backfill in steps on the event loop (``engine/steps.py``), so that the index is
    CREATING with Backfilling while the table is indexed and requests keep flowing; without
    a loop, at once. ``db``: the table's namespace."""
    from dynemu.engine.steps import run_steps
    from dynemu.engine.vectors import maintain

    job = maintain.Backfill(table, vix)

    def work() -> Iterator[None]:
        while True:
            if db.tables.get(table.name) is not table or find(table, vix.name) is not vix:
                vix.cursor = None  # the table or the index went away
                return
            if job.step():
                save(table)
                return
            yield

    run_steps(db, work())


def charge(cc: Any, m: Mutation) -> None:
    """Add the VectorWriteRequestBytes of planned mutation ``m`` to ConsumedCapacity ``cc``
    (reported under ReturnConsumedCapacity INDEXES, "Monitoring vector index capacity")."""
    derived = m.derived
    if derived is not None:
        for w in derived.get("vectors") or ():
            cc.add_vector_write(w.index.name, w.request_bytes)


# VectorWriteRequestBytes has a floor of 1 KB per index of a request, not per write (issue 36:
# the service reports 1,024 for an entry below it, and for two small writes to one index)
MIN_WRITE_REQUEST_BYTES = 1024


def reported_write_bytes(request_bytes: int) -> int:
    """The VectorWriteRequestBytes a response reports for one index's total."""
    return max(request_bytes, MIN_WRITE_REQUEST_BYTES)


def billed_sizes(m: Mutation) -> tuple[int, int]:
    """The old and new item sizes planned mutation ``m`` is billed by: its vectors at 4 bytes
    per dimension (``VectorMaintainer.billed_size``), or its sizes when it holds none."""
    derived = m.derived
    billed = derived.get("billed") if derived is not None else None
    return billed if billed is not None else (m.old_size, m.new_size)


def write_units_h(m: Mutation) -> int:
    """The half write units planned mutation ``m`` costs its vector indexes: each index's
    VectorWriteRequestBytes in 1 KB blocks ("Monitoring vector index capacity": vector writes
    are metered apart, in bytes; dynemu's conversion). The write executor debits them on the
    table's capacity with the item's own units, after the item's one admission
    (``writes._charge``); they are not part of the table's CapacityUnits."""
    derived = m.derived
    if derived is None:
        return 0
    return sum(2 * -(-w.request_bytes // 1024) for w in derived.get("vectors") or ())


def drop_table_data(table: Table) -> None:
    """The definitions of a dropped table's vector indexes (their entries go with the
    table's other index entries, ``indexes.drop_table_data``)."""
    batch = WriteBatch()
    batch.delete(spec_.catalog_key(table.spec.table_id))
    table.store.write(batch)


__all__ = ["VectorIndexSpec", "all_indexes", "attach", "billed_sizes", "charge", "find", "maintainer",
           "reported_write_bytes", "save", "start_backfill", "write_units_h"]
