"""Command line: ``dynemu`` and ``python -m dynemu``."""

from __future__ import annotations

import gc
import logging
import os
import sys
from collections.abc import Sequence

from aiohttp import web

from dynemu.api.server import create_app
from dynemu.config import load_settings


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["replay"]:  # `dynemu replay SCENARIO --report DIR` (dynemu/replay/)
        from dynemu.replay.cli import main as replay

        sys.exit(replay(args[1:]))
    settings = load_settings(argv)
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    app = create_app(settings)
    # Everything built so far (the compiled validators, the expression tables, the botocore
    # model) lives as long as the process: keep it out of the garbage collector's scans,
    # which otherwise cost every request a share of walking ~60,000 objects.
    gc.freeze()
    where = "in memory (nothing is written to disk)" if settings.in_memory else os.path.abspath(settings.data_dir)
    print(
        f"dynemu listening on http://{settings.host}:{settings.port} ; data {where} ; "
        f"namespaces {settings.namespace_mode()}",
        flush=True,
    )
    # run_app handles SIGINT/SIGTERM and runs the cleanup that closes LevelDB.
    web.run_app(app, host=settings.host, port=settings.port, print=None, access_log=None)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
