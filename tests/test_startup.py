"""Start-up of the dynemu command: each failure is one line saying what to do and exit code 2;
"listening" only once the socket accepts connections; one line on shutdown."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from dynemu import __version__
from dynemu.config import flag_actions
from tests.conftest import make_client
from tests.test_server_process import Process, free_port


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dynemu", *args],
        capture_output=True, text=True, timeout=60, env=dict(os.environ, **(env or {})),
    )


def assert_fails(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result
    assert "listening" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback
    assert lines[0].startswith("dynemu: error: ")
    for word in words:
        assert word in lines[0], lines[0]


def test_port_in_use() -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        assert_fails(run("--in-memory", "--port", str(port)), f"port {port}", "already in use", "--port")


@pytest.mark.parametrize(
    ("args", "env", "words"),
    [
        ((), {"DYNEMU_PORT": "abc"}, ("DYNEMU_PORT", "whole number", "'abc'")),
        (("--port", "99999"), {}, ("--port", "between 0 and 65535", "99999")),
        (("--port", "abc"), {}, ("--port", "invalid int value")),
        (("--capacity-model", "bogus"), {}, ("--capacity-model", "invalid choice")),
        ((), {"DYNEMU_CAPACITY_MODEL": "bogus"}, ("DYNEMU_CAPACITY_MODEL", "uniform, burst, adaptive, gac")),
        ((), {"DYNEMU_THROTTLING": "perhaps"}, ("DYNEMU_THROTTLING", "one of")),
        (("--no-such-flag",), {}, ("unrecognized arguments", "--help")),
    ],
)
def test_bad_settings(args: tuple[str, ...], env: dict[str, str], words: tuple[str, ...]) -> None:
    assert_fails(run("--in-memory", *args, env=env), *words)


def test_data_dir_under_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert_fails(run("--data-dir", str(blocker / "data")), "not writable", "--data-dir", "--in-memory")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anywhere")
def test_data_dir_without_write_permission(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o500)
    try:
        assert_fails(run("--data-dir", str(data)), "not writable")
    finally:
        data.chmod(0o700)


def test_second_process_on_an_empty_data_dir(tmp_path: Path) -> None:
    """Before the lock, the second process started and answered InternalServerError."""
    data = str(tmp_path / "empty")
    first = Process("--data-dir", data)
    try:
        second = run("--data-dir", data, "--port", str(free_port()))
        assert_fails(second, "in use by another dynemu process", f"pid {first.proc.pid}", "--data-dir")
    finally:
        assert first.stop() == 0
    again = Process("--data-dir", data)  # the lock goes with the process
    assert again.stop() == 0


def test_leveldb_lock_held_by_another_program(tmp_path: Path) -> None:
    pytest.importorskip("plyvel")
    data = tmp_path / "data"
    (data / "us-east-1").mkdir(parents=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import plyvel, sys
            db = plyvel.DB({str(data / 'us-east-1')!r}, create_if_missing=True)
            print("held", flush=True)
            sys.stdin.read()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        result = run("--data-dir", str(data), "--store", "leveldb", "--port", str(free_port()))
        assert_fails(result, "locked by another process", "--data-dir")
    finally:
        holder.communicate("", timeout=30)


def test_store_of_the_other_kind(tmp_path: Path) -> None:
    pytest.importorskip("plyvel")
    data = str(tmp_path / "data")
    Process("--data-dir", data, "--store", "sqlite").stop()  # creates no namespace yet
    p = Process("--data-dir", data, "--store", "sqlite")
    try:
        assert "store sqlite in " + data in p.first_line
        make_client(p.url).create_table(  # the first write creates the us-east-1 namespace's store
            TableName="tab", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        )
    finally:
        p.stop()
    assert_fails(run("--data-dir", data, "--store", "leveldb", "--port", str(free_port())), "--store sqlite")


def test_listening_means_bound_and_one_line_on_shutdown() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "dynemu", "--in-memory", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith(f"dynemu listening on http://127.0.0.1:{port} ; store in memory")
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # no retry needed
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert out.strip().splitlines() == ["dynemu stopped"]
    assert "Traceback" not in err


def test_port_zero_prints_the_bound_port() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "dynemu", "--in-memory", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        port = int(line.split("http://127.0.0.1:")[1].split()[0])
        assert port > 0
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)


def test_version_and_help() -> None:
    version = run("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"dynemu {__version__}"
    text = " ".join(run("--help").stdout.split())
    for name, action in flag_actions().items():
        assert action.option_strings[0] in text
        assert f"[env DYNEMU_{name.upper()}]" in text


WITHOUT_PLYVEL = "import sys; sys.modules['plyvel'] = None; from dynemu.cli import main; main()"


def test_without_plyvel_data_is_kept_in_sqlite(tmp_path: Path) -> None:
    """Where plyvel cannot be imported (no wheel, no compiler), --store auto keeps the data on
    disk in SQLite and the start-up line says so."""
    data = str(tmp_path / "data")
    for restart in range(2):
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-c", WITHOUT_PLYVEL, "--data-dir", data, "--port", str(port)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert f"store sqlite (plyvel is not installed) in {data}" in line, line
            c = make_client(f"http://127.0.0.1:{port}")
            if restart == 0:
                c.create_table(
                    TableName="kept", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                    BillingMode="PAY_PER_REQUEST",
                )
                c.put_item(TableName="kept", Item={"pk": {"S": "a"}})
            else:
                assert c.get_item(TableName="kept", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=30)
        assert proc.returncode == 0


def test_without_plyvel_leveldb_cannot_be_chosen(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_PLYVEL, "--data-dir", str(tmp_path), "--store", "leveldb"],
        capture_output=True, text=True, timeout=60,
    )
    assert_fails(result, "plyvel", "dynemu[leveldb]", "--store sqlite")


def test_plyvel_is_required_only_where_it_has_wheels() -> None:
    root = Path(__file__).resolve().parent.parent
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    deps = [Requirement(d) for d in project["dependencies"]]
    platforms = {
        ("linux", "x86_64"): True,
        ("linux", "aarch64"): False,
        ("darwin", "arm64"): False,
        ("darwin", "x86_64"): False,
        ("win32", "AMD64"): False,
    }
    for (system, machine), wanted in platforms.items():
        env = {"sys_platform": system, "platform_machine": machine}
        required = {d.name for d in deps if d.marker is None or d.marker.evaluate(env)}
        assert ("plyvel" in required) is wanted, (system, machine)
        assert {"aiohttp", "orjson", "botocore", "boto3"} <= required
    assert [Requirement(d).name for d in project["optional-dependencies"]["leveldb"]] == ["plyvel"]


def test_verify_signatures_without_credentials(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    result = subprocess.run(
        [sys.executable, "-m", "dynemu", "--in-memory", "--port", "0", "--verify-signatures"],
        capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path,
    )
    assert_fails(result, "--verify-signatures needs credentials")


def test_data_dir_is_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert_fails(run("--data-dir", str(blocker)), "is a file", "--data-dir")


def test_host_that_is_not_local() -> None:
    # 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine
    assert_fails(run("--in-memory", "--host", "192.0.2.1", "--port", "0"), "192.0.2.1", "--host")
