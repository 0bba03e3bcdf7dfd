"""Tables with data before the first request: ``dynemu import``, ``dynemu export``, ``--init``
and the pytest plugin's seeding (docs/import-export.md). All of them read files with the one
loader of ImportTable (engine/exports/loader.py) and create tables with CreateTable's own
checks (``tables.create``).

A table definition is CreateTable's input or ``aws dynamodb describe-table``'s output (its
``Table`` object, reduced to what CreateTable takes). A table is created, then filled; when
loading stops on an error or an interrupt, the table is dropped: no half-made table is left.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

import orjson

from dynemu.api.protocol import Context
from dynemu.config import Settings
from dynemu.engine.exports import layout, loader
from dynemu.engine.namespace import Namespace
from dynemu.engine.table import Table


class SeedError(Exception):
    """A file that cannot be used; the message is one line naming the file and the field."""


_PROJECTION = ("IndexName", "KeySchema", "Projection")


def create_input(definition: dict[str, Any], where: str) -> dict[str, Any]:
    """CreateTable's input from a definition: CreateTable's input itself, or describe-table's
    output (``{"Table": {...}}``) reduced to the members CreateTable takes."""
    if not isinstance(definition, dict):
        raise SeedError(f"{where}: expected a JSON object (CreateTable input or describe-table output)")
    t = definition.get("Table", definition)
    for member in ("TableName", "KeySchema", "AttributeDefinitions"):
        if member not in t:
            raise SeedError(f"{where}: {member}: missing")
    if "Table" not in definition:
        return dict(t)
    out: dict[str, Any] = {k: t[k] for k in ("TableName", "KeySchema", "AttributeDefinitions")}
    mode = (t.get("BillingModeSummary") or {}).get("BillingMode")
    pt = t.get("ProvisionedThroughput") or {}
    if mode is None:
        mode = "PROVISIONED" if pt.get("ReadCapacityUnits") else "PAY_PER_REQUEST"
    out["BillingMode"] = mode
    if mode == "PROVISIONED":
        out["ProvisionedThroughput"] = {k: pt[k] for k in ("ReadCapacityUnits", "WriteCapacityUnits")}
    for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if t.get(member):
            out[member] = [_index(d, mode, member == "GlobalSecondaryIndexes") for d in t[member]]
    if (t.get("StreamSpecification") or {}).get("StreamEnabled"):
        out["StreamSpecification"] = t["StreamSpecification"]
    if t.get("TableClassSummary"):
        out["TableClass"] = t["TableClassSummary"]["TableClass"]
    if t.get("DeletionProtectionEnabled"):
        out["DeletionProtectionEnabled"] = True
    return out


def _index(d: dict[str, Any], mode: str, is_global: bool) -> dict[str, Any]:
    out = {k: d[k] for k in _PROJECTION if k in d}
    pt = d.get("ProvisionedThroughput") or {}
    if is_global and mode == "PROVISIONED":
        out["ProvisionedThroughput"] = {k: pt.get(k, 1) for k in ("ReadCapacityUnits", "WriteCapacityUnits")}
    return out


def read_definition(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return create_input(orjson.loads(f.read()), path)
    except orjson.JSONDecodeError as e:
        raise SeedError(f"{path}: not JSON: {e}") from None
    except OSError as e:
        raise SeedError(f"{path}: {e.strerror}") from None


def key_definition(table: str, key: str, sort_key: str | None) -> dict[str, Any]:
    """CreateTable's input from ``--key NAME:TYPE [--sort-key NAME:TYPE]`` (on demand)."""
    schema, defs = [], []
    for text, kind in ((key, "HASH"), (sort_key, "RANGE")):
        if text is None:
            continue
        name, _, t = text.partition(":")
        if not name or t not in ("S", "N", "B"):
            raise SeedError(f"--key/--sort-key: expected NAME:S, NAME:N or NAME:B, got {text!r}")
        schema.append({"AttributeName": name, "KeyType": kind})
        defs.append({"AttributeName": name, "AttributeType": t})
    return {"TableName": table, "KeySchema": schema, "AttributeDefinitions": defs, "BillingMode": "PAY_PER_REQUEST"}


def context(db: Namespace, settings: Settings, region: str) -> Context:
    return Context(db, region, "", settings, "")


def seed(ctx: Context, definition: dict[str, Any], source: loader.Source | None,
         on_error: loader.ErrorSink, progress: loader.Progress | None = None) -> tuple[Table, loader.Counts]:
    """Create the table of ``definition`` and fill it from ``source``; dropped when loading
    does not finish: at once on an error or an interrupt, by the next open of the data
    directory when the process is killed (``recovery.filling``)."""
    from dynemu.api.operations import tables
    from dynemu.api.validation.validator import RequestValidator
    from dynemu.engine.exports import recovery

    RequestValidator.for_service("dynamodb").validate("CreateTable", definition)  # as CreateTable's request is
    table = tables.create(ctx, definition)
    counts = loader.Counts()
    if source is None:
        return table, counts
    recovery.filling(ctx.db, table)
    try:
        loader.load(ctx.db, table, source, counts, on_error, progress)
    except BaseException:
        ctx.db.drop_table(table)
        recovery.filled(ctx.db, table.name)
        raise
    recovery.filled(ctx.db, table.name)
    return table, counts


def file_source(path: str, fmt: str, compression: str | None = None, delimiter: str = ",",
                header: list[str] | None = None) -> loader.Source:
    """A source of a file, an export's folder or a folder of data files."""
    if not os.path.exists(path):
        raise SeedError(f"{path}: no such file or directory")
    keys = layout.local_files(path)
    if not keys:
        raise SeedError(f"{path}: no data file in it")
    return loader.Source(keys=keys, opener=lambda p: open(p, "rb"), fmt=fmt, compression=compression,
                         delimiter=delimiter, header=header)


def guess_format(path: str) -> str:
    name = path.lower()
    for suffix in (".gz", ".zst", ".zstd"):
        name = name.removesuffix(suffix)
    if name.endswith(".csv"):
        return "CSV"
    if name.endswith(".ion"):
        return "ION"
    if os.path.isdir(path):
        for _, _, files in os.walk(path):
            if any(".ion" in f for f in files):
                return "ION"
    return "DYNAMODB_JSON"


class Progress:
    """Items, bytes and rate on one line of a terminal (nothing when not a terminal)."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = self.last = time.monotonic()

    def __call__(self, counts: loader.Counts) -> None:
        now = time.monotonic()
        if not self.tty or now - self.last < 0.2:
            return
        self.last = now
        rate = counts.processed / max(now - self.start, 1e-9)
        self.stream.write(f"\r{counts.processed:,} items  {counts.size / 1e6:,.1f} MB  {rate:,.0f} items/s ")
        self.stream.flush()

    def done(self) -> float:
        if self.tty:
            self.stream.write("\r" + " " * 60 + "\r")
        return time.monotonic() - self.start


def printer(limit: int = 20) -> Callable[[loader.LineError], None]:
    """One line per bad line on stderr (the first ``limit``; the summary counts them all)."""
    shown = [0]

    def show(e: loader.LineError) -> None:
        shown[0] += 1
        if shown[0] <= limit:
            print(f"dynemu: {e}", file=sys.stderr, flush=True)

    return show


# --- --init DIR -----------------------------------------------------------------------------------

_DATA_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst", ".json.gz", ".ion", ".ion.gz", ".csv", ".csv.gz")


def init_tables(namespaces: Any, settings: Settings, folder: str) -> list[str]:
    """Create the tables defined in ``folder`` that do not exist yet (a restart creates none
    again), each filled from the data beside its definition: ``NAME.json`` is filled from
    ``NAME.jsonl`` (``.jsonl.gz``, ``.json.gz``, ``.ion``, ``.csv``) or the folder ``NAME/`` (an
    export's folder or data files). Definitions at the top are created in us-east-1, those in
    a sub-folder named for a region in that region. Any bad file or line stops start-up: the
    table it was filling is dropped. Returns the names of the tables created."""
    if not os.path.isdir(folder):
        raise SeedError(f"--init {folder}: not a directory")
    created = []
    for region, path in _definitions(folder):
        definition = read_definition(path)
        db = namespaces.get(region, "")
        if db.lookup(definition["TableName"]) is not None:
            continue
        source = _seed_data(path[: -len(".json")])

        def stop(e: loader.LineError) -> None:
            raise SeedError(str(e))

        from dynemu import errors

        try:
            table, _ = seed(context(db, settings, region), definition, source, stop)
        except errors.DynamoError as e:
            raise SeedError(f"{path}: {e.type_name}: {e.message}") from None
        created.append(table.name)
    return created


def _definitions(folder: str) -> list[tuple[str, str]]:
    import re

    region = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]+")
    found = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.endswith(".json") and os.path.isfile(path):
            found.append(("us-east-1", path))
        elif os.path.isdir(path) and region.fullmatch(name):
            found.extend((name, os.path.join(path, f)) for f in sorted(os.listdir(path)) if f.endswith(".json"))
    return found


def _seed_data(stem: str) -> loader.Source | None:
    for suffix in _DATA_SUFFIXES:
        if os.path.isfile(stem + suffix):
            return file_source(stem + suffix, guess_format(stem + suffix))
    if os.path.isdir(stem):
        return file_source(stem, guess_format(stem))
    return None
