"""The 100 % reference: a bare aiohttp + orjson server that only parses and answers JSON.

    python bench/baseline_server.py --port 8001

It does what any JSON-over-HTTP server must do and nothing DynamoDB-specific: read the body,
parse it with orjson, serialise a small answer and send it with the headers dynemu sends
(content type, a request id, ``x-amz-crc32``). GetItem is answered with an item of the
benchmark's shape, Query with a page of ten, BatchWriteItem with empty UnprocessedItems, anything
else with ``{}``, so both servers send bodies of the same size. Served by ``web.run_app`` with the
access log off, as dynemu is; ``--uvloop`` runs it on uvloop (a stricter floor), when installed.
"""

from __future__ import annotations

import argparse
import itertools
import os
import zlib

import orjson
from aiohttp import web
from workload import CONTENT_TYPE, sample_item, sample_query_page

_GET_ANSWER = {"Item": sample_item()}
_PAGE = sample_query_page()
_QUERY_ANSWER = {"Items": _PAGE, "Count": len(_PAGE), "ScannedCount": len(_PAGE)}
_BATCH_ANSWER: dict[str, object] = {"UnprocessedItems": {}}
_EMPTY: dict[str, object] = {}
# Answers of the same size as dynemu's, by operation; anything else gets {}.
_ANSWERS = {"GetItem": _GET_ANSWER, "Query": _QUERY_ANSWER, "BatchWriteItem": _BATCH_ANSWER}
_ids = itertools.count(1)
_ID_PREFIX = os.urandom(20).hex().upper()


async def handle(request: web.Request) -> web.Response:
    raw = await request.read()
    orjson.loads(raw)
    target = request.headers.get("X-Amz-Target", "")
    body = orjson.dumps(_ANSWERS.get(target.rpartition(".")[2], _EMPTY))
    headers = {
        "Content-Type": CONTENT_TYPE,
        "x-amzn-RequestId": f"{_ID_PREFIX}{next(_ids):012X}",
        "x-amz-crc32": str(zlib.crc32(body)),
    }
    return web.Response(body=body, headers=headers)


async def health(request: web.Request) -> web.Response:
    return web.Response(text="healthy: baseline")


def create_app() -> web.Application:
    app = web.Application()
    app.router.add_post("/", handle)
    app.router.add_get("/", health)
    return app


def main() -> None:
    p = argparse.ArgumentParser(description="bare aiohttp + orjson JSON server (benchmark reference)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8001)
    p.add_argument("--uvloop", action="store_true", help="serve on uvloop (must be installed)")
    args = p.parse_args()
    if args.uvloop:
        import uvloop

        uvloop.install()
    print(f"baseline listening on http://{args.host}:{args.port}", flush=True)
    web.run_app(create_app(), host=args.host, port=args.port, print=None, access_log=None)


if __name__ == "__main__":
    main()
