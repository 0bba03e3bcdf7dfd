"""``dynemu import PATH --table NAME`` and ``dynemu export --table NAME --to DIR``: offline,
against a data directory that no server holds (docs/import-export.md). Each prints progress
on a terminal and ends with a one-line summary; a bad line is one line naming its file, line
and field, and the import goes on; a definition or file that cannot be used stops it with one
line and exit code 2, leaving no table behind."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

EXIT_USAGE = 2
# LevelDB's memory table for ``dynemu import`` (LevelDB's default: 4 MB). Random keys make every
# table LevelDB writes out span the key range, so each one is merged into the levels below: a
# larger table means fewer merges (less background CPU) but costlier inserts in the writing
# thread (a deeper skip list, a larger working set). At 1 M items of 1 KB, 16 MB gave the
# shortest import, and 64 MB about 20 % longer, with twice the resident memory (bench/README.md).
BULK_WRITE_BUFFER = 16 * 1024 * 1024


def _parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"dynemu {prog}")
    p.add_argument("--table", required=True, help="the table's name")
    p.add_argument("--data-dir", default=os.environ.get("DYNEMU_DATA_DIR", "./dynemu-data"),
                   help="dynemu's data directory (default ./dynemu-data)")
    p.add_argument("--region", default="us-east-1", help="the table's region (default us-east-1)")
    p.add_argument("--access-key", default="", help="with --isolate-access-keys: the access key id")
    p.add_argument("--shared-db", action="store_true", help="the data directory was served with --shared-db")
    p.add_argument("--isolate-access-keys", action="store_true", help="... or with --isolate-access-keys")
    p.add_argument("--format", choices=("DYNAMODB_JSON", "ION", "CSV"), help="default: from the file names")
    return p


def _open(args: Any, write_buffer: int | None = None) -> tuple[Any, Any, Any]:
    """(lock, namespaces, namespace) of the data directory, locked against a server."""
    from dynemu.api.service import make_namespaces
    from dynemu.config import make_settings
    from dynemu.startup import lock_data_dir

    settings = make_settings({"data_dir": args.data_dir, "shared_db": args.shared_db,
                              "isolate_access_keys": args.isolate_access_keys})
    lock = lock_data_dir(settings)
    namespaces = make_namespaces(settings, leveldb_write_buffer=write_buffer)
    return lock, namespaces, namespaces.get(args.region, args.access_key)


def import_main(argv: Sequence[str]) -> int:
    from dynemu import seeding

    p = _parser("import")
    p.add_argument("path", help="an export's folder, a .json(.gz/.zst) or .jsonl file, an .ion file or a .csv")
    p.add_argument("--schema", help="CreateTable input or describe-table output (JSON) for the new table")
    p.add_argument("--key", help="without --schema: the partition key, NAME:S|N|B (an on-demand table)")
    p.add_argument("--sort-key", help="without --schema: the sort key, NAME:S|N|B")
    p.add_argument("--compression", choices=("GZIP", "ZSTD", "NONE"), help="default: from names and contents")
    p.add_argument("--csv-delimiter", default=",")
    p.add_argument("--csv-header", help="comma-separated column names, when the CSV has no header row")
    args = p.parse_args(argv)
    try:
        if args.schema:
            definition = seeding.read_definition(args.schema)
            definition["TableName"] = args.table
        elif args.key:
            definition = seeding.key_definition(args.table, args.key, args.sort_key)
        else:
            raise seeding.SeedError("--schema FILE or --key NAME:TYPE is needed to create the table")
        fmt = args.format or seeding.guess_format(args.path)
        header = args.csv_header.split(",") if args.csv_header else None
        source = seeding.file_source(args.path, fmt, args.compression, args.csv_delimiter, header)
    except seeding.SeedError as e:
        return _fail(str(e))
    return _run_import(args, definition, source)


def _run_import(args: Any, definition: dict[str, Any], source: Any) -> int:
    from dynemu import errors, seeding
    from dynemu.config import Settings
    from dynemu.startup import StartupError

    try:
        lock, namespaces, db = _open(args, BULK_WRITE_BUFFER)
    except StartupError as e:
        return _fail(str(e))
    _fewer_collections()
    progress = seeding.Progress()
    try:
        ctx = seeding.context(db, Settings(), args.region)
        table, counts = seeding.seed(ctx, definition, source, seeding.printer(), progress)
    except errors.DynamoError as e:
        return _fail(f"{args.schema or args.table}: {e.type_name}: {e.message}")
    except Exception as e:  # noqa: BLE001 - a file that cannot be read or decompressed: one line, no table
        return _fail(f"{args.path}: {type(e).__name__}: {e} (table {args.table} not created)")
    except KeyboardInterrupt:
        return _fail("interrupted: the table was not created")
    finally:
        namespaces.close()
        if lock is not None:
            lock.release()
    seconds = progress.done()
    print(f"imported {counts.imported:,} items into {table.name} ({counts.errors:,} errors, "
          f"{counts.processed:,} lines, {counts.size / 1e6:,.1f} MB) in {seconds:.1f}s, "
          f"{counts.processed / max(seconds, 1e-9):,.0f} items/s", flush=True)
    return 0


def _fewer_collections() -> None:
    """The import allocates a few dicts per line and frees them at once: the garbage
    collector's default threshold (700 allocations) ran a collection every few lines, about
    7 % of the command's CPU. What is loaded by now is kept out of the collections (``freeze``)
    and they run every 50,000 allocations; cycles are still collected. This process only."""
    import gc

    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


def export_main(argv: Sequence[str]) -> int:
    from dynemu import errors
    from dynemu.engine.exports import history, jobs, layout
    from dynemu.startup import StartupError
    from dynemu.storage.objects import LocalObjects

    p = _parser("export")
    p.add_argument("--to", required=True, help="folder to write the export into (AWSDynamoDB/<ExportId>/...)")
    args = p.parse_args(argv)
    fmt = args.format or "DYNAMODB_JSON"
    try:
        lock, namespaces, db = _open(args)
    except StartupError as e:
        return _fail(str(e))
    try:
        table = db.get(args.table, control_plane=True)
        now = db.now()
        arn = jobs.job_arn(table.spec.arn, "export", now)
        folder = os.path.abspath(args.to)
        summary = {"version": "2020-06-30", "exportArn": arn, "startTime": jobs.utc(now), "endTime": jobs.utc(now),
                   "tableArn": table.spec.arn, "tableId": table.spec.uuid, "exportTime": jobs.utc(now),
                   "s3Bucket": os.path.basename(folder), "s3Prefix": None, "s3SseAlgorithm": "AES256",
                   "s3SseKmsKeyId": None, "outputFormat": fmt}
        lines = history.table_lines(db.store, table.spec.table_id, fmt)
        written = layout.write_export(LocalObjects(os.path.dirname(folder)), os.path.basename(folder),
                                      layout.export_base(None, arn.rpartition("/")[2]), lines, summary,
                                      ".ion.gz" if fmt == "ION" else ".json.gz")
    except errors.DynamoError as e:
        return _fail(f"{args.table}: {e.message}")
    finally:
        namespaces.close()
        if lock is not None:
            lock.release()
    print(f"exported {written.items:,} items of {args.table} to {os.path.join(folder, written.manifest_key)}",
          flush=True)
    return 0


def _fail(message: str) -> int:
    print(f"dynemu: error: {message}", file=sys.stderr, flush=True)
    return EXIT_USAGE
