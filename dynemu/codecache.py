"""Compiled code of the functions ``dataclasses`` generates, kept across starts.

Every ``@dataclass`` builds its ``__init__``, ``__repr__``, ``__eq__`` ... by ``exec`` of a
source string it generates. dynemu defines about 50 dataclasses on the way to its first
answer, and parsing and compiling those ~230 strings was about a fifth of the server's
start-up instructions. While the server starts, ``dataclasses`` finds this module's
``exec`` before the builtin one: a string it has compiled before is executed from its code
object instead of being compiled again.

The cache can never be stale: an entry's key is the exact source text, and the file is named
by the interpreter's bytecode magic number, so a code object is only reused where compiling
the same text would give the same code. Compilation uses the compiler flags the text would
get inside ``dataclasses`` (its ``__future__`` imports, if any). A file that is missing,
damaged (its digest does not match) or cannot be written changes nothing but the time: the
strings are compiled as before. The file lives next to the model cache
(``$XDG_CACHE_HOME/dynemu``, see ``api/model_cache.py``).
"""

from __future__ import annotations
import __future__

import builtins
import dataclasses
import hashlib
import importlib.util
import marshal
import os
from types import CodeType
from typing import Any

_DIGEST = 32  # sha256 of the marshalled payload, first in the file


def cache_dir() -> str:
    """dynemu's cache directory: ``$XDG_CACHE_HOME/dynemu``, else ``~/.cache/dynemu``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dynemu")


def default_path() -> str:
    return os.path.join(cache_dir(), f"dataclasses-{importlib.util.MAGIC_NUMBER.hex()}.marshal")


def _module_flags(module: Any) -> int:
    """The compiler flags ``exec`` of a string inherits inside ``module`` (its __future__ imports)."""
    flags = 0
    for value in vars(module).values():
        if isinstance(value, __future__._Feature):  # type: ignore[attr-defined]
            flags |= value.compiler_flag
    return flags


class GeneratedCode:
    """While installed, ``dataclasses``' ``exec`` of source strings reuses cached code objects."""

    def __init__(self, path: str | None = None) -> None:
        self.path = default_path() if path is None else path
        self.code: dict[str, CodeType] = _read(self.path)
        self.compiled = 0  # strings compiled (not found in the cache) while installed
        self.used: set[str] = set()  # what this start executed: what a rewrite keeps
        self._flags = _module_flags(dataclasses)
        self._installed = False

    def exec(self, source: Any, globals_: Any = None, locals_: Any = None, /) -> None:
        if type(source) is not str:
            builtins.exec(source, globals_, locals_)
            return
        code = self.code.get(source)
        self.used.add(source)
        if code is None:
            code = compile(source, "<string>", "exec", self._flags, dont_inherit=True)
            self.code[source] = code
            self.compiled += 1
        builtins.exec(code, globals_, locals_)

    def install(self) -> None:
        """Shadow the builtin ``exec`` in ``dataclasses``' globals (not if something else does)."""
        if "exec" not in vars(dataclasses):
            dataclasses.exec = self.exec  # type: ignore[attr-defined]
            self._installed = True

    def uninstall(self) -> None:
        if self._installed:
            if vars(dataclasses).get("exec") == self.exec:
                del dataclasses.exec  # type: ignore[attr-defined]
            self._installed = False

    def finish(self) -> None:
        """Uninstall, and save the cache if this start compiled anything new (only what this
        start used: texts of an older dynemu do not pile up)."""
        self.uninstall()
        if self.compiled:
            _write(self.path, {source: self.code[source] for source in self.used})
        # The server lives on: drop the texts and code objects (the methods keep their own).
        self.code, self.used, self.compiled = {}, set(), 0


def _read(path: str) -> dict[str, CodeType]:
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError:
        return {}
    digest, payload = raw[:_DIGEST], raw[_DIGEST:]
    if hashlib.sha256(payload).digest() != digest:
        return {}  # damaged or truncated: compile again, and overwrite
    try:
        data = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict) or not all(
        type(k) is str and type(v) is CodeType for k, v in data.items()
    ):
        return {}
    return data


def _write(path: str, code: dict[str, CodeType]) -> None:
    """Write the file whole (a temporary file renamed over it), or not at all."""
    import tempfile

    payload = marshal.dumps(code)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".dataclasses-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(hashlib.sha256(payload).digest() + payload)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass  # not writable: the next start compiles again
