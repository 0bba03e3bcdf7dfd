"""The validators' model (api/model_cache.py): the same shapes as botocore's model, from a
cache keyed by botocore's version and model file, and a fallback when the cache is unusable."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import botocore
import botocore.session
import orjson
import pytest

from dynemu.api import model_cache
from dynemu.api.validation.validator import RequestValidator

SERVICES = ("dynamodb", "dynamodbstreams")


def _describe(shape: Any, seen: set[str]) -> Any:
    """Everything the validator compiler reads of a shape, recursively (each name once)."""
    out: dict[str, Any] = {"name": shape.name, "type": shape.type_name, "metadata": shape.metadata,
                           "required": list(shape.required_members)}  # fmt: skip
    if shape.name in seen:
        return out
    seen = seen | {shape.name}
    if shape.type_name == "structure":
        out["members"] = {n: _describe(m, seen) for n, m in shape.members.items()}
    elif shape.type_name == "list":
        out["member"] = _describe(shape.member, seen)
    elif shape.type_name == "map":
        out["key"], out["value"] = _describe(shape.key, seen), _describe(shape.value, seen)
    return out


@pytest.mark.parametrize("service", SERVICES)
def test_same_shapes_as_botocore(service: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_cache, "cache_dir", lambda: str(tmp_path))
    theirs = botocore.session.get_session().get_service_model(service)
    for ours in (model_cache.service_model(service), model_cache.service_model(service)):  # cold, then cached
        assert ours.operation_names == theirs.operation_names
        for name in theirs.operation_names:
            a, b = ours.operation_model(name), theirs.operation_model(name)
            assert a.name == b.name
            if b.input_shape is None:
                assert a.input_shape is None
            else:
                assert _describe(a.input_shape, set()) == _describe(b.input_shape, set())
    assert len(os.listdir(tmp_path)) == 1


def test_cache_is_keyed_by_botocore_and_its_model_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_cache, "cache_dir", lambda: str(tmp_path))
    model_cache.service_data("dynamodb")
    (path,) = tmp_path.iterdir()
    cached = orjson.loads(path.read_bytes())
    key = cached["key"]
    assert key[1] == botocore.__version__
    assert Path(key[2]).name.startswith("service-2.json") and "dynamodb" in key[2]
    assert key[3] == os.stat(key[2]).st_size
    # A cache file whose key does not match (another botocore) or that is damaged is not used.
    path.write_bytes(orjson.dumps({"key": [*key[:3], 0, 0], "model": {"operations": {}, "shapes": {}}}))
    assert "GetItem" in model_cache.service_data("dynamodb")["operations"]
    path.write_bytes(b"{not json")
    assert "GetItem" in model_cache.service_data("dynamodb")["operations"]
    assert orjson.loads(path.read_bytes())["key"] == key  # rewritten whole


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_cache_dir_falls_back_to_botocore(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    monkeypatch.setattr(model_cache, "cache_dir", lambda: str(locked / "dynemu"))
    assert "GetItem" in model_cache.service_data("dynamodb")["operations"]


def test_cache_dir_that_is_a_file_falls_back_to_botocore(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("x")
    monkeypatch.setattr(model_cache, "cache_dir", lambda: str(tmp_path / "file" / "dynemu"))
    assert "GetItem" in model_cache.service_data("dynamodb")["operations"]


def test_validators_from_a_cold_and_a_warm_cache_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_cache, "cache_dir", lambda: str(tmp_path))
    bodies = [{}, {"TableName": "t"}, {"TableName": "tab", "Key": {"k": {"S": ""}}, "ReturnValues": "bad"},
              {"TableName": "tab", "Limit": 0, "ExclusiveStartKey": []}]  # fmt: skip
    answers = []
    for _ in range(2):
        v = RequestValidator("dynamodb")
        seen = []
        for op in ("GetItem", "Query", "CreateTable", "ListTables"):
            for body in bodies:
                try:
                    v.validate(op, dict(body))
                    seen.append(None)
                except Exception as e:  # noqa: BLE001 - compared as text
                    seen.append(str(e))
        answers.append(seen)
    assert answers[0] == answers[1]


def test_server_start_does_not_import_botocore_once_cached(tmp_path: Path) -> None:
    """With a warm cache, building the app and answering ListTables imports no botocore."""
    code = (
        "import sys\n"
        "from dynemu.api.validation import validator as validation\n"
        "v = validation.RequestValidator('dynamodb')\n"
        "v.validate('ListTables', {})\n"
        "v.validate('GetItem', {'TableName': 'tab', 'Key': {'k': {'S': 'x'}}})\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('botocore', 'urllib3')))\n"
    )
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert first.returncode == 0, first.stderr
    assert "botocore" in first.stdout  # cold: loaded through botocore, then cached
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "[]"

