"""Command line: ``dynemu`` and ``python -m dynemu``.

Start-up failures (bad settings, a port in use, a data directory that cannot be written or
is held by another process) print one line on stderr and exit with code 2: this module is the
only one that exits the process; what it calls raises ``StartupError`` or ``SettingsError``.
The "listening" line is printed once the socket is bound and the server accepts connections;
a single line is printed on shutdown. Serving itself is ``dynemu/startup.py``'s.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Sequence

EXIT_STARTUP = 2


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["replay"]:  # `dynemu replay SCENARIO --report DIR` (dynemu/replay/)
        from dynemu.replay.cli import main as replay

        sys.exit(replay(args[1:]))
    if args[:1] == ["scenario"]:  # `dynemu scenario from-aws ...` (dynemu/replay/from_aws.py)
        from dynemu.replay.from_aws import main as scenario

        sys.exit(scenario(args[1:]))
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
    or serve's code when a store could not be closed."""
    from dynemu.config import SettingsError, load_settings
    from dynemu.startup import StartupError, lock_data_dir, serve
    from dynemu.storage import select as store_select

    try:
        settings = load_settings(argv)
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



def _fail(message: str) -> int:
    print(f"dynemu: error: {message}", file=sys.stderr, flush=True)
    return EXIT_STARTUP


if __name__ == "__main__":
    main()
