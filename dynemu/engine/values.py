"""Attribute values in DynamoDB JSON form: validation, sizes, numbers, comparison.

An attribute value is kept exactly as it travels on the wire, a one-member dict such as
``{"S": "x"}``, ``{"N": "12.5"}``, ``{"B": "<base64>"}``, ``{"L": [...]}``, ``{"M": {...}}``,
``{"SS": [...]}``; an item is ``dict[str, Value]``. Keeping the wire form avoids a
conversion on every request. Numbers stay strings, normalised to DynamoDB's canonical
form when stored (``format_number(parse_number(s))``); arithmetic uses a 38-digit
``decimal`` context.

CONTRACT (implemented by this module; other modules code against these names):

    Value = dict[str, Any]; Item = dict[str, Value]
    TYPES = ("S","N","B","BOOL","NULL","M","L","SS","NS","BS")
    parse_number(s: str) -> Decimal        # ValidationException with DynamoDB's messages
    format_number(d: Decimal) -> str       # canonical output form ("1.50" -> "1.5", "1E+2" -> "100")
    add_numbers(a: str, b: str) -> str     # 38-digit arithmetic, overflow/underflow errors
    subtract_numbers(a: str, b: str) -> str
    value_type(v: Value) -> str            # "S", "N", ...
    values_equal(a: Value, b: Value) -> bool   # numbers by value, sets unordered, deep for L/M
    compare_values(a: Value, b: Value) -> int | None   # S, N, B only; None if types differ / not ordered
    value_size(v: Value) -> int            # bytes as DynamoDB counts them (without the name)
    item_size(item: Item) -> int           # names + values
    decode_binary(v: str) -> bytes         # base64 from the wire (ValidationException if invalid)
    validate_value(v: Any, *, path) -> Value      # shape + rules; returns normalised value
    validate_item(item: Any) -> Item              # every attribute; raises DynamoDB's errors
    contains(container: Value, operand: Value) -> bool   # the `contains` function's semantics
    value_length(v: Value) -> int | None    # the `size` function: S chars? -> bytes, B bytes, sets/L/M count
"""
