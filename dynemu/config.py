"""One Settings object, built from command-line flags and DYNEMU_* environment variables.

Every flag ``--some-flag`` can also be set as ``DYNEMU_SOME_FLAG``; a flag given on the
command line wins over the environment. ``DynemuServer(some_flag=...)`` takes the same names
and the same values (the command line's text, or the Python value). The argument parser is
the one description of every setting: its types and choices convert and check all three.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NoReturn

from dynemu import __version__
from dynemu.cache import memoized

CAPACITY_MODELS = ("uniform", "burst", "adaptive", "gac")
CLOCK_MODES = ("real", "virtual")
LOG_LEVELS = ("debug", "info", "warning", "error")
STORES = ("auto", "leveldb", "sqlite")
EVENT_LOOPS = ("auto", "uvloop", "asyncio")


class SettingsError(ValueError):
    """A bad setting value; the message is one line saying what is accepted."""


@dataclass
class Settings:
    """Every setting of a server, by the names of its command-line flags (``--data-dir`` is
    ``data_dir``), with their defaults."""

    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: str = "./dynemu-data"
    in_memory: bool = False
    store: str = "auto"  # auto: LevelDB when plyvel can be imported, else sqlite
    shared_db: bool = False
    isolate_access_keys: bool = False
    log_level: str = "info"
    log_requests: str | None = None  # "-": one text line per request on stderr; else JSON lines to that file
    cors: str | None = "*"  # as DynamoDB Local; None or "off": no CORS headers
    clock: str = "real"
    time_scale: float = 1.0
    transient_delays: bool = False  # CREATING, UPDATING, DELETING last a while on the clock
    clock_start: float | None = None  # a virtual clock's first instant (epoch seconds); None: now
    capacity_model: str = "gac"
    throttling: bool = True
    partition_size: int = 10 * 1024**3
    ttl_interval: float = 60.0
    eventual_lag_ms: float = 0.0  # replication-lag model for eventually consistent reads; 0: off
    stale_read_probability: float = 0.5
    replication_lag_ms: float = 1000.0  # global tables: delay before a write reaches the other regions
    mrsc_conflict_window_ms: float = 50.0  # global tables (MRSC): a write this recent in another region conflicts
    item_collection_limit: int = 10 * 1024**3  # per partition key value, tables with an LSI
    seed: int = 0  # for the stale-read model's random choices
    max_open_namespaces: int = 64  # LevelDB namespaces kept open; the least recently used idle one closes
    leveldb_open_files: int = 49_990  # LevelDB table cache per namespace: every table file (storage/leveldb.py)
    request_timeout: float = 30.0  # seconds a client may take to send a request body
    event_loop: str = "auto"  # auto: uvloop when it is installed, else asyncio's
    admin_token: str | None = None  # when set, admin API state changes need it (Bearer)
    verify_signatures: bool = False  # check SigV4 signatures against known credentials
    credentials_file: str | None = None  # access keys and secrets for --verify-signatures
    # account limits (engine/limits.py), DynamoDB's defaults
    max_tables: int = 2500  # tables per account in a region
    max_table_operations: int = 500  # tables created, updated or deleted at once
    max_backups: int = 0  # on-demand backups per account; 0: no limit, as DynamoDB
    account_max_read: int = 80000  # provisioned read capacity units per account and region
    account_max_write: int = 80000  # provisioned write capacity units per account and region
    max_throughput_decreases: int = 4  # provisioned throughput decreases per UTC day, then one an hour
    ttl_change_seconds: float = 3600.0  # seconds between two changes of a table's TTL setting
    control_plane_throttling: bool = False  # documented rates of CreateBackup, ListBackups, ...
    s3_dir: str | None = None  # exports and imports: a folder per bucket; None: <data-dir>/s3
    s3_endpoint: str | None = None  # exports and imports through an S3-compatible server instead
    import_export_seconds: float = 1.0  # clock seconds an export or import stays IN_PROGRESS at least
    init: str | None = None  # a folder of table definitions and seed data, loaded at start-up

    def objects_root(self) -> str | None:
        """The folder of exports and imports' buckets (None: none, with --in-memory)."""
        if self.s3_dir:
            return self.s3_dir
        return None if self.in_memory else os.path.join(self.data_dir, "s3")
    extra: dict[str, str] = field(default_factory=dict)

    def namespace_mode(self) -> str:
        """How tables are separated, for the start-up line: the commonest surprise of
        DynamoDB Local is tables that 'vanish' under another region or access key."""
        if self.shared_db:
            return "shared-db (one namespace for every region and access key)"
        if self.isolate_access_keys:
            return "isolate-access-keys (one namespace per region and access key id)"
        return "per-region (one namespace per region)"


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in _TRUE:
        return True
    if t in _FALSE:
        return False
    raise ValueError(f"expected one of {'/'.join(_TRUE + _FALSE)}")


def _size(text: str) -> int:
    """Parse a byte size such as ``10GB``, ``64MB``, ``4096``."""
    units = {"kb": 1024, "mb": 1024**2, "gb": 1024**3, "k": 1024, "m": 1024**2, "g": 1024**3, "b": 1}
    t = text.strip().lower()
    for suffix, mult in sorted(units.items(), key=lambda kv: -len(kv[0])):
        if t.endswith(suffix):
            return int(float(t[: -len(suffix)]) * mult)
    return int(t)


_size.__name__ = "size"  # argparse names the type in its error: "invalid size value"


def _instant(text: str) -> float:
    """Epoch seconds, or an ISO 8601 time (``2026-01-01T00:00:00Z``; UTC unless it says)."""
    from datetime import UTC, datetime

    t = text.strip()
    try:
        return float(t)
    except ValueError:
        pass
    when = datetime.fromisoformat(t.replace("Z", "+00:00") if t.endswith("Z") else t)
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


_instant.__name__ = "instant"


class _Parser(argparse.ArgumentParser):
    building = True  # while the flags are added: see _get_formatter

    def error(self, message: str) -> NoReturn:
        # A SettingsError, as every other refused setting: the command prints it on one
        # line and exits with code 2 (library code never exits the process).
        raise SettingsError(f"{message} (see {self.prog} --help)")

    def _get_formatter(self) -> argparse.HelpFormatter:
        # add_argument builds a formatter for every flag only to check its nargs; the default
        # one imports shutil (and bz2, lzma) and asks the terminal's width each time. Help
        # and usage text, once the flags are in, get the terminal's width as before.
        if self.building:
            return self.formatter_class(prog=self.prog, width=80)  # type: ignore[call-arg]
        return super()._get_formatter()


def _server_flags(p: argparse.ArgumentParser) -> None:
    """Where the server listens, what it stores and where, its logs and CORS."""
    p.add_argument("--host", help="address to listen on; 0.0.0.0 exposes dynemu, its admin API included, to the network (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to listen on, 0 for any free port (default 8000)")
    p.add_argument("--data-dir", help="directory of the stored data, one store per namespace (default ./dynemu-data)")
    p.add_argument("--in-memory", action="store_true", default=None, help="keep everything in memory; nothing is written to disk")
    p.add_argument(
        "--store", choices=STORES,
        help="on-disk store: leveldb, sqlite (standard library), or auto: leveldb when plyvel is installed, else sqlite (default auto)",
    )
    p.add_argument("--shared-db", action="store_true", default=None, help="one namespace for every region and access key")
    p.add_argument(
        "--isolate-access-keys", action="store_true", default=None, help="one namespace per region and access key id"
    )
    p.add_argument("--log-level", choices=LOG_LEVELS, help="logging threshold (default info)")
    p.add_argument(
        "--log-requests", nargs="?", const="-", metavar="FILE",
        help="one line per request (time, region, operation, table, status, error type, consumed units, ms): "
        "to stderr as text, or to FILE as JSON lines (default off)",
    )
    p.add_argument(
        "--cors", nargs="?", const="*",
        help="allowed CORS origin (default *, as DynamoDB Local); --cors off sends no CORS headers",
    )


def _clock_flags(p: argparse.ArgumentParser) -> None:
    """The clock, and whether table operations take time on it."""
    p.add_argument("--clock", choices=CLOCK_MODES, help="real (default) or virtual (advanced by the admin API)")
    p.add_argument("--time-scale", type=float, help="virtual seconds per real second on a real clock (default 1)")
    p.add_argument(
        "--transient-delays", action="store_true", default=None,
        help="CreateTable, UpdateTable, DeleteTable and index changes take time on the clock, as on DynamoDB "
        "(DynamoDB Local's -delayTransientStatuses)",
    )
    p.add_argument(
        "--clock-start", type=_instant,
        help="a virtual clock's first instant: ISO 8601 (UTC unless it says) or epoch seconds (default: now)",
    )


def _model_flags(p: argparse.ArgumentParser) -> None:
    """The capacity model, the consistency model and global tables' replication."""
    p.add_argument(
        "--capacity-model", choices=CAPACITY_MODELS,
        help="how partitions admit requests: uniform, burst, adaptive or gac (default gac)",
    )
    p.add_argument("--throttling", choices=("on", "off"), help="off: account capacity but admit everything (default on)")
    p.add_argument("--partition-size", type=_size, help="bytes at which a partition splits (default 10GB)")
    p.add_argument("--ttl-interval", type=float, help="seconds between TTL sweeps on a real clock (default 60)")
    p.add_argument(
        "--eventual-lag-ms", type=float, help="eventually consistent reads may miss writes this recent (default 0: off)"
    )
    p.add_argument(
        "--replication-lag-ms", type=float,
        help="global tables: a write reaches the other regions' replicas this much later (default 1000)",
    )
    p.add_argument(
        "--mrsc-conflict-window-ms", type=float,
        help="global tables with strong consistency: writes to one item from two regions this close conflict (default 50)",
    )
    p.add_argument(
        "--stale-read-probability", type=float, help="chance that such a read is stale (default 0.5)"
    )
    p.add_argument(
        "--item-collection-limit", type=_size, help="item collection size limit with an LSI (default 10GB)"
    )
    p.add_argument("--seed", type=int, help="seed of the stale-read model (default 0)")


def _limit_flags(p: argparse.ArgumentParser) -> None:
    """The account's limits (engine/limits.py)."""
    p.add_argument("--max-tables", type=int, help="tables per account in a region (default 2500)")
    p.add_argument(
        "--max-table-operations", type=int, help="tables created, updated or deleted at once (default 500)"
    )
    p.add_argument("--max-backups", type=int, help="on-demand backups per account (default 0: no limit)")
    p.add_argument(
        "--account-max-read", type=int,
        help="provisioned read capacity units of all tables and GSIs per account and region (default 80000)",
    )
    p.add_argument(
        "--account-max-write", type=int,
        help="provisioned write capacity units of all tables and GSIs per account and region (default 80000)",
    )
    p.add_argument(
        "--max-throughput-decreases", type=int,
        help="provisioned throughput decreases per UTC day before one an hour (default 4)",
    )
    p.add_argument(
        "--ttl-change-seconds", type=float, help="seconds between two TTL changes of a table (default 3600)"
    )
    p.add_argument(
        "--control-plane-throttling", choices=("on", "off"),
        help="on: CreateBackup, RestoreTableFromBackup, ListBackups, DescribeLimits at their documented rates (default off)",
    )


def _io_flags(p: argparse.ArgumentParser) -> None:
    """Exports and imports, tables made at start-up, store and event-loop tuning, security."""
    p.add_argument(
        "--s3-dir", help="folder that stands for S3 in exports and imports, a sub-folder per bucket (default DATA_DIR/s3)"
    )
    p.add_argument("--s3-endpoint", help="URL of an S3-compatible server for exports and imports, instead of --s3-dir")
    p.add_argument(
        "--import-export-seconds", type=float,
        help="clock seconds an export or import stays IN_PROGRESS at least (default 1)",
    )
    p.add_argument(
        "--init", help="folder of tables created at start-up: CreateTable or describe-table JSON files, "
        "with seed data beside them (docs/import-export.md)",
    )
    p.add_argument(
        "--max-open-namespaces", type=int, help="LevelDB namespaces kept open at once; idle ones close (default 64)"
    )
    p.add_argument(
        "--leveldb-open-files", type=int,
        help="table files (4 MB each at most) each LevelDB namespace keeps in its table cache; a smaller number "
        "bounds file handles and maps, and slows random reads and writes of tables with more files than that "
        "(default 49990: every file, LevelDB's ceiling; LevelDB bounds its own handles and maps)",
    )
    p.add_argument(
        "--request-timeout", type=float, help="seconds a client may take to send a request body (default 30)"
    )
    p.add_argument(
        "--event-loop", choices=EVENT_LOOPS,
        help="event loop: uvloop, asyncio, or auto: uvloop when installed, else asyncio (default auto)",
    )
    p.add_argument("--admin-token", help="require 'Authorization: Bearer TOKEN' on admin API state changes (reads stay open)")
    p.add_argument(
        "--verify-signatures", action="store_true", default=None,
        help="check SigV4 signatures; credentials from --credentials-file or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY",
    )
    p.add_argument(
        "--credentials-file", help="credentials for --verify-signatures: an AWS credentials file or KEY:SECRET lines"
    )


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="dynemu",
        description="A local Amazon DynamoDB server that models partitions, capacity and throttling.",
        epilog="Every flag can also be set with the environment variable shown beside it; "
        "a flag on the command line wins. "
        "`dynemu replay SCENARIO [--report DIR]` replays a traffic scenario on a virtual clock "
        "(`dynemu replay --help`; docs/dashboard.md).",
    )
    p.add_argument("--version", action="version", version=f"dynemu {__version__}")
    _server_flags(p)
    _clock_flags(p)
    _model_flags(p)
    _limit_flags(p)
    _io_flags(p)
    for action in flag_actions(p).values():
        action.help = f"{action.help or ''} [env {env_name(action.dest)}]".strip()
    p.building = False
    return p


def env_name(dest: str) -> str:
    return "DYNEMU_" + dest.upper()


def flag_actions(parser: argparse.ArgumentParser | None = None) -> dict[str, argparse.Action]:
    """The settings' flags by Settings field name (``--help`` and ``--version`` left out)."""
    if parser is None:
        return dict(_default_actions())
    return {
        a.dest: a
        for a in parser._actions
        if a.option_strings and not isinstance(a, argparse._HelpAction | argparse._VersionAction)
    }


@memoized(1)
def _shared_parser() -> argparse.ArgumentParser:
    """The one parser of a process (parse_args does not change it): building it is most of
    what reading the settings costs at start-up."""
    return _parser()


@memoized(1)
def _default_actions() -> dict[str, argparse.Action]:
    return flag_actions(_shared_parser())


_DEFAULTS = Settings()
_OPTIONAL = {f.name for f in fields(Settings) if "None" in str(f.type)}  # may be set to None
_TYPE_OF_NONE_DEFAULT = {"clock_start": float}  # optional settings that are not text
_EXPECTED = {
    "instant": "an ISO 8601 time or epoch seconds",
    "int": "a whole number",
    "float": "a number",
    "size": "a size in bytes such as 4096, 64KB or 10GB",
    "bool": "one of " + ", ".join(_TRUE + _FALSE),
}


def coerce(name: str, value: Any, source: str | None = None) -> Any:
    """``value`` for the setting ``name``, from its command-line text or a Python value of
    the field's type; ``source`` names where it came from in the error."""
    action = _default_actions().get(name)
    if action is None:  # a field without a flag: taken as given
        return value
    where = source or name
    default = getattr(_DEFAULTS, name)
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                return _bool(value)
            if isinstance(value, bool):
                return value
        elif isinstance(value, str):
            value = action.type(value) if action.type is not None else value
        elif isinstance(value, os.PathLike) and isinstance(default, str):
            value = os.fspath(value)
        if (isinstance(default, float) or name in _TYPE_OF_NONE_DEFAULT) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
    except (TypeError, ValueError):
        kind = "bool" if isinstance(default, bool) else getattr(action.type, "__name__", "")
        wants = _EXPECTED.get(kind, "a valid value")
        raise SettingsError(f"{where}: expected {wants}, got {value!r}") from None
    wanted = type(default) if default is not None else _TYPE_OF_NONE_DEFAULT.get(name, str)
    if value is None and name in _OPTIONAL:
        return None
    if not isinstance(value, wanted) or (isinstance(value, bool) and wanted is not bool):
        raise SettingsError(f"{where}: expected {wanted.__name__}, got {value!r}")
    if action.choices is not None and not isinstance(value, bool) and value not in action.choices:
        raise SettingsError(f"{where}: must be one of {', '.join(map(str, action.choices))}, got {value!r}")
    return value


def check(s: Settings) -> None:
    """Range checks across the fields, with the same words whatever set them."""
    for name, action in flag_actions().items():
        value = getattr(s, name)
        if action.choices is not None and not isinstance(value, bool) and value not in action.choices:
            raise SettingsError(f"{_label(name)} must be one of {', '.join(action.choices)}, got {value!r}")
    if not 0 <= s.port <= 65535:
        raise SettingsError(f"{_label('port')} must be between 0 and 65535, got {s.port}")
    if s.time_scale <= 0:
        raise SettingsError(f"{_label('time_scale')} must be positive, got {s.time_scale}")
    if s.clock_start is not None and s.clock != "virtual":
        raise SettingsError(f"{_label('clock_start')} needs {_label('clock')} virtual")
    if s.ttl_interval <= 0:
        raise SettingsError(f"{_label('ttl_interval')} must be positive, got {s.ttl_interval}")
    if s.eventual_lag_ms < 0:
        raise SettingsError(f"{_label('eventual_lag_ms')} must be >= 0, got {s.eventual_lag_ms}")
    for name in ("replication_lag_ms", "mrsc_conflict_window_ms"):
        if getattr(s, name) < 0:
            raise SettingsError(f"{_label(name)} must be >= 0, got {getattr(s, name)}")
    if not 0 <= s.stale_read_probability <= 1:
        raise SettingsError(f"{_label('stale_read_probability')} must be between 0 and 1, got {s.stale_read_probability}")
    if s.max_open_namespaces < 1:
        raise SettingsError(f"{_label('max_open_namespaces')} must be at least 1, got {s.max_open_namespaces}")
    if s.leveldb_open_files < 1:
        raise SettingsError(f"{_label('leveldb_open_files')} must be at least 1, got {s.leveldb_open_files}")
    if s.import_export_seconds < 0:
        raise SettingsError(f"{_label('import_export_seconds')} must be >= 0, got {s.import_export_seconds}")
    if s.request_timeout <= 0:
        raise SettingsError(f"{_label('request_timeout')} must be positive, got {s.request_timeout}")
    for name in ("partition_size", "item_collection_limit", "max_tables", "max_table_operations",
                 "max_throughput_decreases", "account_max_read", "account_max_write"):
        if getattr(s, name) <= 0:
            raise SettingsError(f"{_label(name)} must be positive, got {getattr(s, name)}")


def _label(name: str) -> str:
    return f"--{name.replace('_', '-')} ({env_name(name)})"


def make_settings(values: Mapping[str, Any], base: Settings | None = None) -> Settings:
    """Settings from keyword values (``DynemuServer``'s): unknown names and bad values fail
    here, with the closest known name suggested."""
    s = base if base is not None else Settings()
    known = [f.name for f in fields(Settings) if f.name != "extra"]
    for name, value in values.items():
        if name not in known:
            import difflib  # only for a misspelt name: not on the start-up path

            hint = difflib.get_close_matches(name, known, n=1)
            more = f"; did you mean {hint[0]!r}?" if hint else f"; known: {', '.join(known)}"
            raise TypeError(f"unknown dynemu setting {name!r}{more}")
        setattr(s, name, coerce(name, value))
    check(s)
    return s


def load_settings(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Flags, then DYNEMU_* variables, then defaults. Raises SettingsError on a bad value;
    a malformed command line exits with code 2 (argparse)."""
    env = os.environ if environ is None else environ
    args = _shared_parser().parse_args(argv)
    s = Settings()
    for name, value in vars(args).items():
        if value is None:
            raw = env.get(env_name(name))
            if raw is None or raw == "":
                continue
            value = coerce(name, raw, env_name(name))
        else:
            value = coerce(name, value, "--" + name.replace("_", "-"))
        setattr(s, name, value)
    check(s)
    return s


def markdown_flag_table() -> str:
    """The README's flag table, generated from the parser (a test keeps them equal)."""
    rows = ["| flag | environment variable | meaning |", "| --- | --- | --- |"]
    for name, action in flag_actions().items():
        flag = action.option_strings[0]
        if action.choices is not None:
            flag += " " + "\\|".join(action.choices)
        elif action.nargs == "?":
            flag += f" [{action.metavar or 'VALUE'}]"
        elif action.nargs != 0:
            flag += " " + name.upper()
        text = (action.help or "").rsplit(" [env ", 1)[0]
        rows.append(f"| `{flag}` | `{env_name(name)}` | {text} |")
    return "\n".join(rows)


def write_readme_flag_table(path: str) -> None:
    """Replace the flag table of the README at ``path`` with the parser's."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    head, rest = text.split(README_TABLE_START + "\n", 1)
    _, tail = rest.split("\n" + README_TABLE_END, 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{head}{README_TABLE_START}\n{markdown_flag_table()}\n{README_TABLE_END}{tail}")


README_TABLE_START = "<!-- flags: generated by dynemu.config.markdown_flag_table -->"
README_TABLE_END = "<!-- end of flags -->"

if __name__ == "__main__":  # python -m dynemu.config README.md: regenerate the README's flag table
    import sys

    write_readme_flag_table(sys.argv[1] if len(sys.argv) > 1 else "README.md")
