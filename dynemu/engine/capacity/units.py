"""Capacity units consumed by each operation, and the ``ConsumedCapacity`` they report.

Everything is counted in integer **half-units** (``_h`` suffix) so sums are exact; the
float a response carries is ``half_units / 2``. The rules, from DynamoDB's developer guide
"Capacity unit consumption" (read-write-operations.html), "Provisioned capacity mode",
GSI.md / LSI.md ("Throughput considerations") and transaction-apis.md:

* Reads are charged per 4 KB (4096 bytes), rounded up; strongly consistent = 1 unit per
  block, eventually consistent = 1/2, transactional = 2. A missing item still costs one
  block (GetItem, BatchGetItem, TransactGetItems).
* BatchGetItem rounds **each item** to 4 KB, then sums (1.5 KB + 6.5 KB -> 12 KB -> 3 units).
* Query and Scan **sum** the sizes of the items read (Scan: evaluated, not returned), then
  round **once**; the eventual halving applies to the rounded total. An empty page is
  charged the minimum of one block (see :func:`query_read_units`).
* Writes are charged per 1 KB (1024 bytes) of the **larger** of the old and new item; a
  delete of a missing item, or a failed condition on a missing item, costs 1 unit;
  transactional writes cost 2 per 1 KB.
* Index writes (GSI.md "Write capacity units"; LSIs the same, charged to the table): a new
  entry costs its size, a removed entry its old size, an index-key change A -> B a delete
  plus a put (each rounded on its own image), an in-place change of projected attributes
  the larger of old and new entry, and no change nothing. Real DynamoDB was measured to
  charge index arms at the plain rate inside transactions too (only the table arm
  doubles) -- reported in nubo-db/dynoxide#188 and paritysuite/dynamodb-conformance#149.
"""

from __future__ import annotations

READ_BLOCK = 4096
WRITE_BLOCK = 1024


def _blocks(size: int, block: int) -> int:
    """``ceil(size / block)``, at least 1 (a missing or empty item costs the minimum)."""
    return max(1, -(-size // block))


# --- reads ------------------------------------------------------------------------------


def read_block_bytes(size: int) -> int:
    """``size`` rounded up to whole 4 KB read blocks: what an LSI's fetch of a table item
    counts toward a page's 1 MB (LSI.md, "Read capacity units")."""
    return -(-size // READ_BLOCK) * READ_BLOCK


def read_units_h(size: int | None, consistent: bool, transactional: bool = False) -> int:
    """Half-units to read one item of ``size`` bytes (``None`` or 0: missing item)."""
    blocks = -(-size // READ_BLOCK) if size else 1  # _blocks(size, READ_BLOCK), inline: every read
    if transactional:
        return 4 * blocks  # 2 units per 4 KB (transaction-apis.md)
    return 2 * blocks if consistent else blocks


def read_units(size: int | None, consistent: bool, transactional: bool = False) -> float:
    """GetItem / one BatchGetItem key / one TransactGetItems item."""
    return read_units_h(size, consistent, transactional) / 2


def query_read_units_h(total_bytes: int, consistent: bool) -> int:
    """Half-units for one Query or Scan page: the sizes summed, rounded to 4 KB once.

    GSI queries are always eventually consistent. An empty page is charged one block:
    DynamoDB bills a request's minimum read (0.5 unit eventual) even when nothing matches
    (dynalite reports 0 here; we follow the service's minimum-read rule).
    """
    blocks = _blocks(total_bytes, READ_BLOCK)
    return 2 * blocks if consistent else blocks


def query_read_units(total_bytes: int, consistent: bool) -> float:
    return query_read_units_h(total_bytes, consistent) / 2


# --- writes -----------------------------------------------------------------------------


def write_units_h(old_size: int | None, new_size: int | None, transactional: bool = False) -> int:
    """Half-units for one table write: 1 KB blocks of the larger image, at least 1.

    ``old_size`` is the stored item before the write (``None`` if absent), ``new_size``
    the item after it (``None`` for a delete or a failed condition). A ConditionCheck in a
    transaction is charged as a write of the item it read.
    """
    size = max(old_size or 0, new_size or 0)
    blocks = -(-size // WRITE_BLOCK) or 1  # ``_blocks``, inline: every write asks
    return (4 if transactional else 2) * blocks


def write_units(old_size: int | None, new_size: int | None, transactional: bool = False) -> float:
    return write_units_h(old_size, new_size, transactional) / 2


def index_write_units_h(
    old_entry: int | None,
    new_entry: int | None,
    *,
    key_changed: bool = False,
    changed: bool = True,
) -> int:
    """Half-units one write costs an index, from the index entry before and after.

    ``old_entry``/``new_entry`` are the sizes of the projected index entry (``None`` when
    the item is not in the index on that side); ``key_changed`` says the index key (or the
    table key it is stored under) differs; ``changed`` says the stored entry differs at all.
    """
    if old_entry is None and new_entry is None:
        return 0  # not in the index before or after: no cost
    if old_entry is None:
        return 2 * _blocks(new_entry or 0, WRITE_BLOCK)  # put a new entry
    if new_entry is None:
        return 2 * _blocks(old_entry, WRITE_BLOCK)  # delete the old entry
    if key_changed:
        # delete + put, each rounded on its own image (measured: 1517 B both sides -> 2 + 2)
        return 2 * (_blocks(old_entry, WRITE_BLOCK) + _blocks(new_entry, WRITE_BLOCK))
    if not changed:
        return 0  # identical overwrite leaves the entry alone
    return 2 * _blocks(max(old_entry, new_entry), WRITE_BLOCK)  # in-place update


def index_write_units(
    old_entry: int | None, new_entry: int | None, *, key_changed: bool = False, changed: bool = True
) -> float:
    return index_write_units_h(old_entry, new_entry, key_changed=key_changed, changed=changed) / 2


# --- ConsumedCapacity -------------------------------------------------------------------


class ConsumedCapacity:
    """Capacity one request consumed on one table (its wire shape:
    ``dynemu.api.operations.common.render_consumed``).

    ``split`` selects the transactional form: real responses of TransactWriteItems,
    TransactGetItems and ExecuteTransaction fill ``ReadCapacityUnits`` /
    ``WriteCapacityUnits`` (top level and in ``Table``); GetItem, PutItem, UpdateItem,
    DeleteItem, Query, Scan and the batch APIs fill only ``CapacityUnits`` (measured
    against the service: paritysuite/dynamodb-conformance#69, ExtendDB/extenddb#77).
    Under ``INDEXES`` the ``Table`` arm is always present (``0.0`` for a GSI query, as
    dynalite reports), and an index arm appears only for an index that was charged; the
    ``LocalSecondaryIndexes`` / ``GlobalSecondaryIndexes`` maps are omitted when empty.
    LSI units are the table's throughput but reported in their own arm (LSI.md).
    """

    __slots__ = ("table_name", "split", "read_h", "write_h", "has_read", "has_write", "lsi", "gsi", "vector")

    def __init__(self, table_name: str, *, split: bool = False) -> None:
        self.table_name = table_name
        self.split = split
        self.read_h = 0
        self.write_h = 0
        self.has_read = False
        self.has_write = False
        self.lsi: dict[str, list[int]] | None = None  # name -> [read_h, write_h]
        self.gsi: dict[str, list[int]] | None = None
        self.vector: dict[str, int] | None = None  # vector index -> VectorWriteRequestBytes

    # recording --------------------------------------------------------------------------

    def add_read(self, half_units: int) -> None:
        self.read_h += half_units
        self.has_read = True

    def add_write(self, half_units: int) -> None:
        self.write_h += half_units
        self.has_write = True

    def add_index(self, name: str, *, is_global: bool, read_h: int = 0, write_h: int = 0) -> None:
        """Charge ``name``; a zero charge records nothing (no empty arm is reported)."""
        if read_h == 0 and write_h == 0:
            return
        if is_global:
            if self.gsi is None:
                self.gsi = {}
            arm = self.gsi.setdefault(name, [0, 0])
        else:
            if self.lsi is None:
                self.lsi = {}
            arm = self.lsi.setdefault(name, [0, 0])
        arm[0] += read_h
        arm[1] += write_h

    def add_vector_write(self, name: str, request_bytes: int) -> None:
        """VectorWriteRequestBytes of a write on vector index ``name`` (engine.vectors)."""
        if self.vector is None:
            self.vector = {}
        self.vector[name] = self.vector.get(name, 0) + request_bytes

    def merge(self, other: ConsumedCapacity) -> None:
        """Add ``other`` (same table) into this one: batch and transaction totals."""
        for name, request_bytes in (other.vector or {}).items():
            self.add_vector_write(name, request_bytes)
        if other.has_read:
            self.add_read(other.read_h)
        if other.has_write:
            self.add_write(other.write_h)
        for is_global, arms in ((False, other.lsi), (True, other.gsi)):
            for name, (r, w) in (arms or {}).items():
                self.add_index(name, is_global=is_global, read_h=r, write_h=w)

    # totals -----------------------------------------------------------------------------

    def index_totals(self) -> tuple[int, int]:
        r = w = 0
        for arms in (self.lsi, self.gsi):
            for ir, iw in (arms or {}).values():
                r += ir
                w += iw
        return r, w

    @property
    def total_h(self) -> int:
        r, w = self.index_totals()
        return self.read_h + self.write_h + r + w

    @property
    def total(self) -> float:
        return self.total_h / 2


class CapacityLedger:
    """Per-table :class:`ConsumedCapacity` of a multi-table request (BatchGetItem,
    BatchWriteItem, TransactGetItems, TransactWriteItems, ExecuteTransaction), one per table
    in first-touched order (DynamoDB's list: ``common.render_ledger``)."""

    __slots__ = ("split", "tables")

    def __init__(self, *, split: bool = False) -> None:
        self.split = split
        self.tables: dict[str, ConsumedCapacity] = {}

    def for_table(self, table_name: str) -> ConsumedCapacity:
        cc = self.tables.get(table_name)
        if cc is None:
            cc = self.tables[table_name] = ConsumedCapacity(table_name, split=self.split)
        return cc
