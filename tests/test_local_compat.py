"""DynamoDB Local's command line, accepted as it is (dynemu/local_compat.py), and the image's
entrypoint run outside Docker with the arguments compose files give amazon/dynamodb-local."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dynemu.config import SettingsError, load_settings
from dynemu.local_compat import translate
from tests.conftest import make_client
from tests.test_server_process import free_port

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        # the combinations of DynamoDB Local's documentation and of common compose files
        (["-jar", "DynamoDBLocal.jar", "-sharedDb", "-dbPath", "./data"], ["--shared-db", "--data-dir", "./data"]),
        (["-jar", "DynamoDBLocal.jar", "-inMemory", "-sharedDb"], ["--in-memory", "--shared-db"]),
        (["-port", "8001", "-inMemory"], ["--port", "8001", "--in-memory", "--isolate-access-keys"]),
        (["-Djava.library.path=./DynamoDBLocal_lib", "-jar", "DynamoDBLocal.jar", "-inMemory"],
         ["--in-memory", "--isolate-access-keys"]),
        (["-Xmx1g", "-jar", "DynamoDBLocal.jar", "-dbPath", "/tmp/d", "-optimizeDbBeforeStartup",
          "-delayTransientStatuses", "-disableTelemetry", "-cors", "http://a.example,http://b.example"],
         ["--data-dir", "/tmp/d", "--transient-delays", "--cors", "http://a.example,http://b.example",
          "--isolate-access-keys"]),
        (["-inMemory", "-sharedDb", "--capacity-model", "uniform"], ["--in-memory", "--shared-db", "--capacity-model", "uniform"]),
    ],
)
def test_dynamodb_local_options_become_dynemus(argv: list[str], expected: list[str]) -> None:
    assert translate(argv) == expected
    load_settings(translate(argv), environ={})  # and dynemu accepts what they become


def test_their_meanings_reach_the_settings() -> None:
    s = load_settings(translate(["-jar", "DynamoDBLocal.jar", "-sharedDb", "-dbPath", "./data", "-port", "8123"]), {})
    assert (s.shared_db, s.isolate_access_keys, s.data_dir, s.port, s.in_memory) == (True, False, "./data", 8123, False)
    s = load_settings(translate(["-inMemory"]), {})
    assert (s.in_memory, s.isolate_access_keys, s.shared_db) == (True, True, False)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-inMemory", "-dbPath", "x"], "You cannot specify both -dbPath and -inMemory"),
        (["-optimizeDbBeforeStartup", "-inMemory"], "-optimizeDbBeforeStartup needs -dbPath, so that the database files can be found"),
        (["-inMemroy"], "Unrecognized option: -inMemroy (DynamoDB Local's options: dynemu -help)"),
        (["-port"], "Missing argument for option: port"),
        (["-dbPath", "-sharedDb"], "Missing argument for option: dbPath"),
    ],
)
def test_what_dynamodb_local_refuses_is_refused(argv: list[str], message: str) -> None:
    with pytest.raises(SettingsError) as e:
        translate(argv)
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("argv", "err"),
    [
        (["-inMemory", "-dbPath", "x"], "dynemu: error: You cannot specify both -dbPath and -inMemory\n"),
        (["-bogus"], "dynemu: error: Unrecognized option: -bogus (DynamoDB Local's options: dynemu -help)\n"),
    ],
)
def test_the_command_refuses_with_one_line_and_exit_2(argv: list[str], err: str) -> None:
    done = subprocess.run([sys.executable, "-m", "dynemu", *argv], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", err)


def test_help_maps_every_option() -> None:
    done = subprocess.run([sys.executable, "-m", "dynemu", "-help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    for option in ("-cors", "-dbPath", "-delayTransientStatuses", "-disableTelemetry", "-help", "-inMemory",
                   "-optimizeDbBeforeStartup", "-port", "-sharedDb", "-jar"):
        assert option in done.stdout


def _serve_entrypoint(*args: str, cwd: Path) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, DYNEMU_HOST="127.0.0.1", PYTHONPATH=str(ROOT))
    env.pop("DYNEMU_DATA_DIR", None)
    proc = subprocess.Popen(
        ["sh", str(ROOT / "docker" / "entrypoint.sh"), *args], cwd=cwd, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, line


def _wait(port: int) -> None:
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("not listening")


def _table(url: str, key: str, region: str = "us-east-1") -> list[str]:
    return make_client(url, region=region, key=key).list_tables()["TableNames"]


def _create(url: str, key: str, region: str = "us-east-1") -> None:
    make_client(url, region=region, key=key).create_table(
        TableName="local_compat", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
    )


def test_the_entrypoint_takes_a_compose_files_shared_db_command(tmp_path: Path) -> None:
    """command: "-jar DynamoDBLocal.jar -sharedDb -dbPath ./data": data under ./data, one
    database for every access key and region, kept across a restart."""
    port = free_port()
    args = ("-jar", "DynamoDBLocal.jar", "-sharedDb", "-dbPath", "./data", "-port", str(port))
    proc, line = _serve_entrypoint(*args, cwd=tmp_path)
    try:
        assert f"http://127.0.0.1:{port}" in line and "shared-db" in line, line
        _wait(port)
        url = f"http://127.0.0.1:{port}"
        _create(url, "KEYONE")
        assert _table(url, "KEYTWO", "eu-west-1") == ["local_compat"]  # shared
    finally:
        proc.terminate()
        proc.wait(20)
    assert (tmp_path / "data").is_dir() and any((tmp_path / "data").iterdir())
    proc, line = _serve_entrypoint(*args, cwd=tmp_path)
    try:
        _wait(port)
        assert _table(f"http://127.0.0.1:{port}", "OTHER") == ["local_compat"]
    finally:
        proc.terminate()
        proc.wait(20)


def test_the_entrypoint_keeps_one_database_per_access_key_and_region_without_shared_db(tmp_path: Path) -> None:
    port = free_port()
    proc, line = _serve_entrypoint("-port", str(port), "-inMemory", cwd=tmp_path)
    try:
        assert "isolate-access-keys" in line and "in memory" in line, line
        _wait(port)
        url = f"http://127.0.0.1:{port}"
        _create(url, "KEYONE")
        assert _table(url, "KEYONE") == ["local_compat"]
        assert _table(url, "KEYTWO") == [] and _table(url, "KEYONE", "eu-west-1") == []
    finally:
        proc.terminate()
        proc.wait(20)
    assert not any(tmp_path.iterdir())  # nothing written


def test_the_healthcheck_follows_the_port_of_the_command_line(tmp_path: Path) -> None:
    port = free_port()
    proc, _ = _serve_entrypoint("-inMemory", "-sharedDb", "-port", str(port), cwd=tmp_path)
    try:
        _wait(port)
        script = (ROOT / "docker" / "healthcheck.py").read_text()
        # the check reads PID 1's command line in the container; here, this server's
        code = script.replace('"/proc/1/cmdline"', f'"/proc/{proc.pid}/cmdline"')
        ok = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30,
                            env=dict(os.environ, DYNEMU_PORT="1"))
        assert ok.returncode == 0, ok.stderr
    finally:
        proc.terminate()
        proc.wait(20)
