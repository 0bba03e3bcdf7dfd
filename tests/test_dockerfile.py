"""The Dockerfile's essentials (no container engine runs here: building and running the image,
on amd64 and arm64, is left to a machine that has one)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def first(kind: str, containing: str = "") -> int:
    return next(i for i, (k, rest) in enumerate(instructions()) if k == kind and containing in rest)


def test_entrypoint_and_environment() -> None:
    ins = instructions()
    entrypoints = [rest for k, rest in ins if k == "ENTRYPOINT"]
    assert [json.loads(e) for e in entrypoints] == [["/usr/local/lib/dynemu/entrypoint.sh"]]
    assert (ROOT / "docker" / "entrypoint.sh").read_text().rstrip().endswith('exec dynemu "$@"')
    assert not [rest for k, rest in ins if k == "CMD"]  # flags after the image name reach dynemu
    env = " ".join(rest for k, rest in ins if k == "ENV")
    assert "DYNEMU_HOST=0.0.0.0" in env and "DYNEMU_DATA_DIR=/data" in env


def test_pinned_base_image() -> None:
    ins = instructions()
    args = dict(rest.split("=", 1) for k, rest in ins if k == "ARG" and "=" in rest)
    base = next(rest for k, rest in ins if k == "FROM")
    base = re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], base)
    assert re.fullmatch(r"python:\d+\.\d+\.\d+-slim-\w+(@sha256:[0-9a-f]{64})?", base), base


def test_non_root_user_owns_the_volume() -> None:
    ins = instructions()
    users = [rest for k, rest in ins if k == "USER"]
    assert users and users[-1] not in ("root", "0")
    volume = first("VOLUME")
    assert json.loads(ins[volume][1]) == ["/data"]
    chown = first("RUN", f"chown {users[-1]}")
    assert chown < volume and "/data" in ins[chown][1]  # a VOLUME's contents are fixed when declared
    assert first("USER") < volume


def test_healthcheck_gets_root_path() -> None:
    check = next(rest for k, rest in instructions() if k == "HEALTHCHECK")
    assert check.endswith('CMD ["python", "/usr/local/lib/dynemu/healthcheck.py"]')
    assert 'urlopen(f"http://127.0.0.1:{port()}/"' in (ROOT / "docker" / "healthcheck.py").read_text()
    copied = next(rest for k, rest in instructions() if k == "COPY" and "entrypoint.sh" in rest)
    assert "docker/healthcheck.py" in copied and copied.endswith("/usr/local/lib/dynemu/")


def test_dynamodb_locals_working_directory_is_writable_by_the_user() -> None:
    """-dbPath ./data, as compose files give amazon/dynamodb-local, is /home/dynamodblocal/data."""
    ins = instructions()
    workdir = [rest for k, rest in ins if k == "WORKDIR"][-1]
    assert workdir == "/home/dynamodblocal"
    chown = first("RUN", "chown dynemu")
    assert "/home/dynamodblocal/data" in ins[chown][1] and chown < first("USER")


def test_dependencies_before_source() -> None:
    ins = instructions()
    deps = first("RUN", "-c constraints.txt")
    assert first("COPY", "constraints.txt") < deps < first("COPY", "dynemu ")
    assert "--no-deps" in ins[first("RUN", "pip install --no-deps")][1]


def test_dependency_list_script() -> None:
    """What the dependency layer installs: pyproject's runtime requirements, plyvel only on
    linux/amd64 (arm64 falls back to the sqlite store: no compiler)."""
    out = subprocess.run(
        [sys.executable, "docker/requirements.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    names = [re.split(r"[<>=;\[ ]", line)[0] for line in out]
    assert {"aiohttp", "orjson", "botocore", "boto3", "plyvel"} <= set(names)
    plyvel = next(line for line in out if line.startswith("plyvel"))
    assert "platform_machine == 'x86_64'" in plyvel
