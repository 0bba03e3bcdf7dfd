"""Request-shape validation compiled from botocore's service models (DynamoDB and the services beside it; Coral behaviour).

DynamoDB's front end (Coral) first deserialises the JSON body against the operation's
input shape (a type mismatch is a ``SerializationException``), then checks the model's
constraints and reports up to ten failures at once::

    2 validation errors detected: Value null at 'tableName' failed to satisfy constraint:
    Member must not be null; Value '0' at 'limit' failed to satisfy constraint: ...

``RequestValidator`` compiles each operation's input shape into one checker on first use,
so a request only runs closures: no model walking. One path, Coral's two passes:

1. types, in document order (Coral parses the stream; the first mismatch wins). Unknown
   members are ignored; ``null`` members count as absent. Values Coral coerces are written
   back canonically (``"true"`` -> ``True`` for booleans, ``2.7`` -> ``2`` for integers,
   unknown/null members dropped inside AttributeValues), so operations see what DynamoDB
   sees. AttributeValue gets a hand-written checker (the hot path: Key, Item, ...), and a
   map of them is handed on as a ``values.MeasuredMap`` (``values.measure_map``).
2. constraints, in DynamoDB's member order, only through subtrees that have any; a null
   list element or map value (outside AttributeValues) is ``Member must not be null`` at
   its ``.N.member`` / ``.key.member`` path. A body that is not a JSON object is refused.

Both run in one walk of the body: each top-level member's constraints are tested as soon as
its type passed (a cheap test where there is one: an enum's set, a compiled pattern, a
MeasuredMap's size), and only a request that fails one has its messages collected, in
DynamoDB's order, after the whole body passed the type pass. Messages: the request
validation section of the catalogue, ``dynemu/errors/requests.py``.

What the service does differently from the model lives in the override tables below.
Scalar deserialisation (SerializationException) is in ``validation_scalars.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from dynemu.api import model_cache
from dynemu.api.validation import front_ends
from dynemu.api.validation.attribute_values import av_field, av_hash, av_value
from dynemu.api.validation.overrides import (
    BARE_LENGTH_MESSAGES,
    DATA_PLANE,
    DEFAULT_STRING_CHECK_ORDER,
    EARLY_MESSAGES,
    ENUM_ORDER,
    EXTRA_CONSTRAINTS,
    FIRST_ENUM_ALONE,
    JAVA_PACKAGE,
    JAVA_REGEX_FIXES,
    JSON_SHOWN_MAPS,
    MEMBER_CONSTRAINTS,
    MEMBER_ORDER,
    STRING_CHECK_ORDER,
    TABLE_KEY_CHECKS,
    TABLE_KEYS_LAST,
    TABLE_NAME_ALONE,
    TABLE_NAME_CHECKS,
    TABLE_PATTERN,
    UNCHECKED_SHAPES,
)
from dynemu.api.validation.scalars import (
    JAVA_SCALAR,
    NUMBER_TARGETS,
    check_blob,
    check_boolean,
    check_string,
    mismatch,
    number_checker,
)
from dynemu.cache import memoized
from dynemu.engine.values import MeasuredMap, measure_map
from dynemu.errors import (
    MSG_BYTE_BUFFER,
    MSG_CONSTRAINT,
    MSG_ENUM,
    MSG_MAP_KEYS,
    MSG_MAP_VALUE,
    MSG_MAX_LENGTH,
    MSG_MAX_VALUE,
    MSG_MIN_LENGTH,
    MSG_MIN_VALUE,
    MSG_NOT_NULL,
    MSG_PARAMETERIZED_CAST,
    MSG_PATTERN,
    MSG_START_OF_STRUCTURE,
    MSG_UNEXPECTED_FIELD_TYPE,
    MSG_UNEXPECTED_VALUE_TYPE,
    MSG_UNRECOGNIZED_COLLECTION,
    MSG_VALIDATION_ERRORS,
    serialization,
    unknown_operation,
    validation,
)

if TYPE_CHECKING:  # the model comes from api/model_cache.py: botocore is not imported at start-up
    import botocore.model

Checker = Callable[[Any], Any]  # type pass: returns the (possibly coerced) value
Constraint = Callable[[Any, str, list[str]], None]  # constraint pass: (value, path, errors)

MAX_ERRORS = 10  # Coral lists at most ten failures


# --- constraint messages --------------------------------------------------------------------


def _java_regex(pattern: str) -> re.Pattern[str] | None:
    """The model's Java pattern in Python syntax (None, i.e. unchecked, if it has no equivalent)."""
    for java, python in JAVA_REGEX_FIXES:
        pattern = pattern.replace(java, python)
    try:
        return re.compile(pattern, re.ASCII)  # Java's \w and \d are ASCII-only
    except re.error:
        return None


def _utf16_len(s: str) -> int:
    """Java's String.length(): UTF-16 code units."""
    return len(s) if s.isascii() else len(s.encode("utf-16-le", "surrogatepass")) // 2


def _add(errs: list[str], shown: str | None, path: str, message: str) -> None:
    if len(errs) < MAX_ERRORS:
        value = "null" if shown is None else f"'{shown}'"
        errs.append(MSG_CONSTRAINT.format(value, path, message))


def _lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]




_TABLE_RX = re.compile(TABLE_PATTERN)
_TABLE_TESTS: dict[str, tuple[Callable[[str], bool], str]] = {
    "min1": (lambda s: len(s) >= 1, MSG_MIN_LENGTH.format(1)),
    "min3": (lambda s: len(s) >= 3, MSG_MIN_LENGTH.format(3)),
    "min3+": (lambda s: not s or len(s) >= 3, MSG_MIN_LENGTH.format(3)),
    "max255": (lambda s: _utf16_len(s) <= 255, MSG_MAX_LENGTH.format(255)),
    "pattern": (lambda s: _TABLE_RX.fullmatch(s) is not None, MSG_PATTERN.format(TABLE_PATTERN)),
    "pattern+": (lambda s: not s or _TABLE_RX.fullmatch(s) is not None, MSG_PATTERN.format(TABLE_PATTERN)),
}
# A name every table-name rule accepts (most requests stop here; a match object is true).
_plain_table_name = re.compile(r"[a-zA-Z0-9_.-]{3,255}").fullmatch


def _table_name_ok(s: str) -> bool:
    """True only for names every table-name rule accepts (the others go through them all)."""
    return _plain_table_name(s) is not None or (s.startswith("arn:") and len(s) <= 512)


def _table_name_checks(order: tuple[str, ...]) -> list[tuple[Callable[[Any], bool], str]]:
    """A table name or, from "arn:", a table ARN (the model's 1..1024)."""
    checks: list[tuple[Callable[[Any], bool], str]] = []
    for c in order:
        test, message = _TABLE_TESTS[c]
        if c == "max255":
            checks.append(
                (lambda s, t=test: _utf16_len(s) <= 1024 if s.startswith("arn:") else t(s), message)
            )
        else:
            checks.append((lambda s, t=test: s.startswith("arn:") or t(s), message))
    return checks


# --- compiled nodes -------------------------------------------------------------------------


class _Node:
    """One compiled shape: type checkers for both contexts, own constraints, nested ones."""

    __slots__ = ("field", "value", "own", "bracket", "nested", "show", "precheck", "whole", "measured", "enum", "walk")

    def __init__(self) -> None:
        self.field: Checker = check_string  # as a structure member
        self.value: Checker = check_string  # as a list element or map value
        self.own: list[tuple[Callable[[Any], bool], str]] = []  # (passes, message) in DynamoDB's order
        self.bracket: list[str] = []  # own messages as listed in "Map keys/value must satisfy constraint"
        self.nested: Constraint | None = None  # checks inside a structure / list / map
        self.show: Callable[[Any], str] = str  # Java toString of a value
        # true only for values every own check accepts, and cheaper than running them
        self.precheck: Callable[[Any], Any] | None = None
        # true only for values that pass every check, own and nested (None: no such test)
        self.whole: Callable[[Any], Any] | None = None
        # a map of AttributeValues whose checks its MeasuredMap settles: (True, the longest
        # name allowed in UTF-16 units or None); else (False, None)
        self.measured: tuple[bool, int | None] = (False, None)
        self.enum: frozenset[str] | None = None  # a string whose one own check is this enum
        # a structure's type pass, also finding whether every constraint holds (a request)
        self.walk: Callable[[dict[str, Any], list[str] | None], None] | None = None

    def accepts(self) -> Callable[[Any], bool]:
        """One predicate for "passes every own check" (messages come later, on failure)."""
        if self.precheck is not None:
            return self.precheck
        preds = [passes for passes, _ in self.own]
        if len(preds) == 1:
            return preds[0]

        def ok(v: Any) -> bool:
            for passes in preds:
                if not passes(v):
                    return False
            return True

        return ok

    def constraint(self) -> Constraint | None:
        own, nested, show = self.own, self.nested, self.show
        if not own:
            return nested
        ok = self.accepts()

        def check(v: Any, path: str, errs: list[str]) -> None:
            if not ok(v):
                for passes, message in own:
                    if not passes(v):
                        _add(errs, show(v), path, message)
            if nested is not None:
                nested(v, path, errs)

        return check


def keys_msg_of(bracket: list[str]) -> str:
    return MSG_MAP_KEYS.format(", ".join(bracket))


def _show_json(v: Any) -> str:
    """A map as the request sent it, in compact JSON (the batch maps' table-name message)."""
    return orjson.dumps(v).decode()


def _show_bool(v: Any) -> str:
    return "true" if v else "false"


def _show_blob(v: Any) -> str:
    n = len(v) * 3 // 4 - v[-2:].count("=") if v else 0
    return MSG_BYTE_BUFFER.format(n, n)


class _Compiler:
    """Compiles the input shapes of one operation (each operation gets its own compiler, as
    the table-name rule depends on the operation)."""

    def __init__(self, service: str, operation: str) -> None:
        self.package = JAVA_PACKAGE.get(service, JAVA_PACKAGE["dynamodb"])
        self.operation = operation
        rule = "data" if operation in DATA_PLANE else "control"
        self.table_checks = _table_name_checks(TABLE_NAME_CHECKS.get(operation, TABLE_NAME_CHECKS[rule]))
        self.cache: dict[str, _Node] = {}
        self.active: set[str] = set()
        self.keys_last: str | None = None  # TABLE_KEYS_LAST: the table-name keys' message

    def node(self, shape: botocore.model.Shape) -> _Node:
        name = shape.name
        if name in self.cache:
            return self.cache[name]
        if name == "AttributeValue":
            node = self._attribute_value()
        else:
            if name in self.active:  # only AttributeValue is recursive in DynamoDB's model
                raise ValueError(f"recursive shape {name} in botocore model")
            self.active.add(name)
            kind = shape.type_name
            if kind == "structure":
                node = self._structure(shape)
            elif kind == "list":
                node = self._list(shape)
            elif kind == "map":
                node = self._map(shape)
            else:
                node = self._scalar(shape)
            self.active.discard(name)
            if name in UNCHECKED_SHAPES:
                node.own, node.bracket, node.nested, node.enum, node.whole = [], [], None, None, None
        self.cache[name] = node
        return node

    def java_type(self, shape: botocore.model.Shape) -> str:
        kind = shape.type_name
        if kind == "structure":
            return f"{self.package}.{shape.name}"
        if kind == "list":
            return f"java.util.List<{self.java_type(shape.member)}>"
        if kind == "map":
            return f"java.util.Map<java.lang.String, {self.java_type(shape.value)}>"
        return JAVA_SCALAR.get(kind, "java.lang.Object")

    # -- scalars

    def _scalar(self, shape: botocore.model.Shape) -> _Node:
        node = _Node()
        kind, meta = shape.type_name, shape.metadata
        if kind == "string":
            self._string_constraints(shape, node)
            return node
        if kind == "boolean":
            node.field = node.value = check_boolean
            node.show = _show_bool
        elif kind in NUMBER_TARGETS:
            node.field = node.value = number_checker(NUMBER_TARGETS[kind])
        elif kind == "blob":
            node.field = node.value = check_blob
            node.show = _show_blob
        else:
            raise ValueError(f"unsupported shape type {kind} ({shape.name})")
        if kind in ("integer", "long", "double", "float"):
            lo, hi = meta.get("min"), meta.get("max")
            if lo is not None:
                node.own.append(
                    (lambda v, lo=lo: v >= lo, MSG_MIN_VALUE.format(lo))
                )
            if hi is not None:
                node.own.append(
                    (lambda v, hi=hi: v <= hi, MSG_MAX_VALUE.format(hi))
                )
            node.bracket = [m for _, m in reversed(node.own)]
            if node.own:
                node.whole = node.accepts()
        return node

    def _string_constraints(self, shape: botocore.model.Shape, node: _Node) -> None:
        meta = {**shape.metadata, **EXTRA_CONSTRAINTS.get(shape.name, {})}
        checks: dict[str, tuple[Callable[[Any], bool], str]] = {}
        rx = _java_regex(meta["pattern"]) if "pattern" in meta else None
        if rx is not None:
            checks["pattern"] = (
                lambda v, rx=rx: rx.fullmatch(v) is not None,
                MSG_PATTERN.format(meta["pattern"]),
            )
        if meta.get("min"):
            lo = meta["min"]
            checks["min"] = (lambda v, lo=lo: _utf16_len(v) >= lo, MSG_MIN_LENGTH.format(lo))
        if "max" in meta:
            hi = meta["max"]
            checks["max"] = (lambda v, hi=hi: len(v) <= hi // 2 or _utf16_len(v) <= hi, MSG_MAX_LENGTH.format(hi))
        order = STRING_CHECK_ORDER.get(shape.name, DEFAULT_STRING_CHECK_ORDER)
        node.own = [checks[c] for c in order if c in checks]
        node.bracket = [checks[c][1] for c in ("max", "min", "pattern") if c in checks]
        if "enum" in meta:
            values = tuple(meta["enum"])
            shown = ENUM_ORDER.get(shape.name, values)
            if set(shown) != set(values):
                shown = values
            allowed = frozenset(values)
            message = MSG_ENUM.format(", ".join(shown))
            node.own.append((lambda v, allowed=allowed: v in allowed, message))
            node.bracket.append(message)
            if len(node.own) == 1:
                node.enum = allowed
        if node.own:
            node.whole = node.enum.__contains__ if node.enum is not None else node.accepts()

    # -- AttributeValue

    def _attribute_value(self) -> _Node:
        node = _Node()
        node.field, node.value = av_field, av_value
        node.show = lambda v: f"{self.package}.AttributeValue@{av_hash(v)}"
        return node

    # -- structures

    def _structure(self, shape: botocore.model.StructureShape) -> _Node:
        node = _Node()
        java = f"{self.package}.{shape.name}"
        first = MEMBER_ORDER.get(shape.name, ())
        names = [n for n in first if n in shape.members] + [n for n in shape.members if n not in first]
        required = set(shape.required_members)
        checks: list[tuple[str, str, bool, Constraint | None]] = []
        shows: list[tuple[str, str, Callable[[Any], str]]] = []
        # name -> (type checker, label, constraint check, a cheaper test it would pass,
        # *Node.measured)
        members: dict[str, tuple[Checker, str, Constraint | None, Callable[[Any], Any] | None, bool, int | None]] = {}
        for name in names:
            member = shape.members[name]
            override = MEMBER_CONSTRAINTS.get((shape.name, name))
            child = self.node(member) if override is None else self._variant(member, override)
            label = _lower_first(name)
            check, whole = self._member_constraint(name, member, child)
            members[name] = (child.field, label, check, whole, *child.measured)
            if name in required or check is not None:
                checks.append((name, label, name in required, check))
            shows.append((name, label, child.show))
        required_names = tuple(name for name, _, is_required, _ in checks if is_required)

        def walk(v: dict[str, Any], scratch: list[str] | None) -> None:
            """The type pass, in the body's order (unknown members are ignored, null ones
            are absent). With ``scratch`` (a request), whether every constraint holds too:
            each member's check runs as soon as its type passed, and the first failure (or
            a missing required member) leaves a message in ``scratch``; ``nested`` reports
            them all, in DynamoDB's order, once the whole body passed the type pass."""
            for k, x in v.items():
                entry = members.get(k)
                if entry is None or x is None:
                    continue
                check, label, constraint, whole, measured, names_max = entry
                if check is check_string:  # the commonest cases inlined: a string,
                    if type(x) is not str:
                        raise mismatch(x, "String")
                elif measured and type(x) is dict:  # a map of AttributeValues
                    v[k] = x = measure_map(x, av_value)
                    if scratch is not None and not scratch and (
                        (names_max is not None and x.size > names_max) or (x.unchecked and None in x.values())
                    ):  # its size counts each name's UTF-8 bytes, never fewer than its UTF-16 units
                        constraint(x, label, scratch)  # type: ignore[misc]
                    continue
                else:
                    nx = check(x)
                    if nx is not x:
                        v[k] = x = nx
                if scratch is not None and constraint is not None and not scratch:
                    if whole is None or not whole(x):
                        constraint(x, label, scratch)
            if scratch is not None and not scratch:
                for name in required_names:
                    if v.get(name) is None:
                        scratch.append(MSG_NOT_NULL)
                        return

        def field(v: Any) -> Any:
            if type(v) is not dict:
                if type(v) is list:
                    raise serialization(MSG_UNRECOGNIZED_COLLECTION.format(f"class {java}"))
                raise serialization(MSG_UNEXPECTED_FIELD_TYPE)
            walk(v, None)
            return v

        def value(v: Any) -> Any:
            if type(v) is not dict and type(v) is not list:
                raise serialization(MSG_UNEXPECTED_VALUE_TYPE)
            return field(v)

        def nested(v: Any, path: str, errs: list[str]) -> None:
            prefix = f"{path}." if path else ""
            for name, label, required, check in checks:
                x = v.get(name)
                if x is None:
                    if required:
                        _add(errs, None, prefix + label, MSG_NOT_NULL)
                elif check is not None:
                    check(x, prefix + label, errs)

        def show(v: Any) -> str:
            parts = (f"{label}={'null' if v.get(n) is None else s(v[n])}" for n, label, s in shows)
            return f"{shape.name}({', '.join(parts)})"

        node.field, node.value, node.show, node.walk = field, value, show, walk
        node.nested = nested if checks else None
        return node

    def _member_constraint(
        self, name: str, member: botocore.model.Shape, child: _Node
    ) -> tuple[Constraint | None, Callable[[Any], Any] | None]:
        """The member's constraint check, with the operation-specific overrides applied, and
        a cheaper test true only for values it accepts (None: run the check)."""
        if name == "TableName" and member.name == "TableArn":
            table = _Node()
            table.own, table.show, table.precheck = self.table_checks, child.show, _table_name_ok
            return table.constraint(), _plain_table_name
        if (self.operation, name) in BARE_LENGTH_MESSAGES:
            # the length rule is reported by RequestValidator before the aggregated checks
            trimmed = _Node()
            trimmed.own = [c for c in child.own if "length" not in c[1]]
            return trimmed.constraint(), None
        return child.constraint(), child.whole

    # -- collections

    def _variant(self, shape: botocore.model.Shape, constraints: dict[str, int | None]) -> _Node:
        """A node for ``shape`` compiled with other length constraints (not cached)."""
        cached = self.cache.pop(shape.name, None)
        self._length_override = constraints
        try:
            return self.node(shape)
        finally:
            self._length_override = None
            self.cache.pop(shape.name, None)
            if cached is not None:
                self.cache[shape.name] = cached

    def _length_checks(self, shape: botocore.model.Shape, node: _Node) -> None:
        meta = dict(shape.metadata)
        override = getattr(self, "_length_override", None)
        meta.update(override if override is not None else EXTRA_CONSTRAINTS.get(shape.name, {}))
        if meta.get("min"):
            node.own.append((lambda v, lo=meta["min"]: len(v) >= lo, MSG_MIN_LENGTH.format(meta["min"])))
        if meta.get("max") is not None:  # an override of None drops the model's maximum
            node.own.append((lambda v, hi=meta["max"]: len(v) <= hi, MSG_MAX_LENGTH.format(meta["max"])))
        node.bracket = [m for _, m in reversed(node.own)]

    def _list(self, shape: botocore.model.ListShape) -> _Node:
        node = _Node()
        elem = self.node(shape.member)
        elem_check, elem_constraint = elem.value, elem.constraint()

        def field(v: Any) -> Any:
            if type(v) is not list:
                raise serialization(MSG_START_OF_STRUCTURE if type(v) is dict else MSG_UNEXPECTED_FIELD_TYPE)
            for i, x in enumerate(v):
                if x is not None:
                    nx = elem_check(x)
                    if nx is not x:
                        v[i] = nx
            return v

        def value(v: Any) -> Any:
            if type(v) is not list and type(v) is not dict:
                raise serialization(MSG_PARAMETERIZED_CAST)
            return field(v)

        def nested(v: Any, path: str, errs: list[str]) -> None:
            for i, x in enumerate(v, 1):
                if x is None:  # a null element: Coral's not-null rule, element by element
                    _add(errs, None, f"{path}.{i}.member", MSG_NOT_NULL)
                elif elem_constraint is not None:
                    elem_constraint(x, f"{path}.{i}.member", errs)

        show_elem = elem.show
        node.field, node.value = field, value
        node.show = lambda v: "[" + ", ".join("null" if x is None else show_elem(x) for x in v) + "]"
        node.nested = nested
        self._length_checks(shape, node)
        return node

    def _map(self, shape: botocore.model.MapShape) -> _Node:
        node = _Node()
        val = self.node(shape.value)
        val_check = val.value
        key_node = _Node()
        if shape.name in ("BatchGetRequestMap", "BatchWriteItemRequestMap"):
            tests = _table_name_checks(TABLE_KEY_CHECKS)
            key_node.own, key_node.bracket = tests, [m for _, m in tests]
            if self.operation in TABLE_KEYS_LAST:
                self.keys_last = keys_msg_of(key_node.bracket)
        else:
            self._string_constraints(shape.key, key_node)
        key_own, val_own = key_node.own, val.own
        keys_msg = keys_msg_of(key_node.bracket)
        value_msg = MSG_MAP_VALUE.format(", ".join(val.bracket))
        val_nested = val.nested
        collection_msg = MSG_UNRECOGNIZED_COLLECTION.format(self.java_type(shape))

        if val_check is av_value:  # Key, Item, ExpressionAttributeValues: the hot path

            def field(v: Any) -> Any:
                if type(v) is dict:
                    return measure_map(v, av_value)
                if type(v) is MeasuredMap:  # one object twice in a body built in-process
                    return v
                raise serialization(collection_msg if type(v) is list else MSG_UNEXPECTED_FIELD_TYPE)

        else:

            def field(v: Any) -> Any:
                if type(v) is not dict:
                    if type(v) is MeasuredMap:  # one object twice in a body built in-process
                        return v
                    raise serialization(collection_msg if type(v) is list else MSG_UNEXPECTED_FIELD_TYPE)
                for k, x in v.items():
                    if x is not None:
                        nx = val_check(x)
                        if nx is not x:
                            v[k] = nx
                return v

        def value(v: Any) -> Any:
            if type(v) is not dict and type(v) is not list and type(v) is not MeasuredMap:
                raise serialization(MSG_PARAMETERIZED_CAST)
            return field(v)

        key_ok = key_node.accepts() if key_own else None
        val_ok = val.accepts() if val_own else None
        key_meta = shape.key.metadata
        # Attribute-name keys only have a maximum length: one C-level pass over the lengths
        # (UTF-16 length <= 2 * len) settles the common case.
        key_max = key_meta["max"] if key_ok is not None and set(key_meta) == {"max"} else None

        show_keys = _show_json if shape.name in JSON_SHOWN_MAPS else None

        def nested(v: Any, path: str, errs: list[str]) -> None:
            # DynamoDB lists failing keys first, then failing values (dynalite batchWriteItem.js)
            if key_ok is not None and not (
                key_max is not None and (not v or max(map(len, v)) * 2 <= key_max)
            ):
                for k in v:
                    if not key_ok(k):
                        _add(errs, (show_keys or node.show)(v), path, keys_msg)
            if val_ok is None and val_nested is None:
                if None in v.values():
                    for k, x in v.items():
                        if x is None:
                            _add(errs, None, f"{path}.{k}.member", MSG_NOT_NULL)
                return
            for k, x in v.items():
                if x is None:  # a null value: Coral's not-null rule, value by value
                    _add(errs, None, f"{path}.{k}.member", MSG_NOT_NULL)
                    continue
                if val_ok is not None and not val_ok(x):
                    _add(errs, node.show(v), path, value_msg)
                if val_nested is not None:
                    val_nested(x, f"{path}.{k}.member", errs)

        show_val = val.show
        node.field, node.value = field, value
        node.show = lambda v: (
            "{" + ", ".join(f"{k}={'null' if x is None else show_val(x)}" for k, x in v.items()) + "}"
        )
        node.nested = nested
        self._length_checks(shape, node)
        if not node.own and val_check is av_value and val_ok is None and val_nested is None:
            if key_ok is None or key_max is not None:
                node.measured = (True, key_max)
        return node


# --- the public API ---------------------------------------------------------------------------


def _errors_message(errs: list[str]) -> str:
    n = len(errs)
    return MSG_VALIDATION_ERRORS.format(n, "s" if n > 1 else "", "; ".join(errs))


def _compile_operation(service: str, op: botocore.model.OperationModel) -> Callable[[object], None]:
    """The one validator function of an operation, built from its compiled input shape."""
    shape = op.input_shape
    if shape is None:  # no input shape: nothing to check
        return lambda body: None
    compiler = _Compiler(service, op.name)
    node = compiler.node(shape)
    walk, constraints = node.walk, node.nested
    assert walk is not None
    top_list_msg = MSG_UNRECOGNIZED_COLLECTION.format(f"class {compiler.package}.{shape.name}")
    bare = [(member, msg) for (o, member), msg in BARE_LENGTH_MESSAGES.items() if o == op.name]
    early = [(member, when, msg) for (o, member), (when, msg) in EARLY_MESSAGES.items() if o == op.name]
    first = [(member, when, msg, _enum_of(shape, member)) for member, when, msg in early if when != "below1"]
    below1 = [(member, when, msg) for member, when, msg in early if when == "below1"]
    table_alone = compiler.table_checks if op.name in TABLE_NAME_ALONE else None
    first_enum_alone = op.name in FIRST_ENUM_ALONE
    keys_last = compiler.keys_last

    def validate(body: object) -> None:
        if type(body) is not dict:
            raise serialization(top_list_msg if type(body) is list else MSG_UNEXPECTED_FIELD_TYPE)
        scratch: list[str] = []
        walk(body, scratch)  # raises the first SerializationException, in the body's order
        for member, when, message, enum in first:
            if _early(body.get(member), when, enum, body):
                raise validation(message)
        for member, message in bare:
            v = body.get(member)
            if v is not None and not 3 <= _utf16_len(v) <= 255:
                raise validation(message)
        errs: list[str] = []
        if table_alone is not None and scratch:  # no constraint failed: nor did the table name's
            _check_table_name(body.get("TableName"), table_alone, errs)
            if errs:
                raise validation(_errors_message(errs))
        if scratch and constraints is not None:  # a constraint failed: report them all, in order
            constraints(body, "", errs)
            for member, when, message in below1:
                if len(errs) == 1 and _early(body.get(member), when):
                    raise validation(message)
            if first_enum_alone and all(_rule(e).startswith(_ENUM_RULE) for e in errs):
                del errs[1:]
            if keys_last is not None and any(not _path(e).startswith("requestItems") for e in errs):
                errs = [e for e in errs if _rule(e) != keys_last]
            raise validation(_errors_message(errs))

    return validate


_ENUM_RULE = MSG_ENUM.split("[", 1)[0]
_RULE_AFTER = "failed to satisfy constraint: "


def _rule(err: str) -> str:
    """The rule of one listed failure (after its value, which the request chose)."""
    return err.rpartition(_RULE_AFTER)[2]


def _path(err: str) -> str:
    """The member path of one listed failure."""
    return err.rpartition(_RULE_AFTER)[0].rpartition(" at '")[2]


def _early(v: Any, when: str, enum: frozenset[str] | None = None, body: dict[str, Any] | None = None) -> bool:
    """Whether a member triggers its EARLY_MESSAGES entry."""
    if when == "missing":
        return v is None
    if when == "empty":
        return v is None or v == {}
    if when.startswith("badenum"):
        if type(v) is not str or enum is None or v in enum:
            return False
        companion = when.partition(":")[2]
        return not companion or (body is not None and len(body.get(companion) or ()) >= 2)
    return isinstance(v, int | float) and not isinstance(v, bool) and v < 1  # "below1"


def _enum_of(shape: botocore.model.StructureShape, member: str) -> frozenset[str] | None:
    values = shape.members[member].metadata.get("enum") if member in shape.members else None
    return frozenset(values) if values else None


def _check_table_name(name: Any, checks: list[tuple[Callable[[Any], bool], str]], errs: list[str]) -> None:
    if name is None:
        _add(errs, None, "tableName", MSG_NOT_NULL)
    elif not _table_name_ok(name):
        for passes, message in checks:
            if not passes(name):
                _add(errs, name, "tableName", message)


class RequestValidator:
    """Shape validators for every operation of one service ("dynamodb", "dynamodbstreams", "application-autoscaling", "cloudwatch"),
    compiled from botocore's model; ``validate`` only runs the compiled closures.

    Each operation's validator is compiled on its first use (a server answering only item
    requests never compiles the ~60 control-plane shapes; start-up skips it all). Operations
    are compiled independently of each other, so the order of first uses changes nothing."""

    def __init__(self, service: str) -> None:
        self._model = model_cache.service_model(service)
        self.service = service
        self._validators: dict[str, Callable[[object], None]] = {}
        self.operations: frozenset[str] = frozenset(self._model.operation_names)

    @classmethod
    def for_service(cls, service: str) -> RequestValidator:
        """The shared validator of a service, compiled on first use."""
        return _shared(cls, service)

    def validator(self, operation: str) -> Callable[[object], None]:
        """The compiled checker of one operation (the same object on every call)."""
        check = self._validators.get(operation)
        if check is None:
            if operation not in self.operations:
                raise unknown_operation()
            check = _compile_operation(self.service, self._model.operation_model(operation))
            check = front_ends.wrap(self.service, operation, check)  # SearchVectors' own shape checks
            self._validators[operation] = check
        return check

    def validate(self, operation: str, body: object) -> None:
        """Raise DynamoDB's SerializationException or ValidationException for a bad shape."""
        self.validator(operation)(body)


@memoized(4)  # one validator per service model (DynamoDB, DynamoDB Streams)
def _shared(cls: type[RequestValidator], service: str) -> RequestValidator:
    return cls(service)
