"""The image's HEALTHCHECK: GET / on the port dynemu listens on (200 when it serves), found
in its command line (-port N, DynamoDB Local's form, or --port N), else DYNEMU_PORT, else 8000."""

import os
import sys
import urllib.request


def port() -> str:
    try:
        with open("/proc/1/cmdline", "rb") as f:
            args = f.read().decode(errors="replace").split("\0")
    except OSError:
        args = []
    for flag in ("-port", "--port"):
        if flag in args and args.index(flag) + 1 < len(args):
            return args[args.index(flag) + 1]
    found = next((a.split("=", 1)[1] for a in args if a.startswith("--port=")), None)
    return found or os.environ.get("DYNEMU_PORT", "8000")


try:
    urllib.request.urlopen(f"http://127.0.0.1:{port()}/", timeout=2)
except Exception as e:  # noqa: BLE001 - any failure is "unhealthy"
    print(e, file=sys.stderr)
    sys.exit(1)
