"""One line of an export or import file, in each of DynamoDB's formats ("DynamoDB table export
output format"; "DynamoDB data import from Amazon S3: formats and quotas"):

- DYNAMODB_JSON: JSON lines, ``{"Item": {...}}`` in DynamoDB's marshalled JSON; an incremental
  export's line is ``{"Metadata": {"WriteTimestampMicros": {"N": ...}}, "Keys": {...},
  "NewImage": {...}, "OldImage": {...}}``;
- ION: Ion text, one ``$ion_1_0 {Item:{...}}`` per line. Numbers are decimals, binary values
  blobs, sets lists annotated ``$dynamodb_SS`` / ``$dynamodb_NS`` / ``$dynamodb_BS``, maps
  structs, NULL Ion's null (amazon-ion reads it, imported only here and only for ION);
- CSV: a header row (or ``CsvOptions.HeaderList``); the key attributes take the types of the
  table's AttributeDefinitions, every other column is a string.

A record is ``(item, None)`` to put or ``(None, keys)`` to delete (an incremental export's
delete). ``RecordError`` says what is wrong with a line, for the caller to name file and line.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

import orjson

from dynemu.engine import values
from dynemu.errors import DynamoError

Item = dict[str, Any]
Record = tuple[Item | None, Item | None]

FORMATS = ("DYNAMODB_JSON", "ION", "CSV")


class RecordError(ValueError):
    """A line that is not a record of its format; ``field`` names the part at fault."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


# --- DYNAMODB_JSON ------------------------------------------------------------------------------


def json_item_line(item_json: bytes | memoryview) -> bytes:
    """A full export's line from an item's marshalled JSON (as stored: no re-encoding)."""
    return b'{"Item":' + bytes(item_json) + b"}\n"


def json_change_line(micros: int, keys: Item, new: Item | None, old: Item | None) -> bytes:
    """An incremental export's line (NEW_IMAGE: ``old`` is None)."""
    record: dict[str, Any] = {"Metadata": {"WriteTimestampMicros": {"N": str(micros)}}, "Keys": keys}
    if new is not None:
        record["NewImage"] = new
    if old is not None:
        record["OldImage"] = old
    return orjson.dumps(record) + b"\n"


def read_json(line: bytes) -> Record:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError as e:
        raise RecordError(f"not JSON: {e}") from None
    return _record(record)


def _record(record: Any) -> Record:
    if not isinstance(record, dict):
        raise RecordError("a line must be an object with an Item", "Item")
    item = record.get("Item")
    if item is not None:
        if not isinstance(item, dict):
            raise RecordError("Item must be a map of attribute values", "Item")
        return item, None
    if "Keys" in record:  # an incremental export's change
        new = record.get("NewImage")
        if new is not None:
            if not isinstance(new, dict):
                raise RecordError("NewImage must be a map of attribute values", "NewImage")
            return new, None
        keys = record["Keys"]
        if not isinstance(keys, dict):
            raise RecordError("Keys must be a map of attribute values", "Keys")
        return None, keys
    raise RecordError("a line must hold an Item (or an incremental export's Keys)", "Item")


# --- ION ----------------------------------------------------------------------------------------

_SYMBOL = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_KEYWORDS = {"null", "true", "false", "nan"}


def _ion_name(name: str) -> str:
    if _SYMBOL.fullmatch(name) and name not in _KEYWORDS and not name.startswith("$ion"):
        return name
    return orjson.dumps(name).decode()  # a quoted string is a field name in Ion text


def _ion_decimal(n: str) -> str:
    """DynamoDB's number as an Ion decimal (``103.``, ``6d2``, ``15d-1``)."""
    sign, digits, exp = Decimal(n).as_tuple()  # no normalize(): its context rounds to 28 digits
    text = "".join(map(str, digits))
    stripped = text.rstrip("0") or "0"
    exp = int(exp) + len(text) - len(stripped) if stripped != "0" else 0
    coef = ("-" if sign else "") + stripped
    return coef + "." if exp == 0 else f"{coef}d{exp}"


def _ion_value(v: Item) -> str:
    ((t, x),) = v.items()
    if t == "S":
        return orjson.dumps(x).decode()
    if t == "N":
        return _ion_decimal(x)
    if t == "B":
        return "{{" + x + "}}"
    if t == "BOOL":
        return "true" if x else "false"
    if t == "NULL":
        return "null"
    if t == "M":
        return _ion_struct(x)
    if t == "L":
        return "[" + ",".join(_ion_value(e) for e in x) + "]"
    if t == "SS":
        return "$dynamodb_SS::[" + ",".join(orjson.dumps(s).decode() for s in x) + "]"
    if t == "NS":
        return "$dynamodb_NS::[" + ",".join(_ion_decimal(s) for s in x) + "]"
    return "$dynamodb_BS::[" + ",".join("{{" + b + "}}" for b in x) + "]"  # BS


def _ion_struct(item: Item) -> str:
    return "{" + ",".join(f"{_ion_name(k)}:{_ion_value(v)}" for k, v in item.items()) + "}"


def ion_item_line(item: Item) -> bytes:
    return ("$ion_1_0 {Item:" + _ion_struct(item) + "}\n").encode()


def ion_change_line(micros: int, keys: Item, new: Item | None, old: Item | None) -> bytes:
    parts = [f"Metadata:{{WriteTimestampMicros:{micros}}}", "Keys:" + _ion_struct(keys)]
    if new is not None:
        parts.append("NewImage:" + _ion_struct(new))
    if old is not None:
        parts.append("OldImage:" + _ion_struct(old))
    return ("$ion_1_0 {" + ",".join(parts) + "}\n").encode()


def _from_ion(v: Any) -> Item:
    from amazon.ion.core import IonType

    t = v.ion_type
    annotations = [getattr(a, "text", a) for a in getattr(v, "ion_annotations", ())]
    if v is None or t == IonType.NULL or (hasattr(v, "ion_type") and _is_null(v)):
        return {"NULL": True}
    if t == IonType.STRING or t == IonType.SYMBOL:
        return {"S": str(getattr(v, "text", v))}
    if t in (IonType.DECIMAL, IonType.INT, IonType.FLOAT):
        return {"N": values.normalize_number(_ion_number_text(v))}
    if t == IonType.BOOL:
        return {"BOOL": bool(v)}
    if t in (IonType.BLOB, IonType.CLOB):
        return {"B": base64.b64encode(bytes(v)).decode()}
    if t == IonType.STRUCT:
        return {"M": {str(k): _from_ion(x) for k, x in v.items()}}
    if t in (IonType.LIST, IonType.SEXP):
        if "$dynamodb_SS" in annotations:
            return {"SS": [str(x) for x in v]}
        if "$dynamodb_NS" in annotations:
            return {"NS": [values.normalize_number(_ion_number_text(x)) for x in v]}
        if "$dynamodb_BS" in annotations:
            return {"BS": [base64.b64encode(bytes(x)).decode() for x in v]}
        return {"L": [_from_ion(x) for x in v]}
    raise RecordError(f"an Ion {t.name.lower()} is not a DynamoDB value")


def _is_null(v: Any) -> bool:
    return type(v).__name__ == "IonPyNull"


def _ion_number_text(v: Any) -> str:
    if isinstance(v, Decimal):
        return format(v, "f") if abs(v.as_tuple().exponent) < 40 else str(v)  # type: ignore[arg-type]
    return str(int(v)) if not isinstance(v, float) else repr(v)


def read_ion(line: bytes) -> Record:
    from amazon.ion import simpleion  # only for ION files

    try:
        value = simpleion.loads(line.decode("utf-8"), single_value=True)
    except Exception as e:  # noqa: BLE001 - amazon-ion raises several types for bad text
        raise RecordError(f"not Ion text: {e}") from None
    if getattr(value, "ion_type", None) is None or value.ion_type.name != "STRUCT":
        raise RecordError("a line must be a struct with an Item", "Item")
    try:
        record = {str(k): {str(n): _from_ion(x) for n, x in v.items()} if k != "Metadata" else None
                  for k, v in value.items()}  # fmt: skip
    except AttributeError:
        raise RecordError("Item must be a struct of attribute values", "Item") from None
    except DynamoError as e:  # a number beyond DynamoDB's range
        raise RecordError(e.message, "Item") from None
    return _record(record)


# --- CSV ----------------------------------------------------------------------------------------


def csv_items(lines: Iterator[str], delimiter: str, header: Sequence[str] | None,
              key_types: dict[str, str]) -> Iterator[tuple[int, Record | RecordError]]:
    """(line number, record or error) of each row; the header is the first row unless given."""
    import csv  # only for CSV files

    reader = csv.reader(lines, delimiter=delimiter)
    names = list(header) if header else None
    for row in reader:
        if names is None:
            names = row
            continue
        if len(row) > len(names):
            yield reader.line_num, RecordError(f"{len(row)} values for {len(names)} columns", names[-1])
            continue
        item: Item = {}
        for name, text in zip(names, row, strict=False):
            kind = key_types.get(name)
            if kind is None:
                if text != "":  # UNSURE: an empty cell of a non-key column adds no attribute
                    item[name] = {"S": text}
            else:
                item[name] = {kind: text}
        yield reader.line_num, (item, None)
