"""Command line: ``dynemu`` and ``python -m dynemu``.

Start-up failures (bad settings, a port in use, a data directory that cannot be written or
is held by another process) print one line on stderr and exit with code 2: this module is the
only one that exits the process; what it calls raises ``StartupError`` or ``SettingsError``.
The "listening" line is printed once the socket is bound and the server accepts connections;
a single line is printed on shutdown. Serving itself is ``dynemu/startup.py``'s.
"""

from __future__ import annotations

import gc
import importlib
import logging
import sys
from collections.abc import Sequence

EXIT_STARTUP = 2
# `dynemu NAME ...`: the module and function of each subcommand
SUBCOMMANDS = {
    "replay": ("dynemu.replay.cli", "main"),  # replay SCENARIO [--report DIR] (dynemu/replay/)
    "scenario": ("dynemu.replay.from_aws", "main"),  # scenario from-aws: a scenario from AWS evidence
    "import": ("dynemu.io_cli", "import_main"),  # offline seeding from an export or DynamoDB JSON
    "export": ("dynemu.io_cli", "export_main"),  # a table written in DynamoDB's export format
    "mcp": ("dynemu.mcp_server", "main"),  # a Model Context Protocol server over stdio
}


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    command = SUBCOMMANDS.get(args[0]) if args else None
    if command is not None:  # imported only when asked for: start-up never pays for them
        module, function = command
        sys.exit(getattr(importlib.import_module(module), function)(args[1:]))
    # No garbage collection while the modules load: everything they build lives as long as the
    # process (``startup.serve`` freezes it and turns the collector back on).
    gc.disable()
    try:
        code = run(argv)
    finally:
        gc.enable()
    if code:
        raise SystemExit(code)


def run(argv: Sequence[str] | None) -> int:
    """Start and serve until stopped; 0, EXIT_STARTUP after printing why it could not start,
    or serve's code when a store could not be closed. DynamoDB Local's command line
    (``-jar DynamoDBLocal.jar -sharedDb ...``) is taken as it is (``local_compat.py``)."""
    from dynemu.config import SettingsError, load_settings
    from dynemu.startup import StartupError, lock_data_dir, serve
    from dynemu.storage import select as store_select

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if _local_style(args):
            from dynemu import local_compat

            if "-help" in args:
                print(local_compat.HELP, end="")
                return 0
            args = local_compat.translate(args)
        settings = load_settings(args)
        kind = store_select.resolve(settings.store, settings.in_memory)
    except (SettingsError, store_select.StoreOpenError) as e:
        return _fail(str(e))
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    try:
        lock = lock_data_dir(settings)
    except StartupError as e:
        return _fail(str(e))
    try:
        return serve(settings, kind)
    except StartupError as e:
        return _fail(str(e))
    finally:
        if lock is not None:
            lock.release()



def _local_style(args: list[str]) -> bool:
    """A DynamoDB Local command line: an option of one dash (dynemu's own have two)."""
    return any(a.startswith("-") and not a.startswith("--") and a not in ("-h",) for a in args)


def _fail(message: str) -> int:
    print(f"dynemu: error: {message}", file=sys.stderr, flush=True)
    return EXIT_STARTUP


if __name__ == "__main__":
    main()
