"""Transient statuses (``--transient-delays``, DynamoDB Local's ``-delayTransientStatuses``):
CreateTable, UpdateTable, DeleteTable and a global secondary index's creation or deletion take
time on the namespace's clock, as on DynamoDB, instead of completing within their request.

While a status lasts (API_DescribeTable.html, API_DeleteTable.html, API_UpdateTable.html):

- CREATING: DescribeTable shows it; the data plane answers ResourceNotFoundException, as for a
  table that does not exist; UpdateTable and DeleteTable answer ResourceInUseException ("Table
  is being created"), and so does CreateTable of the same name (the table exists);
- UPDATING: reads and writes are served; another UpdateTable and a DeleteTable answer
  ResourceInUseException ("Table is being updated");
- DELETING: DescribeTable and ListTables still show the table; the data plane answers
  ResourceNotFoundException (UNSURE: the reference does not say; a deleted table's answer);
  DeleteTable again answers as the first did ("If table is already in the DELETING state, no
  error is returned"); UpdateTable and CreateTable of the name answer ResourceInUseException
  ("Table is being deleted", the service's text reported in hashicorp/terraform-provider-aws#3355).

A new GSI stays CREATING (Backfilling) for ``INDEX_CREATE`` seconds at least, and a deleted
one DELETING for ``INDEX_DELETE``; the table is UPDATING meanwhile. The durations are
dynemu's (DynamoDB's vary with the table): long enough to be seen by a waiter that polls,
short enough for a test suite. A status is held in memory: a restart completes it.

Whatever ``--transient-delays`` says, a table that ImportTable creates is CREATING until its
import has COMPLETED ("Import from S3: how it works": the table is created with the import and
becomes ACTIVE when it completes), held with ``hold`` (again when its namespace opens after a
restart: engine/exports/recovery.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from dynemu import errors

CREATE = 5.0  # seconds a table is CREATING
UPDATE = 5.0  # UPDATING (throughput, billing mode, settings, streams)
DELETE = 5.0  # DELETING, before it is gone
INDEX_CREATE = 10.0  # a new GSI's CREATING (Backfilling), the table UPDATING
INDEX_DELETE = 5.0  # a deleted GSI's DELETING, the table UPDATING
DURATION = {"CREATING": CREATE, "UPDATING": UPDATE, "DELETING": DELETE}
BUSY_WORD = {"CREATING": "created", "UPDATING": "updated", "DELETING": "deleted"}


class Statuses:
    """One namespace's tables in a transient status: ``name -> (status, until)``, and its
    GSIs being created or deleted: ``(table, index) -> (status, until)``.

    The namespace owns it and gives it what it needs at construction: the namespace's clock
    (``now``) and ``drop``, which removes a table whose DELETING has run its time (the
    namespace's ``drop_table`` by name)."""

    __slots__ = ("enabled", "tables", "indexes", "_now", "_drop")

    def __init__(self, enabled: bool, now: Callable[[], float], drop: Callable[[str], None]) -> None:
        self.enabled = enabled
        self.tables: dict[str, tuple[str, float]] = {}
        self.indexes: dict[tuple[str, str], tuple[str, float]] = {}
        self._now = now
        self._drop = drop

    def begin(self, name: str, status: str, seconds: float | None = None) -> None:
        if self.enabled:
            until = self._now() + (DURATION[status] if seconds is None else seconds)
            old = self.tables.get(name)
            self.tables[name] = (status, max(until, old[1]) if old and old[0] == status else until)

    def hold(self, name: str, status: str, until: float = math.inf) -> None:
        """``status`` until ``until`` (default: until held again), whatever
        ``--transient-delays`` says: a table ImportTable fills is CREATING until its import
        has COMPLETED (engine/exports/jobs.py)."""
        self.tables[name] = (status, until)

    def begin_index(self, table: str, index: str, status: str) -> None:
        if self.enabled:
            seconds = INDEX_CREATE if status == "CREATING" else INDEX_DELETE
            self.indexes[(table, index)] = (status, self._now() + seconds)
            self.begin(table, "UPDATING", seconds)

    def status(self, name: str) -> str | None:
        """The table's transient status now, settling what has run its time (a DELETING
        table is then dropped: ``drop``)."""
        held = self.tables.get(name)
        if held is None:
            return None
        status, until = held
        if self._now() < until:
            return status
        del self.tables[name]
        for key in [k for k in self.indexes if k[0] == name]:
            del self.indexes[key]
        if status == "DELETING":
            self._drop(name)
        return None

    def settle(self) -> None:
        """Settle every table's status (ListTables: a deletion that has run its time is over)."""
        for name in list(self.tables):
            self.status(name)

    def index_status(self, table: str, index: str) -> str | None:
        """CREATING or DELETING while a GSI's change lasts, else None."""
        held = self.indexes.get((table, index))
        if held is None:
            return None
        if self._now() < held[1]:
            return held[0]
        del self.indexes[(table, index)]
        return None

    def check_changeable(self, name: str) -> None:
        """UpdateTable and DeleteTable: ResourceInUseException while the table is CREATING or
        UPDATING (DeleteTable of a DELETING table is the caller's: it answers as before)."""
        status = self.status(name)
        if status is not None:
            raise errors.resource_in_use(errors.msg_table_busy(BUSY_WORD[status], name))
