"""Capacity: what an operation consumes (``units``), token buckets on the clock
(``buckets``), the partition map and its splits (``partitions``), one policy class per
capacity model (``policies``: uniform, burst, adaptive, gac), the admission state of a
table or GSI with its calibration rules (``throughput``), the glue to a table's read and
write paths (``admission``) and the per-second history the dashboard draws (``history``).

The unit rules are re-exported here, so ``capacity.write_units(...)`` reads as the rule it is.
"""

from dynemu.engine.capacity.units import (
    READ_BLOCK,
    WRITE_BLOCK,
    CapacityLedger,
    ConsumedCapacity,
    index_write_units,
    index_write_units_h,
    query_read_units,
    query_read_units_h,
    read_units,
    read_units_h,
    write_units,
    write_units_h,
)

__all__ = [
    "READ_BLOCK",
    "WRITE_BLOCK",
    "CapacityLedger",
    "ConsumedCapacity",
    "index_write_units",
    "index_write_units_h",
    "query_read_units",
    "query_read_units_h",
    "read_units",
    "read_units_h",
    "write_units",
    "write_units_h",
]
