"""botocore's service model of DynamoDB for the request validators, without importing
botocore at start-up.

The validators (``api/validation/validator.py``) are compiled from botocore's ``service-2`` model of
``dynamodb`` and ``dynamodbstreams``. Importing ``botocore.model`` and ``botocore.loaders``
(and through them urllib3 and half of botocore) and decompressing the JSON cost more than
the rest of start-up, so the model, stripped of its documentation, is kept as plain JSON in
``$XDG_CACHE_HOME/dynemu`` (``~/.cache/dynemu``). A cache file is named by, and records,
botocore's version and the model file's path, size and modification time, so upgrading
botocore (or editing its model) makes a new one. When the cache cannot be read or written
(no home directory, a read-only file system) the model is loaded through botocore as before,
at the old cost. A model in ``~/.aws/models`` (which botocore's loader prefers) is never
cached: it is always read through botocore.

``ServiceModel`` and ``Shape`` are the small part of ``botocore.model``'s interface the
compiler reads (``name``, ``type_name``, ``metadata``, ``required_members``, ``members``,
``member``, ``key``, ``value``, an operation's ``name`` and ``input_shape``), with the same
rules: a member reference's own traits are merged over the shape it names.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
from typing import Any

import orjson

FORMAT = 1  # bump when what is cached changes
# botocore.model.Shape.METADATA_ATTRS: what ``metadata`` holds.
METADATA_ATTRS = (
    "required", "min", "max", "pattern", "sensitive", "enum", "idempotencyToken", "error", "exception",
    "endpointdiscoveryid", "retryable", "document", "union", "contextParam", "clientContextParams",
    "requiresLength",
)  # fmt: skip
_JSON_SUFFIXES = (".json", ".json.gz")  # botocore.loaders' order
_VERSION = re.compile(rb"""^__version__\s*=\s*['"]([^'"]+)['"]""", re.MULTILINE)


def cache_dir() -> str:
    """Where the stripped model is kept: ``$XDG_CACHE_HOME/dynemu``, else ``~/.cache/dynemu``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dynemu")


# --- the model ------------------------------------------------------------------------------------


class Shape:
    """One shape of the model (the parts of ``botocore.model.Shape`` the compiler reads)."""

    __slots__ = ("name", "type_name", "_model", "_resolver", "_members")

    def __init__(self, name: str, model: dict[str, Any], resolver: ServiceModel) -> None:
        self.name = name
        self.type_name: str = model["type"]
        self._model = model
        self._resolver = resolver
        self._members: dict[str, Shape] | None = None

    @property
    def metadata(self) -> dict[str, Any]:
        model = self._model
        return {attr: model[attr] for attr in METADATA_ATTRS if attr in model}

    @property
    def required_members(self) -> list[str]:
        return self.metadata.get("required", [])  # type: ignore[no-any-return]

    @property
    def members(self) -> dict[str, Shape]:
        if self._members is None:
            refs = self._model.get("members", {})
            self._members = {name: self._resolver.resolve(ref) for name, ref in refs.items()}
        return self._members

    @property
    def member(self) -> Shape:
        return self._resolver.resolve(self._model["member"])

    @property
    def key(self) -> Shape:
        return self._resolver.resolve(self._model["key"])

    @property
    def value(self) -> Shape:
        return self._resolver.resolve(self._model["value"])

    def __repr__(self) -> str:
        return f"<Shape({self.name})>"


class OperationModel:
    __slots__ = ("name", "input_shape")

    def __init__(self, name: str, input_shape: Shape | None) -> None:
        self.name = name
        self.input_shape = input_shape


class ServiceModel:
    """The operations and shapes of one service's model."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._operations: dict[str, Any] = data.get("operations", {})
        self._shapes: dict[str, Any] = data.get("shapes", {})
        self.operation_names = list(self._operations)

    def operation_model(self, name: str) -> OperationModel:
        op = self._operations[name]
        return OperationModel(op.get("name", name), self.resolve(op["input"]) if "input" in op else None)

    def output_shape(self, name: str) -> Shape | None:
        """An operation's output shape (None: it has none)."""
        op = self._operations[name]
        return self.resolve(op["output"]) if "output" in op else None

    def resolve(self, ref: dict[str, Any]) -> Shape:
        """The shape a reference names, with the reference's own traits merged over it
        (``botocore.model.ShapeResolver.resolve_shape_ref``)."""
        name = ref["shape"]
        model = self._shapes[name]
        if len(ref) > 1:
            model = {**model, **{k: v for k, v in ref.items() if k != "shape"}}
        return Shape(name, model, self)


def service_model(service: str) -> ServiceModel:
    """The model of ``service`` ("dynamodb", "dynamodbstreams"): from the cache when it holds
    this botocore's model, else loaded through botocore (and cached when possible)."""
    return ServiceModel(service_data(service))


# --- the cache ------------------------------------------------------------------------------------


def service_data(service: str) -> dict[str, Any]:
    key = _model_identity(service)
    path = os.path.join(cache_dir(), f"{service}-{_digest(key)}.json") if key is not None else None
    if path is not None:
        cached = _read(path, key)
        if cached is not None:
            return cached
    data = strip(_load_with_botocore(service))
    if path is not None:
        _write(path, key, data)
    return data


def strip(data: dict[str, Any]) -> dict[str, Any]:
    """The operations and shapes of a model without their documentation (which the
    validators never read: dropping it from a member reference merges nothing else)."""
    return {
        "operations": {name: _undocumented(op) for name, op in data.get("operations", {}).items()},
        "shapes": {name: _undocumented(shape) for name, shape in data.get("shapes", {}).items()},
    }


def _undocumented(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k == "documentation":
            continue
        if k == "members" and isinstance(v, dict):
            v = {name: _undocumented(ref) for name, ref in v.items()}
        elif k in ("member", "key", "value", "input", "output") and isinstance(v, dict):
            v = _undocumented(v)
        out[k] = v
    return out


def _model_identity(service: str) -> list[Any] | None:
    """What the cache is keyed by: botocore's version and the identity of the model file its
    loader would read; None when botocore is not found or a ~/.aws/models copy would win."""
    if os.path.isdir(os.path.join(os.path.expanduser("~"), ".aws", "models", service)):
        return None
    spec = importlib.util.find_spec("botocore")  # finds, does not import
    if spec is None or not spec.submodule_search_locations:
        return None
    root = list(spec.submodule_search_locations)[0]
    try:
        with open(os.path.join(root, "__init__.py"), "rb") as f:
            found = _VERSION.search(f.read())
        service_dir = os.path.join(root, "data", service)
        versions = sorted(
            v for v in os.listdir(service_dir)
            if any(os.path.isfile(os.path.join(service_dir, v, "service-2" + s)) for s in _JSON_SUFFIXES)
        )  # fmt: skip
        if found is None or not versions:
            return None
        for suffix in _JSON_SUFFIXES:
            model = os.path.join(service_dir, versions[-1], "service-2" + suffix)
            if os.path.isfile(model):
                st = os.stat(model)
                return [FORMAT, found.group(1).decode(), os.path.realpath(model), st.st_size, st.st_mtime_ns]
    except OSError:
        return None
    return None


def _digest(key: list[Any]) -> str:
    return hashlib.sha256(orjson.dumps(key)).hexdigest()[:20]


def _read(path: str, key: list[Any]) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as f:
            cached = orjson.loads(f.read())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(cached, dict) or cached.get("key") != key or not isinstance(cached.get("model"), dict):
        return None  # another botocore's, or damaged: load again and overwrite
    return cached["model"]  # type: ignore[no-any-return]


def _write(path: str, key: list[Any], data: dict[str, Any]) -> None:
    """Write the cache file whole (a temporary file renamed over it), or not at all."""
    import tempfile  # only when writing: with shutil, bz2 and lzma, a cost a warm start skips

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".model-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(orjson.dumps({"key": key, "model": data}))
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass  # not writable: the next start loads through botocore again


def _load_with_botocore(service: str) -> dict[str, Any]:
    """The latest ``service-2`` model of ``service``, as ``Loader.load_service_model`` gives it,
    without its listing of all ~400 installed services first. Neither service has sdk-extras
    to merge."""
    import botocore.loaders

    loader = botocore.loaders.Loader()
    version = loader.determine_latest_version(service, "service-2")
    return loader.load_data(os.path.join(service, version, "service-2"))  # type: ignore[no-any-return]
