"""Messages of PartiQL (engine/partiql, api/operations/partiql and partiql_adapter).

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

# PartiQL (engine/partiql, api/operations/partiql). The parameter count and the incomplete key
# are quoted by users of the real service; the two ORDER BY messages are those other DynamoDB
# implementations report; the ORDER BY-on-a-non-key, IN-limit and "Unsupported ..." messages
# are dynemu's own.
MSG_MALFORMED = "Statement wasn't well formed, can't be processed: "  # then the detail
MSG_MALFORMED_INSERT = MSG_MALFORMED + "VALUE must be a map of attribute names to values"
MSG_STATEMENT_END = "Unexpected end of statement"  # details of MSG_MALFORMED ...
MSG_EXPECTED_DML = "Expected data manipulation"
MSG_PARAMETERS = "Number of parameters in request and statement don't match."
MSG_INCOMPLETE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
MSG_ORDER_BY_WHERE = "Must have WHERE clause in the statement when using ORDER BY clause."
MSG_ORDER_BY_HASH = "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
MSG_MIXED_BATCH = "Batch statements must be either all reads (SELECT) or all writes (INSERT, UPDATE, DELETE)"
MSG_MIXED_TRANSACTION = (
    "Transaction statements must be either all reads (SELECT) or all writes (INSERT, UPDATE, DELETE, EXISTS)"
)
MSG_EXISTS_OUTSIDE_TRANSACTION = "EXISTS is supported only in ExecuteTransaction"
MSG_NOT_ON_INDEX = "This operation is not supported on an index"
MSG_INVALID_NEXT_TOKEN = "The provided NextToken is invalid"
MSG_MIXED_SET = "Unsupported set: a set must hold only strings, only numbers or only binaries, and at least one element"


def msg_nested_too_deeply(line: int, column: int) -> str:
    return f"Expression nested too deeply at line {line}, column {column}"


def msg_unexpected(what: str, shown: str, line: int, column: int) -> str:
    """``what``: character, keyword or token."""
    return f"Unexpected {what} {shown} at line {line}, column {column}"


def msg_unsupported_function(name: str, line: int, column: int) -> str:
    return f"Unsupported function {name} at line {line}, column {column}"


def msg_function_arguments(name: str, line: int, column: int) -> str:
    return f"Incorrect number of arguments for function {name} at line {line}, column {column}"


def msg_in_values(limit: int, count: int) -> str:
    return f"The IN operator takes at most {limit} values; it was given {count}"


def msg_in_keys(limit: int, count: int) -> str:
    return f"The IN operator takes at most {limit} values of the partition key; it was given {count}"


def msg_order_by_non_key(name: str) -> str:
    return f"ORDER BY is supported only on key attributes; {name} is not a key attribute"


def msg_partiql_unsupported(what: str) -> str:
    return f"Unsupported operation: {what}"


# the ``what`` of msg_partiql_unsupported
UNSUPPORTED_NOT_CONDITION = "a WHERE clause must be a condition"
UNSUPPORTED_SIZE_OPERAND = "size takes a document path"
UNSUPPORTED_WHERE_ARITHMETIC = "arithmetic in a WHERE clause"
UNSUPPORTED_SET_VALUE = "SET takes a value, a document path, arithmetic or list_append"


def unsupported_where_function(name: str) -> str:
    return f"function {name} in a WHERE clause"


def unsupported_operand_function(name: str) -> str:
    return f"function {name} as an operand"


def unsupported_set_clause_function(name: str) -> str:
    return f"function {name} in a SET clause"


def unsupported_set_function(name: str) -> str:
    return f"{name} takes a document path and a set"

# api/operations/partiql_adapter.py
MSG_DUPLICATE = "Duplicate primary key exists in table"
