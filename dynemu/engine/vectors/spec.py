"""A vector index's definition, and where a table's vector indexes are kept in storage.

A table's vector indexes are one JSON record under ``m/c/vector-indexes/<table id>``
(beside the table's spec, which GSIs and LSIs share); each index's entries live under the
index prefix ``i/<tid><iid>`` of ``storage/keyspace.py``, keyed by the item's hashed key,
so a dropped table's entries go with its other index entries (``indexes.drop_table_data``).

An entry's value: 8 bytes of header (the entry's size, the dimension count), the vector
as little-endian float32, then the projected item as JSON. Rebuilding an index's matrix
when a namespace opens reads the entries alone, never the items.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

import orjson

from dynemu.engine.schema import Item
from dynemu.storage import keyspace

MAX_VECTOR_INDEXES = 5  # per table ("Quotas in Amazon DynamoDB", vector indexes)
MAX_DIMENSIONS = 4096  # the quotas page's maximum; SearchVectorList's max in the API model
MAX_TOP_K = 100  # TopK 1..100 ("Troubleshooting vector indexes")
MAX_INLINE_FILTERS = 18  # INLINE_FILTER attributes per index (quotas page)
# a SearchVectors response, without pagination ("Requirements and limitations")
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
DISTANCES = ("COSINE", "EUCLIDEAN", "DOT_PRODUCT")

_HEADER = struct.Struct(">II")


@dataclass
class VectorIndexSpec:
    """One vector index as DescribeTable reports it (what is not derived from the data)."""

    name: str
    index_id: int
    attribute: str
    dimensions: int
    distance: str  # COSINE | EUCLIDEAN | DOT_PRODUCT
    projection_type: str  # KEYS_ONLY | INCLUDE | ALL
    non_key: tuple[str, ...] = ()
    # (attribute name, "HASH" | "INLINE_FILTER", attribute type) in the order given
    search_schema: tuple[tuple[str, str, str], ...] = ()
    status: str = "ACTIVE"  # CREATING while backfilled (and Backfilling true)
    backfilling: bool = False
    arn: str = ""

    @property
    def hash_attribute(self) -> str | None:
        return next((n for n, kind, _ in self.search_schema if kind == "HASH"), None)

    @property
    def schema_names(self) -> tuple[str, ...]:
        return tuple(n for n, _, _ in self.search_schema)

    def to_record(self) -> dict[str, Any]:
        return {
            "name": self.name, "id": self.index_id, "attribute": self.attribute, "dimensions": self.dimensions,
            "distance": self.distance, "projection": self.projection_type, "non_key": list(self.non_key),
            "schema": [list(e) for e in self.search_schema], "status": self.status,
            "backfilling": self.backfilling, "arn": self.arn,
        }  # fmt: skip

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> VectorIndexSpec:
        return cls(
            r["name"], r["id"], r["attribute"], r["dimensions"], r["distance"], r["projection"],
            tuple(r.get("non_key", ())), tuple(tuple(e) for e in r.get("schema", ())),  # type: ignore[misc]
            r.get("status", "ACTIVE"), r.get("backfilling", False), r.get("arn", ""),
        )  # fmt: skip


@dataclass
class Catalog:
    """The vector indexes of one table, in creation order."""

    specs: list[VectorIndexSpec] = field(default_factory=list)

    def encode(self) -> bytes:
        return orjson.dumps([s.to_record() for s in self.specs])

    @classmethod
    def decode(cls, raw: bytes | None) -> Catalog:
        return cls([VectorIndexSpec.from_record(r) for r in orjson.loads(raw)] if raw else [])


def catalog_key(table_id: int) -> bytes:
    return keyspace.meta_counter_key(f"vector-indexes/{table_id}")


def entry_prefix(table_id: int, index_id: int) -> bytes:
    return keyspace.index_prefix(table_id, index_id)


def encode_entry(size: int, vector: bytes, dims: int, entry: Item) -> bytes:
    return _HEADER.pack(size, dims) + vector + orjson.dumps(entry)


def entry_header(raw: bytes) -> tuple[int, int]:
    """``(entry size, dimensions)`` of a stored entry."""
    return _HEADER.unpack_from(raw)  # type: ignore[return-value]


def entry_vector(raw: bytes) -> memoryview:
    """The float32 bytes of a stored entry's vector."""
    dims = _HEADER.unpack_from(raw)[1]
    return memoryview(raw)[_HEADER.size : _HEADER.size + 4 * dims]


def entry_item(raw: bytes) -> Item:
    dims = _HEADER.unpack_from(raw)[1]
    return orjson.loads(memoryview(raw)[_HEADER.size + 4 * dims :])
