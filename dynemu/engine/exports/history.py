"""What an export writes, read from point-in-time recovery's history (engine/pitr.py), so an
export reads no capacity and sees the table as of its ExportTime
(API_ExportTableToPointInTime: "The table export will be a snapshot of the table's state at
this point in time").

- a full export: every item as of ``when`` (``pitr.items_at``);
- an incremental export: every item changed in ``[from, to)`` (ExportFromTime inclusive,
  ExportToTime exclusive: API_IncrementalExportSpecification), once, with its key, its image
  at ``to`` (NewImage, absent when deleted), its image at ``from`` (OldImage, with
  NEW_AND_OLD_IMAGES) and the time of its last write. An item created and deleted within the
  window is left out: nothing of it is in either image.
"""

from __future__ import annotations

from collections.abc import Iterator

from dynemu.engine import pitr
from dynemu.engine.exports import codecs
from dynemu.engine.schema import TableSpec
from dynemu.engine.table import decode_stored, stored_size
from dynemu.storage import backup_keys, keyspace
from dynemu.storage.base import Reader


def full_lines(store: Reader, table_id: int, when: float, fmt: str) -> Iterator[tuple[bytes, int]]:
    """(line, item size) of every item as of ``when``."""
    for raw in pitr.items_at(store, table_id, when):
        if fmt == "ION":
            item, size = decode_stored(raw)
            yield codecs.ion_item_line(item), size
        else:
            yield codecs.json_item_line(memoryview(raw)[4:]), stored_size(raw)


def _us(t: float) -> int:
    return int(round(t * 1_000_000))


def change_lines(store: Reader, spec: TableSpec, start: float, end: float, view: str,
                 fmt: str) -> Iterator[tuple[bytes, int]]:
    """(line, new image size) of every item changed in ``[start, end)``."""
    tid = spec.table_id
    log = backup_keys.pitr_log_prefix(tid)
    lo, hi = _us(start), _us(end)
    after: dict[bytes, tuple[int, bytes | None]] = {}  # hashed -> (time us, stored or None)
    for key, value in store.iterate(backup_keys.pitr_log_until(tid, lo - 1), backup_keys.pitr_log_until(tid, hi - 1)):
        hashed, stored = backup_keys.pitr_log_entry(value)
        after[hashed] = (backup_keys.pitr_log_position(key)[0], stored)
    before: dict[bytes, bytes | None] = {}
    base = backup_keys.pitr_base_prefix(tid)
    # the image at ``start`` (for NEW_IMAGE too: it tells an item created and deleted apart)
    for _, value in store.iterate(log, backup_keys.pitr_log_until(tid, lo - 1)):
        hashed, stored = backup_keys.pitr_log_entry(value)
        if hashed in after:
            before[hashed] = stored
    for hashed in after:
        if hashed not in before:
            before[hashed] = store.get(base + hashed)
    line = codecs.ion_change_line if fmt == "ION" else codecs.json_change_line
    names = spec.key_names
    for hashed, (micros, stored) in after.items():
        old_raw = before.get(hashed)
        if stored is None and old_raw is None:
            continue  # created and deleted within the window
        new, size = decode_stored(stored) if stored is not None else (None, 0)
        old = decode_stored(old_raw)[0] if old_raw is not None else None
        image = new if new is not None else old
        assert image is not None
        keys = {n: image[n] for n in names if n in image}
        yield line(micros, keys, new, old if view == "NEW_AND_OLD_IMAGES" else None), size



def table_lines(store: Reader, table_id: int, fmt: str) -> Iterator[tuple[bytes, int]]:
    """(line, item size) of every item of a table as it is now (``dynemu export``, which needs
    no point-in-time recovery: the server is not running)."""
    prefix = keyspace.items_prefix(table_id)
    for _, raw in store.iterate(prefix, keyspace.prefix_end(prefix)):
        if fmt == "ION":
            item, size = decode_stored(raw)
            yield codecs.ion_item_line(item), size
        else:
            yield codecs.json_item_line(memoryview(raw)[4:]), stored_size(raw)
