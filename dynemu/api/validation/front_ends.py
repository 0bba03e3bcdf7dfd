"""Operations served by a newer front end than the others, whose request deserialiser checks
the body's shape before the API model's constraints, in its own words.

SearchVectors (issue 36, as the service answers): a required member that is missing is a
SerializationException ``missing field `TableName` at line 1 column N``, reported before any
constraint (a too-short IndexName); an explicit ``null`` member is a SerializationException
too, where the other operations take it as absent. The deserialiser reads the members in the
body's order (a null is refused where it is read) and names a missing one once the object
has been read, the first in the model's member order. Its positions are those of the body as
the SDKs write it (``json.dumps``, botocore's form; UNSURE for a body written otherwise):
line 1, the column of the character last read (``null``'s last, or the closing brace).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from dynemu import errors
from dynemu.api import model_cache

Check = Callable[[object], None]

# what the deserialiser says it expected, by the member's shape type
_EXPECTED = {"string": "a string", "integer": "i32", "long": "i64", "boolean": "a boolean", "list": "a sequence",
             "map": "a map", "structure": "a map", "double": "f64", "blob": "a string"}  # fmt: skip

NEWER_FRONT_END = frozenset(("SearchVectors",))


def wrap(service: str, operation: str, check: Check) -> Check:
    """``check`` (the model's validator of ``operation``), behind the newer front end's shape
    checks when ``operation`` is served by it."""
    if service != "dynamodb" or operation not in NEWER_FRONT_END:
        return check
    shape = model_cache.service_model(service).operation_model(operation).input_shape
    members = {name: _EXPECTED.get(m.type_name, "a value") for name, m in shape.members.items()}
    required = [name for name in shape.members if name in shape.required_members]

    def front_end(body: object) -> None:
        if type(body) is dict:
            _shape(body, members, required)
        check(body)

    return front_end


def _shape(body: dict[str, Any], members: dict[str, str], required: list[str]) -> None:
    read: dict[str, Any] = {}
    for name, value in body.items():
        if value is None and name in members:
            column = len(json.dumps(read)) - 1 + (2 if read else 0) + len(json.dumps(name)) + len(": null")
            raise errors.serialization(errors.msg_null_member(members[name], 1, column))
        read[name] = value
    for name in required:
        if name not in body:
            raise errors.serialization(errors.msg_missing_field(name, 1, len(json.dumps(body))))
