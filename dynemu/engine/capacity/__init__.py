"""Capacity: what an operation consumes (``units``), the partition map and its splits
(``partitions``), token buckets and the capacity models (``throughput``), and admission of
requests against them (``admission``).

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
