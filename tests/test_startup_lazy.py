"""Start-up imports only what answering ListTables needs: every operation's module is imported
on the operation's first request (api/operations/registry.py), and the registry names every
operation of every operation module, once. Which modules a plain start imports is asserted
here; how long it takes is measured by bench/startup.py, never in a test."""

from __future__ import annotations

import http.client
import importlib
import pkgutil
import re
import signal
import subprocess
import sys

import dynemu.api.operations
from dynemu.api.operations import registry
from dynemu.api.protocol import DYNAMODB_PREFIX, STREAMS_PREFIX
from tests.conftest import make_client
from tests.test_server_process import free_port

# Modules a server that has answered only ListTables has no use for (each costs start-up time).
NOT_AT_START = (
    "dynemu.api.operations.items", "dynemu.api.operations.query", "dynemu.api.operations.batch",
    "dynemu.api.operations.transactions", "dynemu.api.operations.partiql", "dynemu.api.operations.vectors",
    "dynemu.api.operations.backups", "dynemu.api.operations.restores", "dynemu.api.operations.global_tables",
    "dynemu.api.operations.insights", "dynemu.api.operations.streams", "dynemu.api.operations.ttl",
    "dynemu.api.operations.exprs", "dynemu.engine.expressions", "dynemu.engine.expressions.parser",
    "dynemu.engine.partiql", "dynemu.engine.reads", "dynemu.engine.insights", "dynemu.engine.vectors.search",
    "dynemu.api.cloudwatch_wire", "dynemu.api.operations.cloudwatch", "dynemu.engine.cloudwatch.metrics", "cbor2",
    # CreateTable's, DescribeTable's and UpdateTable's: table and index definitions (ListTables has its own module)
    "dynemu.api.operations.tables", "dynemu.api.operations.index_specs", "dynemu.api.operations.vector_specs",
    "dynemu.api.operations.restore_fields", "dynemu.api.operations.policies", "dynemu.engine.ddl",
    "dynemu.engine.vectors.define",
    "dynemu.engine.resource_policies",  # enforced only with --verify-signatures
    "dynemu.engine.pitr", "dynemu.engine.backups",  # once a table exists, or at the first TTL pass
)  # fmt: skip
# Modules of the standard library and the dependencies that only some requests need.
NOT_AT_START_LIBRARIES = (
    "aiohttp", "aiohttp.web",  # the admin app comes with the first admin request
    "gzip",  # only an answer to a client that accepts gzip
    "encodings.idna",  # an ASCII --host is resolved as it is (startup.bind)
    "numpy", "plyvel", "sqlite3", "zstandard", "cbor2", "amazon",  # vectors, stores on disk, other formats
)  # fmt: skip

# ``python -m dynemu ARGS``, printing the names of the modules imported when it exits.
AS_PYTHON_M_DYNEMU = """
import atexit, runpy, sys
atexit.register(lambda: print(*(f"imported: {m}" for m in sorted(sys.modules)), sep="\\n", file=sys.stderr))
runpy.run_module("dynemu", run_name="__main__", alter_sys=True)
"""


def imported_by_server(*calls: str, paths: tuple[str, ...] = ()) -> set[str]:
    """The modules a ``python -m dynemu --in-memory`` process has imported when it stops,
    having answered ListTables, then ``calls`` (boto3 client method names), then a GET of
    each of ``paths`` (each answered 200). The first TTL pass, which imports engine.pitr, is
    put off by a day (it comes after --ttl-interval, 60 s by default, which a busy machine
    could reach before the process stops): what is asserted is what the requests import."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", AS_PYTHON_M_DYNEMU, "--in-memory", "--port", str(port), "--ttl-interval", "86400"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("dynemu listening")
        client = make_client(f"http://127.0.0.1:{port}")
        assert client.list_tables()["TableNames"] == []
        for call in calls:
            getattr(client, call)()
        for path in paths:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", path)
            assert conn.getresponse().status == 200, path
            conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err[-2000:]
    return set(re.findall(r"^imported: ([\w.]+)$", err, flags=re.MULTILINE))


def test_start_and_list_tables_import_no_other_operation() -> None:
    modules = imported_by_server()
    assert "dynemu.api.operations.list_tables" in modules  # the check sees the server's imports
    assert sorted(set(NOT_AT_START) & modules) == []
    assert sorted(set(NOT_AT_START_LIBRARIES) & modules) == []


def test_a_host_the_idna_codec_refuses_is_one_line() -> None:
    """A host name with an empty label is refused like any name that does not resolve."""
    out = subprocess.run([sys.executable, "-m", "dynemu", "--in-memory", "--port", "0", "--host", "a..b"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr == ("dynemu: error: cannot resolve --host 'a..b' (DYNEMU_HOST): give an IP address "
                          "such as 127.0.0.1 or 0.0.0.0\n")


def test_the_admin_pages_come_with_their_first_request() -> None:
    """aiohttp comes with the first admin page, and serves it."""
    modules = imported_by_server(paths=("/_dynemu/metrics", "/_dynemu/"))
    assert {"aiohttp", "ssl"} <= modules


def test_an_operation_imports_its_module_on_its_first_request() -> None:
    modules = imported_by_server("list_global_tables", "list_backups")
    assert {"dynemu.api.operations.global_tables", "dynemu.api.operations.backups"} <= modules
    assert "dynemu.api.operations.partiql" not in modules  # nor another operation's


def _operation_modules() -> dict[str, dict[str, object]]:
    """Every module of dynemu/api/operations that defines OPERATIONS: name -> OPERATIONS."""
    found = {}
    for info in pkgutil.iter_modules(dynemu.api.operations.__path__):
        module = importlib.import_module(f"dynemu.api.operations.{info.name}")
        if hasattr(module, "OPERATIONS"):
            found[info.name] = module.OPERATIONS
    return found


def test_registry_names_every_operation_once() -> None:
    modules = _operation_modules()
    listed = [op for by_module in registry._LAZY.values() for ops in by_module.values() for op in ops]
    assert len(listed) == len(set(listed))  # one module per operation
    assert set(listed) == {op for ops in modules.values() for op in ops}  # none forgotten
    for by_module in registry._LAZY.values():
        for module, ops in by_module.items():
            assert set(ops) <= set(modules[module]), module  # each where it is defined
    # tables.py's DescribeTable, UpdateTable and DeleteTable are wrapped by global_tables.py's.
    assert {"DescribeTable", "UpdateTable", "DeleteTable"} <= set(registry._LAZY[DYNAMODB_PREFIX]["global_tables"])
    assert set(registry._LAZY[STREAMS_PREFIX]) == {"streams"}
    assert set(registry.handlers()[STREAMS_PREFIX]) == set(modules["streams"])


def test_expressions_leave_the_recursion_limit_alone() -> None:
    """Importing the expression engine changes no process-wide setting, and its deepest text
    (MAX_DEPTH groups) parses within the interpreter's default recursion limit."""
    script = """
import sys
limit = sys.getrecursionlimit()
from dynemu.engine.expressions import parser
assert sys.getrecursionlimit() == limit == 1000, sys.getrecursionlimit()
depth = parser.MAX_DEPTH
for text in ("(" * depth + "a = :v" + ")" * depth, "NOT (" * (depth // 2) + "a = :v" + ")" * (depth // 2),
             "(" * depth + "a" + ")" * depth + " = :v", "size(" * (depth - 1) + "a" + ")" * (depth - 1) + " = :v"):
    parser.parse_condition(text)
parser.parse_update("SET a = " + "(" * depth + ":v" + ")" * depth)
try:
    parser.parse_condition("(" * (depth + 1) + "a = :v" + ")" * (depth + 1))
except parser.ParseError as e:
    print(e.detail)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == 'Syntax error; token: "(", near: "((a"\n'
