"""The dataclasses' generated code kept across starts (dynemu/codecache.py): classes built from
cached code behave exactly as compiled ones; a damaged, foreign or unwritable cache file only
costs time; the command leaves ``dataclasses`` and the garbage collector as it found them."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import marshal
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dynemu import cli, codecache
from dynemu.codecache import GeneratedCode
from tests.conftest import make_client
from tests.test_server_process import Process


def _make_classes() -> tuple[type, ...]:
    """Dataclasses with most of what dataclasses generates (defaults, factories, order,
    frozen, slots, keyword-only, InitVar, __post_init__)."""

    @dataclass(order=True)
    class Point:
        x: int
        y: int = 0
        tags: list[str] = field(default_factory=list)

    @dataclass(frozen=True, slots=True)
    class Frozen:
        name: str
        size: float = 1.5

    @dataclass(kw_only=True)
    class Keywords:
        a: int
        b: Any = None
        scale: dataclasses.InitVar[int] = 1

        def __post_init__(self, scale: int) -> None:
            self.a *= scale

    return Point, Frozen, Keywords


def _behaviour(classes: tuple[type, ...]) -> list[Any]:
    point, frozen, keywords = classes
    p, q = point(1, tags=["t"]), point(1, 2)
    f = frozen("n")
    out: list[Any] = [repr(p), p == point(1, 0, ["t"]), p < q, sorted([q, p]) == [p, q]]
    out += [repr(f), hash(f) == hash(frozen("n")), f == frozen("n", 1.5)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.name = "m"  # type: ignore[misc]
    out += [repr(keywords(a=2, scale=3)), keywords(a=1) == keywords(a=1, b=None)]
    for cls in classes:
        out.append({name: repr(value) for name, value in cls.__init__.__annotations__.items()})
        out.append(cls.__init__.__code__.co_varnames)
    return out


def _built_with(cache: GeneratedCode) -> tuple[type, ...]:
    cache.install()
    try:
        return _make_classes()
    finally:
        cache.finish()


def test_cached_code_builds_the_same_classes(tmp_path: Path) -> None:
    path = str(tmp_path / "cache" / "dataclasses.marshal")
    plain = _behaviour(_make_classes())
    cold = GeneratedCode(path)
    assert cold.code == {}
    cold_classes = _built_with(cold)
    assert os.path.isfile(path) and "exec" not in vars(dataclasses)
    warm = GeneratedCode(path)
    assert len(warm.code) >= 10
    warm.install()
    try:
        warm_classes = _make_classes()
        assert warm.compiled == 0  # every method came from the file
    finally:
        warm.finish()
    assert _behaviour(cold_classes) == plain
    assert _behaviour(warm_classes) == plain


@pytest.mark.parametrize(
    "content",
    [
        b"garbage",
        b"",
        hashlib.sha256(marshal.dumps([1, 2])).digest() + marshal.dumps([1, 2]),  # not a dict
        hashlib.sha256(marshal.dumps({"x": 1})).digest() + marshal.dumps({"x": 1}),  # not code
    ],
)
def test_damaged_or_foreign_file_is_compiled_again_and_rewritten(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "dataclasses.marshal"
    _built_with(GeneratedCode(str(path)))
    good = set(GeneratedCode(str(path)).code)
    path.write_bytes(content)
    cache = GeneratedCode(str(path))
    assert cache.code == {}
    assert _behaviour(_built_with(cache)) == _behaviour(_make_classes())
    assert set(GeneratedCode(str(path)).code) == good


def test_a_rewrite_keeps_only_what_was_used(tmp_path: Path) -> None:
    path = str(tmp_path / "dataclasses.marshal")
    cache = GeneratedCode(path)
    cache.code["def stale(): pass"] = compile("pass", "<string>", "exec")
    cache.compiled = 1  # as if this start had compiled something new
    _built_with(cache)
    kept = GeneratedCode(path).code
    assert kept and "def stale(): pass" not in kept


def test_truncated_file_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "dataclasses.marshal"
    _built_with(GeneratedCode(str(path)))
    path.write_bytes(path.read_bytes()[:-10])
    assert GeneratedCode(str(path)).code == {}


def test_unwritable_place_costs_only_time(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    path = str(blocker / "dynemu" / "dataclasses.marshal")  # under a file: cannot be created
    cache = GeneratedCode(path)
    assert _behaviour(_built_with(cache)) == _behaviour(_make_classes())
    assert GeneratedCode(path).code == {}
    assert not list(tmp_path.glob("**/.dataclasses-*"))


def test_does_not_replace_another_exec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def other(*args: Any) -> None:
        exec(*args)  # noqa: S102

    monkeypatch.setattr(dataclasses, "exec", other, raising=False)
    cache = GeneratedCode(str(tmp_path / "c"))
    cache.install()
    _make_classes()
    cache.finish()
    assert dataclasses.exec is other  # type: ignore[attr-defined]
    assert cache.code == {} and not (tmp_path / "c").exists()


def test_the_cache_file_is_named_by_the_bytecode_version(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import importlib.util

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert codecache.default_path() == str(
        tmp_path / "dynemu" / f"dataclasses-{importlib.util.MAGIC_NUMBER.hex()}.marshal"
    )


def test_a_failed_start_restores_dataclasses_and_the_collector() -> None:
    assert gc.isenabled()
    with pytest.raises(SystemExit):
        cli.main(["--in-memory", "--port", "99999"])
    assert gc.isenabled()
    assert "exec" not in vars(dataclasses)


def _serve_once(env: dict[str, str]) -> None:
    p = Process("--in-memory", env=env)
    try:
        assert "listening" in p.first_line
        assert make_client(p.url).list_tables()["TableNames"] == []
    finally:
        assert p.stop() == 0


def test_the_server_writes_then_uses_the_cache(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    _serve_once(env)
    (path,) = (tmp_path / "dynemu").glob("dataclasses-*.marshal")
    first = path.read_bytes()
    sources = set(GeneratedCode(str(path)).code)
    assert len(sources) >= 100
    _serve_once(env)
    assert path.read_bytes() == first  # nothing new was compiled: not rewritten
    path.write_bytes(b"damaged")
    _serve_once(env)
    # Compiled again and rewritten whole (without what only the first start needed: it also
    # loaded botocore's model, which is in the model cache now).
    rewritten = set(GeneratedCode(str(path)).code)
    assert len(rewritten) >= 100 and rewritten <= sources


def test_the_command_runs_with_an_unusable_cache_home(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _serve_once({"XDG_CACHE_HOME": str(blocker)})
