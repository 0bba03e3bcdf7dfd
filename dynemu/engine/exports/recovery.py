"""What an open finds of the imports a server stopped (SIGKILL, SIGTERM, a crash) while they ran
(docs/import-export.md, "A restart").

An import's steps run in the server's process only (engine/exports/jobs.py), so a record left
IN_PROGRESS whose work had not ended (no ``ends``) belongs to no one once its namespace opens
in a new process: the import FAILED, and its half-filled table is dropped, as a failed import
leaves no table on DynamoDB (the table is created by the import and exists only once it
succeeds, "Import from Amazon S3: how it works"). An import whose work was done but whose job
has not ended on the clock keeps its table CREATING until then, as before the restart
(``transient.Statuses`` is memory only). Called on every open of a namespace: one read of the
import records' range, nothing more when there are none (``jobs`` is imported only then).
"""

from __future__ import annotations

from typing import Any

from dynemu.storage import backup_keys, keyspace


def recover_imports(db: Any) -> None:
    """Settle the import records of namespace ``db``, just opened (see the module's docstring)."""
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
