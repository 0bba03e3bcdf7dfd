"""One Settings object, built from command-line flags and DYNEMU_* environment variables.

Every flag ``--some-flag`` can also be set as ``DYNEMU_SOME_FLAG``; a flag given on the
command line wins over the environment.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

CAPACITY_MODELS = ("uniform", "burst", "adaptive", "gac")
CLOCK_MODES = ("real", "virtual")
LOG_LEVELS = ("debug", "info", "warning", "error")


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: str = "./dynemu-data"
    in_memory: bool = False
    shared_db: bool = False
    isolate_access_keys: bool = False
    log_level: str = "info"
    cors: str | None = "*"  # as DynamoDB Local; None or "off": no CORS headers
    clock: str = "real"
    time_scale: float = 1.0
    capacity_model: str = "gac"
    throttling: bool = True
    partition_size: int = 10 * 1024**3
    ttl_interval: float = 60.0
    eventual_lag_ms: float = 0.0  # replication-lag model for eventually consistent reads; 0: off
    stale_read_probability: float = 0.5
    item_collection_limit: int = 10 * 1024**3  # per partition key value, tables with an LSI
    seed: int = 0  # for the stale-read model's random choices
    max_open_namespaces: int = 64  # LevelDB namespaces kept open; the least recently used idle one closes
    request_timeout: float = 30.0  # seconds a client may take to send a request body
    admin_token: str | None = None  # when set, the admin API's state changes need it (Bearer)
    verify_signatures: bool = False  # check SigV4 signatures against known credentials
    credentials_file: str | None = None  # access keys and secrets for --verify-signatures
    extra: dict[str, str] = field(default_factory=dict)

    def namespace_mode(self) -> str:
        """How tables are separated, for the start-up line: the commonest surprise of
        DynamoDB Local is tables that 'vanish' under another region or access key."""
        if self.shared_db:
            return "shared-db (one namespace for every region and access key)"
        if self.isolate_access_keys:
            return "isolate-access-keys (one namespace per region and access key id)"
        return "per-region (one namespace per region)"


def _env_bool(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def _size(text: str) -> int:
    """Parse a byte size such as ``10GB``, ``64MB``, ``4096``."""
    units = {"kb": 1024, "mb": 1024**2, "gb": 1024**3, "k": 1024, "m": 1024**2, "g": 1024**3, "b": 1}
    t = text.strip().lower()
    for suffix, mult in sorted(units.items(), key=lambda kv: -len(kv[0])):
        if t.endswith(suffix):
            return int(float(t[: -len(suffix)]) * mult)
    return int(t)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dynemu",
        description="A local Amazon DynamoDB server that models partitions, capacity and throttling.",
    )
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to listen on (default 8000)")
    p.add_argument("--data-dir", help="where LevelDB databases live (default ./dynemu-data)")
    p.add_argument("--in-memory", action="store_true", default=None, help="keep everything in memory")
    p.add_argument("--shared-db", action="store_true", default=None, help="one namespace for all regions")
    p.add_argument(
        "--isolate-access-keys", action="store_true", default=None, help="separate namespaces per access key id"
    )
    p.add_argument("--log-level", choices=LOG_LEVELS)
    p.add_argument(
        "--cors", nargs="?", const="*",
        help="allowed CORS origin (default *, as DynamoDB Local); --cors off sends no CORS headers",
    )
    p.add_argument("--clock", choices=CLOCK_MODES, help="real (default) or virtual (advanced by the admin API)")
    p.add_argument("--time-scale", type=float, help="virtual seconds per real second (real clock)")
    p.add_argument("--capacity-model", choices=CAPACITY_MODELS)
    p.add_argument("--throttling", choices=("on", "off"), help="off: account capacity but admit everything")
    p.add_argument("--partition-size", type=_size, help="bytes at which a partition splits (default 10GB)")
    p.add_argument("--ttl-interval", type=float, help="seconds between TTL sweeps")
    p.add_argument(
        "--eventual-lag-ms", type=float, help="eventually consistent reads may miss writes this recent (0: off)"
    )
    p.add_argument(
        "--stale-read-probability", type=float, help="chance that such a read is stale (default 0.5)"
    )
    p.add_argument(
        "--item-collection-limit", type=_size, help="item collection size limit with an LSI (default 10GB)"
    )
    p.add_argument("--seed", type=int, help="seed of the stale-read model (default 0)")
    p.add_argument(
        "--max-open-namespaces", type=int, help="LevelDB namespaces kept open at once; idle ones close (default 64)"
    )
    p.add_argument(
        "--request-timeout", type=float, help="seconds a client may take to send a request body (default 30)"
    )
    p.add_argument("--admin-token", help="require 'Authorization: Bearer TOKEN' for admin API state changes")
    p.add_argument(
        "--verify-signatures", action="store_true", default=None,
        help="check SigV4 signatures; credentials from --credentials-file or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY",
    )
    p.add_argument(
        "--credentials-file", help="credentials for --verify-signatures: an AWS credentials file or KEY:SECRET lines"
    )
    return p


def load_settings(argv: Sequence[str] | None = None, environ: dict[str, str] | None = None) -> Settings:
    env = os.environ if environ is None else environ
    args = _parser().parse_args(argv)
    s = Settings()
    converters = {
        "port": int,
        "in_memory": _env_bool,
        "shared_db": _env_bool,
        "isolate_access_keys": _env_bool,
        "time_scale": float,
        "partition_size": _size,
        "ttl_interval": float,
        "eventual_lag_ms": float,
        "stale_read_probability": float,
        "item_collection_limit": _size,
        "seed": int,
        "max_open_namespaces": int,
        "request_timeout": float,
        "verify_signatures": _env_bool,
        "throttling": lambda v: v,
    }
    for name in vars(args):
        value = getattr(args, name)
        if value is None:
            raw = env.get("DYNEMU_" + name.upper())
            if raw is None or raw == "":
                continue
            value = converters.get(name, str)(raw)
        setattr(s, name, value)
    if isinstance(s.throttling, str):
        s.throttling = s.throttling.strip().lower() not in ("off", "0", "false", "no")
    if s.capacity_model not in CAPACITY_MODELS:
        raise SystemExit(f"dynemu: --capacity-model must be one of {', '.join(CAPACITY_MODELS)}")
    if s.clock not in CLOCK_MODES:
        raise SystemExit(f"dynemu: --clock must be one of {', '.join(CLOCK_MODES)}")
    if s.time_scale <= 0:
        raise SystemExit("dynemu: --time-scale must be positive")
    if s.eventual_lag_ms < 0:
        raise SystemExit("dynemu: --eventual-lag-ms must be >= 0")
    if not 0 <= s.stale_read_probability <= 1:
        raise SystemExit("dynemu: --stale-read-probability must be between 0 and 1")
    if s.partition_size <= 0 or s.item_collection_limit <= 0:
        raise SystemExit("dynemu: sizes must be positive")
    return s
