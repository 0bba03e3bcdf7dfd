"""Request-shape validation compiled from botocore's model of DynamoDB (Coral behaviour).

DynamoDB's front end (Coral) first deserialises the JSON body against the operation's
input shape (a type mismatch is a ``SerializationException``), then checks the model's
constraints and reports up to ten failures at once::

    2 validation errors detected: Value null at 'tableName' failed to satisfy constraint:
    Member must not be null; Value '0' at 'limit' failed to satisfy constraint: ...

``RequestValidator`` turns every operation's input shape into one checker at start-up, so
a request only runs closures: no model walking. Two passes, as Coral does them:

1. types, in document order (Coral parses the stream; the first mismatch wins). Unknown
   members are ignored; ``null`` members count as absent. Values Coral coerces are written
   back canonically (``"true"`` -> ``True`` for booleans, ``2.7`` -> ``2`` for integers,
   unknown/null members dropped inside AttributeValues), so operations see what DynamoDB
   sees. AttributeValue gets a hand-written checker (the hot path: Key, Item, ...).
2. constraints, in DynamoDB's member order, only through subtrees that have any; a null
   list element or map value (outside AttributeValues) is ``Member must not be null`` at
   its ``.N.member`` / ``.key.member`` path. A body that is not a JSON object is refused.

What the service does differently from the model lives in the override tables below.
Scalar deserialisation (SerializationException) is in ``validation_scalars.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from dynemu.api import model_cache
from dynemu.api.validation_av import (
    Failed,
    Quick,
    av_field,
    av_hash,
    av_map,
    av_value,
    quick_av_map,
    quick_scalar,
    quick_string_map,
)
from dynemu.api.validation_overrides import (
    BARE_LENGTH_MESSAGES,
    DATA_PLANE,
    DEFAULT_STRING_CHECK_ORDER,
    EARLY_MESSAGES,
    ENUM_ORDER,
    EXTRA_CONSTRAINTS,
    JAVA_PACKAGE,
    JAVA_REGEX_FIXES,
    MEMBER_CONSTRAINTS,
    MEMBER_ORDER,
    STRING_CHECK_ORDER,
    TABLE_KEY_CHECKS,
    TABLE_NAME_ALONE,
    TABLE_NAME_CHECKS,
    TABLE_PATTERN,
    UNCHECKED_SHAPES,
)
from dynemu.api.validation_scalars import (
    JAVA_SCALAR,
    MSG_FIELD_TYPE,
    MSG_PARAMETERIZED,
    MSG_STRUCT_START,
    MSG_VALUE_TYPE,
    NUMBER_TARGETS,
    check_blob,
    check_boolean,
    check_string,
    mismatch,
    number_checker,
)
from dynemu.engine.values import CheckedItem
from dynemu.errors import serialization, unknown_operation, validation

if TYPE_CHECKING:  # the model comes from api/model_cache.py: botocore is not imported at start-up
    import botocore.model

Checker = Callable[[Any], Any]  # type pass: returns the (possibly coerced) value
Constraint = Callable[[Any, str, list[str]], None]  # constraint pass: (value, path, errors)

MAX_ERRORS = 10  # Coral lists at most ten failures
# A quick check of a string member: (the values known to pass: an enum's, or those that
# passed ``passes`` before, at most MAX_KNOWN; ``passes``), or (None, None) for any string;
# of another member: (None, None, its validation_av check).
QuickMember = tuple[Any, Callable[[Any], bool] | None, Quick | None]
MAX_KNOWN = 256  # table names, index names: an application uses a few


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
        errs.append(f"Value {value} at '{path}' failed to satisfy constraint: {message}")


def _lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


MIN_LEN = "Member must have length greater than or equal to {}"
MAX_LEN = "Member must have length less than or equal to {}"
PATTERN = "Member must satisfy regular expression pattern: {}"
NOT_NULL = "Member must not be null"


_TABLE_RX = re.compile(TABLE_PATTERN)
_TABLE_TESTS: dict[str, tuple[Callable[[str], bool], str]] = {
    "min1": (lambda s: len(s) >= 1, MIN_LEN.format(1)),
    "min3": (lambda s: len(s) >= 3, MIN_LEN.format(3)),
    "max255": (lambda s: _utf16_len(s) <= 255, MAX_LEN.format(255)),
    "pattern": (lambda s: _TABLE_RX.fullmatch(s) is not None, PATTERN.format(TABLE_PATTERN)),
    "pattern+": (lambda s: not s or _TABLE_RX.fullmatch(s) is not None, PATTERN.format(TABLE_PATTERN)),
}
_TABLE_NAME_FAST = re.compile(r"[a-zA-Z0-9_.-]{3,255}")


def _table_name_fast(s: str) -> bool:
    """True for the names every table-name rule accepts (most requests stop here)."""
    return _TABLE_NAME_FAST.fullmatch(s) is not None or (s.startswith("arn:") and len(s) <= 512)


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

    __slots__ = ("field", "value", "own", "bracket", "nested", "show", "fast", "quick", "enum", "quick_members")

    def __init__(self) -> None:
        self.field: Checker = check_string  # as a structure member
        self.value: Checker = check_string  # as a list element or map value
        self.own: list[tuple[Callable[[Any], bool], str]] = []  # (passes, message) in DynamoDB's order
        self.bracket: list[str] = []  # own messages as listed in "Map keys/value must satisfy constraint"
        self.nested: Constraint | None = None  # checks inside a structure / list / map
        self.show: Callable[[Any], str] = str  # Java toString of a value
        self.fast: Callable[[Any], bool] | None = None  # a quicker equivalent of all(own)
        self.quick: Quick | None = None  # the type pass and every check at once (validation_av)
        self.enum: frozenset[str] | None = None  # a string whose one own check is this enum
        # a structure's members with a quick check: name -> QuickMember
        self.quick_members: dict[str, QuickMember] = {}

    def accepts(self) -> Callable[[Any], bool]:
        """One predicate for "passes every own check" (the fast path; messages come later)."""
        if self.fast is not None:
            return self.fast
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


def _show_bool(v: Any) -> str:
    return "true" if v else "false"


def _show_blob(v: Any) -> str:
    n = len(v) * 3 // 4 - v[-2:].count("=") if v else 0
    return f"java.nio.HeapByteBuffer[pos=0 lim={n} cap={n}]"


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
                node.own, node.bracket, node.nested, node.enum = [], [], None, None
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
            node.quick = quick_scalar(bool, None)
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
                    (lambda v, lo=lo: v >= lo, f"Member must have value greater than or equal to {lo}")
                )
            if hi is not None:
                node.own.append(
                    (lambda v, hi=hi: v <= hi, f"Member must have value less than or equal to {hi}")
                )
            node.bracket = [m for _, m in reversed(node.own)]
        if kind in ("integer", "long"):
            node.quick = quick_scalar(int, node.accepts() if node.own else None)
        return node

    def _string_constraints(self, shape: botocore.model.Shape, node: _Node) -> None:
        meta = {**shape.metadata, **EXTRA_CONSTRAINTS.get(shape.name, {})}
        checks: dict[str, tuple[Callable[[Any], bool], str]] = {}
        rx = _java_regex(meta["pattern"]) if "pattern" in meta else None
        if rx is not None:
            checks["pattern"] = (
                lambda v, rx=rx: rx.fullmatch(v) is not None,
                PATTERN.format(meta["pattern"]),
            )
        if meta.get("min"):
            lo = meta["min"]
            checks["min"] = (lambda v, lo=lo: _utf16_len(v) >= lo, MIN_LEN.format(lo))
        if "max" in meta:
            hi = meta["max"]
            checks["max"] = (lambda v, hi=hi: len(v) <= hi // 2 or _utf16_len(v) <= hi, MAX_LEN.format(hi))
        order = STRING_CHECK_ORDER.get(shape.name, DEFAULT_STRING_CHECK_ORDER)
        node.own = [checks[c] for c in order if c in checks]
        node.bracket = [checks[c][1] for c in ("max", "min", "pattern") if c in checks]
        if "enum" in meta:
            values = tuple(meta["enum"])
            shown = ENUM_ORDER.get(shape.name, values)
            if set(shown) != set(values):
                shown = values
            allowed = frozenset(values)
            message = f"Member must satisfy enum value set: [{', '.join(shown)}]"
            node.own.append((lambda v, allowed=allowed: v in allowed, message))
            node.bracket.append(message)
            if len(node.own) == 1:
                node.enum = allowed

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
        types: dict[str, Checker] = {}
        checks: list[tuple[str, str, bool, Constraint | None]] = []
        shows: list[tuple[str, str, Callable[[Any], str]]] = []
        for name in names:
            member = shape.members[name]
            override = MEMBER_CONSTRAINTS.get((shape.name, name))
            child = self.node(member) if override is None else self._variant(member, override)
            types[name] = child.field
            label = _lower_first(name)
            check = self._member_constraint(name, member, child)
            quick = self._member_quick(name, member, child)
            if quick is not None:
                node.quick_members[name] = quick
            if name in required or check is not None:
                checks.append((name, label, name in required, check))
            shows.append((name, label, child.show))

        def field(v: Any) -> Any:
            if type(v) is not dict:
                if type(v) is list:
                    raise serialization(f"Unrecognized collection type class {java}")
                raise serialization(MSG_FIELD_TYPE)
            for k, x in v.items():
                check = types.get(k)
                if check is None or x is None:
                    continue  # unknown members are ignored, null ones are absent
                if check is check_string:  # the common case, inlined
                    if type(x) is not str:
                        raise mismatch(x, "String")
                    continue
                nx = check(x)
                if nx is not x:
                    v[k] = nx
            return v

        def value(v: Any) -> Any:
            if type(v) is not dict and type(v) is not list:
                raise serialization(MSG_VALUE_TYPE)
            return field(v)

        required_names = tuple(name for name, _, required, _ in checks if required)
        member_checks = {name: (label, check) for name, label, _, check in checks if check is not None}

        def passes(v: Any) -> bool:
            """Whether ``nested`` reports nothing, found in the body's order: only the members
            present are looked at (most requests; the others are reported in order below)."""
            for name in required_names:
                if v.get(name) is None:
                    return False
            scratch: list[str] = []
            for k, x in v.items():
                entry = member_checks.get(k)
                if entry is not None and x is not None:
                    entry[1](x, entry[0], scratch)  # type: ignore[misc]
                    if scratch:
                        return False
            return True

        def nested(v: Any, path: str, errs: list[str]) -> None:
            if passes(v):
                return
            prefix = f"{path}." if path else ""
            for name, label, required, check in checks:
                x = v.get(name)
                if x is None:
                    if required:
                        _add(errs, None, prefix + label, NOT_NULL)
                elif check is not None:
                    check(x, prefix + label, errs)

        def show(v: Any) -> str:
            parts = (f"{label}={'null' if v.get(n) is None else s(v[n])}" for n, label, s in shows)
            return f"{shape.name}({', '.join(parts)})"

        node.field, node.value, node.show = field, value, show
        node.nested = nested if checks else None
        return node

    def _member_constraint(self, name: str, member: botocore.model.Shape, child: _Node) -> Constraint | None:
        """The member's constraint check, with the operation-specific overrides applied."""
        if name == "TableName" and member.name == "TableArn":
            table = _Node()
            table.own, table.show, table.fast = self.table_checks, child.show, _table_name_fast
            return table.constraint()
        if (self.operation, name) in BARE_LENGTH_MESSAGES:
            # the length rule is reported by RequestValidator before the aggregated checks
            trimmed = _Node()
            trimmed.own = [c for c in child.own if "length" not in c[1]]
            return trimmed.constraint()
        return child.constraint()

    def _member_quick(self, name: str, member: botocore.model.Shape, child: _Node) -> QuickMember | None:
        """The member's quick check (validation_av), matching ``_member_constraint``."""
        if name == "TableName" and member.name == "TableArn":
            return set(), _table_name_fast, None
        if (self.operation, name) in BARE_LENGTH_MESSAGES:
            return None
        if child.field is check_string:
            if child.enum is not None:
                return child.enum, None, None
            return (set(), child.accepts(), None) if child.own else (None, None, None)
        if child.quick is not None:
            return None, None, child.quick
        return None

    # -- collections

    def _variant(self, shape: botocore.model.Shape, constraints: dict[str, int]) -> _Node:
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
            node.own.append((lambda v, lo=meta["min"]: len(v) >= lo, MIN_LEN.format(meta["min"])))
        if "max" in meta:
            node.own.append((lambda v, hi=meta["max"]: len(v) <= hi, MAX_LEN.format(meta["max"])))
        node.bracket = [m for _, m in reversed(node.own)]

    def _list(self, shape: botocore.model.ListShape) -> _Node:
        node = _Node()
        elem = self.node(shape.member)
        elem_check, elem_constraint = elem.value, elem.constraint()

        def field(v: Any) -> Any:
            if type(v) is not list:
                raise serialization(MSG_STRUCT_START if type(v) is dict else MSG_FIELD_TYPE)
            for i, x in enumerate(v):
                if x is not None:
                    nx = elem_check(x)
                    if nx is not x:
                        v[i] = nx
            return v

        def value(v: Any) -> Any:
            if type(v) is not list and type(v) is not dict:
                raise serialization(MSG_PARAMETERIZED)
            return field(v)

        def nested(v: Any, path: str, errs: list[str]) -> None:
            for i, x in enumerate(v, 1):
                if x is None:  # a null element: Coral's not-null rule, element by element
                    _add(errs, None, f"{path}.{i}.member", NOT_NULL)
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
        else:
            self._string_constraints(shape.key, key_node)
        key_own, val_own = key_node.own, val.own
        keys_msg = f"Map keys must satisfy constraint: [{', '.join(key_node.bracket)}]"
        value_msg = f"Map value must satisfy constraint: [{', '.join(val.bracket)}]"
        val_nested = val.nested
        collection_msg = f"Unrecognized collection type {self.java_type(shape)}"

        def field(v: Any) -> Any:
            if type(v) is not dict:
                if type(v) is CheckedItem:  # one object twice in a body built in-process
                    return v
                raise serialization(collection_msg if type(v) is list else MSG_FIELD_TYPE)
            if val_check is av_value:  # Key, Item, ExpressionAttributeValues
                return av_map(v)
            for k, x in v.items():
                if x is not None:
                    nx = val_check(x)
                    if nx is not x:
                        v[k] = nx
            return v

        def value(v: Any) -> Any:
            if type(v) is not dict and type(v) is not list and type(v) is not CheckedItem:
                raise serialization(MSG_PARAMETERIZED)
            return field(v)

        key_ok = key_node.accepts() if key_own else None
        val_ok = val.accepts() if val_own else None
        key_meta = shape.key.metadata
        # Attribute-name keys only have a maximum length: one C-level pass over the lengths
        # (UTF-16 length <= 2 * len) settles the common case.
        key_max = key_meta["max"] if key_ok is not None and set(key_meta) == {"max"} else None

        def nested(v: Any, path: str, errs: list[str]) -> None:
            # DynamoDB lists failing keys first, then failing values (dynalite batchWriteItem.js)
            if key_ok is not None and not (
                key_max is not None and (not v or max(map(len, v)) * 2 <= key_max)
            ):
                for k in v:
                    if not key_ok(k):
                        _add(errs, node.show(v), path, keys_msg)
            if val_ok is None and val_nested is None:
                if None in v.values():
                    for k, x in v.items():
                        if x is None:
                            _add(errs, None, f"{path}.{k}.member", NOT_NULL)
                return
            for k, x in v.items():
                if x is None:  # a null value: Coral's not-null rule, value by value
                    _add(errs, None, f"{path}.{k}.member", NOT_NULL)
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
        if not node.own and val_nested is None:
            if val_check is av_value and val_ok is None and (key_ok is None or key_max is not None):
                node.quick = quick_av_map(key_max)
            elif val.field is check_string:
                node.quick = quick_string_map(key_ok, val_ok)
        return node


# --- the public API ---------------------------------------------------------------------------


def _errors_message(errs: list[str]) -> str:
    n = len(errs)
    return f"{n} validation error{'s' if n > 1 else ''} detected: {'; '.join(errs)}"


def _compile_operation(service: str, op: botocore.model.OperationModel, quick: bool = True) -> Callable[[object], None]:
    """The one validator function of an operation, built from the compiled input shape
    (``quick=False``: without the quick path, for tests comparing the two)."""
    shape = op.input_shape
    if shape is None:  # no input shape: nothing to check
        return lambda body: None
    compiler = _Compiler(service, op.name)
    node = compiler.node(shape)
    field, constraints = node.field, node.nested
    top_list_msg = f"Unrecognized collection type class {compiler.package}.{shape.name}"
    bare = [(member, msg) for (o, member), msg in BARE_LENGTH_MESSAGES.items() if o == op.name]
    early = [(member, when, msg) for (o, member), (when, msg) in EARLY_MESSAGES.items() if o == op.name]
    table_alone = compiler.table_checks if op.name in TABLE_NAME_ALONE else None

    def validate(body: object) -> None:
        if type(body) is dict and quick_ok(body):
            return
        if type(body) is list:
            raise serialization(top_list_msg)
        field(body)  # raises unless body is a dict
        assert isinstance(body, dict)
        for member, when, message in early:
            if when != "below1" and _early(body.get(member), when):
                raise validation(message)
        for member, message in bare:
            v = body.get(member)
            if v is not None and not 3 <= _utf16_len(v) <= 255:
                raise validation(message)
        errs: list[str] = []
        if table_alone is not None:
            _check_table_name(body.get("TableName"), table_alone, errs)
            if errs:
                raise validation(_errors_message(errs))
        if constraints is not None:
            constraints(body, "", errs)
            if errs:
                for member, when, message in early:
                    if when == "below1" and len(errs) == 1 and _early(body.get(member), when):
                        raise validation(message)
                raise validation(_errors_message(errs))

    quick_ok = _quick_request(node, tuple(shape.required_members))
    if not quick or bare or any(when != "below1" for _, when, _ in early):
        quick_ok = _never
    return validate


def _never(body: dict[str, Any]) -> bool:
    return False


def _quick_request(node: _Node, required: tuple[str, ...]) -> Callable[[dict[str, Any]], bool]:
    """Whether a request passes every check, decided by its members' quick checks alone
    (validation_av): True only if each member has one and passes it, and no required member
    is missing. Members are visited in the body's order, as the type pass visits them; a
    CheckedItem a quick check makes replaces its map, as the type pass would. False sends
    the request to the general path (the ``below1`` early messages need errors, so they
    never apply here)."""
    members = node.quick_members

    def quick_ok(body: dict[str, Any]) -> bool:
        for k, x in body.items():
            entry = members.get(k)
            if entry is None:
                return False
            known, passes, check = entry
            if check is None:  # a string
                if type(x) is not str:
                    return False
                if known is not None and x not in known:
                    if passes is None or not passes(x):
                        return False
                    if len(known) < MAX_KNOWN:  # type: ignore[arg-type]
                        known.add(x)  # type: ignore[union-attr]
            else:
                nx = check(x)
                if nx is not x:
                    if type(nx) is Failed:
                        if nx.value is not None:
                            body[k] = nx.value  # the type pass's CheckedItem
                        return False
                    body[k] = nx
        for name in required:
            if name not in body:
                return False
        return True

    return quick_ok


def _early(v: Any, when: str) -> bool:
    """Whether a member triggers its EARLY_MESSAGES entry."""
    if when == "missing":
        return v is None
    if when == "empty":
        return v is None or v == {}
    return isinstance(v, int | float) and not isinstance(v, bool) and v < 1  # "below1"


def _check_table_name(name: Any, checks: list[tuple[Callable[[Any], bool], str]], errs: list[str]) -> None:
    if name is None:
        _add(errs, None, "tableName", NOT_NULL)
    elif not _table_name_fast(name):
        for passes, message in checks:
            if not passes(name):
                _add(errs, name, "tableName", message)


class RequestValidator:
    """Shape validators for every operation of one service ("dynamodb", "dynamodbstreams"),
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
            self._validators[operation] = check
        return check

    def general_validator(self, operation: str) -> Callable[[object], None]:
        """The operation's checker without its quick path (a new one on every call): the
        general path alone, for tests comparing the two."""
        return _compile_operation(self.service, self._model.operation_model(operation), quick=False)

    def validate(self, operation: str, body: object) -> None:
        """Raise DynamoDB's SerializationException or ValidationException for a bad shape."""
        self.validator(operation)(body)


@cache
def _shared(cls: type[RequestValidator], service: str) -> RequestValidator:
    return cls(service)
