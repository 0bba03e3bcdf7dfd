"""What an open finds of the imports a server stopped (SIGKILL, SIGTERM, a crash) while they ran
(docs/import-export.md, "The rules": a restart).

An import's steps run in the server's process only (engine/exports/jobs.py), so a record left
IN_PROGRESS whose work had not ended (no ``ends``) belongs to no one once its namespace opens
in a new process: the import FAILED, and its half-filled table is dropped. The import creates
its table (API_ImportTableDescription, EndTime: "the time at which the creation of the table
associated with this import task completed"), and a FAILED one leaves none here, as when it
fails while the server runs (UNSURE: the reference does not say what the service keeps of a
failed import's table; dynemu leaves no half-made one: docs/import-export.md). An import whose work
was done but whose job has not ended on the clock keeps its table CREATING until then, as
before the restart (``transient.Statuses`` is memory only).

A table that ``dynemu import``, ``--init`` or a test's seeding (seeding.py) was filling when
its process died is dropped too: ``filling`` marks it, ``filled`` clears the mark ("an
interrupted import leaves no half-made table", docs/import-export.md). Called on every open of
a namespace: one read of each range, nothing more when they are empty (``jobs`` is imported
only when there is an import record).
"""

from __future__ import annotations

from typing import Any

from dynemu.storage import backup_keys, keyspace
from dynemu.storage.base import WriteBatch


def filling(db: Any, table: Any) -> None:
    """``table`` (just created) is being filled: dropped by the next open unless ``filled``."""
    batch = WriteBatch()
    batch.put(backup_keys.filling_key(table.spec.name), table.spec.uuid.encode("utf-8"))
    db.store.write(batch)


def filled(db: Any, name: str) -> None:
    """The table named ``name`` was filled, or was dropped."""
    batch = WriteBatch()
    batch.delete(backup_keys.filling_key(name))
    db.store.write(batch)


def recover_imports(db: Any) -> None:
    """Settle the import records and the tables being filled of namespace ``db``, just
    opened (see the module's docstring)."""
    start = backup_keys.FILLING_META_PREFIX
    for key, uuid in list(db.store.iterate(start, keyspace.prefix_end(start))):
        name = key[len(start):].decode("utf-8")
        table = db.tables.get(name)
        if table is not None and table.spec.uuid == uuid.decode("utf-8"):
            db.drop_table(table)
        filled(db, name)
    start = backup_keys.IMPORT_META_PREFIX
    if not db.store.read_values(start, keyspace.prefix_end(start), limit=1):
        return
    from dynemu.engine.exports import jobs

    now = db.now()
    for record in list(jobs.all_jobs(db.store, "import")):
        d = record["description"]
        name = d["TableArn"].rpartition("/")[2]
        if record.get("ends") is None:
            if record["arn"] in jobs.RUNNING:
                continue  # its steps run in this process (the namespace was closed and reopened)
            d.update(FailureCode=jobs.INTERRUPTED[0], FailureMessage=jobs.INTERRUPTED[1])
            record["ends"] = now
            table = db.tables.get(name)
            if table is not None and table.spec.uuid == d["TableId"]:
                db.drop_table(table)
            jobs.save(db.store, "import", record)
        elif now < record["ends"] and not d.get("FailureCode"):
            table = db.tables.get(name)
            if table is not None and table.spec.uuid == d["TableId"]:
                db.transient.hold(name, "CREATING", record["ends"])
