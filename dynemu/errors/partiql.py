"""Messages of PartiQL (engine/partiql, api/operations/partiql and partiql_adapter).

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
Where they come from (docs/rules.md, "PartiQL"):
- syntax errors: MSG_MALFORMED, then the detail, with no position. The details are the PartiQL
  reference implementation's documented parser errors, which DynamoDB prints (issue 37 quotes
  "Unexpected term", "Unexpected token after expression", "Expected identifier for simple
  path", ...). A lexical error (a character no token starts with, an open quote or comment,
  a number beyond a BigDecimal) has an empty detail.
- refusals once a statement has parsed: DynamoDB's own texts, some with the token's position
  as ``line:column:length`` (issue 37 quotes each);
- texts marked "dynemu's" are dynemu's own where the service's answer is not known.
"""

from __future__ import annotations

MSG_MALFORMED = "Statement wasn't well formed, can't be processed: "  # then the detail
MSG_MALFORMED_INSERT = MSG_MALFORMED + "VALUE must be a map of attribute names to values"  # dynemu's

# --- syntax errors: details of MSG_MALFORMED (the reference implementation's parser texts) -------
MSG_EXPECTED_DML = "Expected data manipulation"
MSG_AFTER_EXPRESSION = "Unexpected token after expression"
MSG_AFTER_SEMICOLON = "Unexpected token after semicolon. (Only one query is allowed.)"
MSG_EXPRESSION_AFTER_AND = "Expected expression after AND"
MSG_MISSING_RIGHT_HAND_SIDE = "Missing right-hand side expression of infix operator"
MSG_SIMPLE_PATH_IDENTIFIER = "Expected identifier for simple path"
MSG_PATH_DOT_COMPONENT = "Invalid path dot component"
MSG_PATH_DOT_COMPONENT_SIMPLE = "Invalid path dot component for simple path"
MSG_PATH_COMPONENT_SIMPLE = "Invalid path component for simple path"
MSG_UNEXPECTED_OPERATOR = "Unexpected operator"
MSG_UNEXPECTED_KEYWORD = "Unexpected keyword"
MSG_UNEXPECTED_TERM = "Unexpected term"
MSG_EXPECTED_TYPE_NAME = "Expected type name"
MSG_STAR_NOT_ALONE = "Other expressions may not be present in the select list when '*' is used without dot notation."
MSG_SELECT_MISSING_FROM = "Expected FROM after SELECT list"
MSG_FROM_AFTER_DELETE = "Expected FROM after DELETE"
MSG_EXPECTED_EQUALS = "Expected '='"
MSG_RETURNING_MAPPING = "Expected ( MODIFIED | ALL ) ( NEW | OLD ) in each returning element."


def msg_expected_token(token_type: str) -> str:
    """``token_type``: RIGHT_PAREN, RIGHT_BRACKET, RIGHT_CURLY, COLON, BY ..."""
    return f"Expected {token_type}"


def msg_expected_keyword(keyword: str) -> str:
    return f"Expected {keyword} keyword"


def msg_expected_alias(keyword: str) -> str:
    return f"Expected identifier for {keyword}-alias"


def msg_nested_too_deeply(position: str) -> str:  # dynemu's (its own depth limit)
    return f"Expression nested too deeply at {position}"


# --- refusals of a statement that parsed (DynamoDB's texts, issue 37) --------------------------------
MSG_ALIASING = "Aliasing is not supported"
MSG_EMPTY_BAG = "Empty bags are not supported"
MSG_PARAMETERS = "Number of parameters in request and statement don't match."
MSG_INCOMPLETE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
MSG_MULTI_ATTRIBUTE_KEYS = ("PartiQL statements cannot be executed on tables with multi-attribute HASH keys or "
                            "multi-attribute RANGE keys.")
MSG_BATCH_SELECT_KEY = "Select statements within BatchExecuteStatement must specify the primary key in the where clause."
MSG_TRANSACTION_SELECT_KEY = ("Select statements within ExecuteTransaction must specify the primary key in the "
                              "where clause.")
MSG_PARTIQL_NO_SUCH_INDEX = "The table does not have the specified index"  # issue 36 §7: without the name
MSG_PARTIQL_CONSISTENT_GSI = "Strongly consistent read is not supported on Global Secondary Indexes"


def msg_unexpected_path_component(position: str) -> str:
    return f"Unexpected path component at {position}"


def msg_unrecognized_function(name: str, position: str) -> str:
    return f"Unrecognized function: {name} at {position}"


def msg_set_function_arguments(function: str, position: str) -> str:
    """``function``: SET_ADD or SET_DELETE; ``position``: the call's."""
    return f"{function} must have exactly two arguments at {position}"


def msg_set_function_value(function: str, position: str) -> str:
    """``position``: the function's first argument's."""
    return f"The second argument to {function} must be a value with type SET at {position}"


def msg_set_function_target(function: str, position: str) -> str:
    # dynemu's: the service refuses set_add(b, ...) assigned to a, in words not known
    return f"The first argument to {function} must be the path it is assigned to at {position}"


def msg_unsupported_data_type(name: str, path: str, position: str) -> str:
    """A function call inside a literal (an INSERT value): ``path`` from ``root``."""
    return f"Unsupported data type: {name} under key {path} at {position}"


def msg_transaction_statement(index: int, message: str) -> str:
    """ExecuteTransaction names the statement a ValidationException is about."""
    return f"Validation failed in TransactStatements[{index}]: {message}"


# The ORDER BY messages are those other DynamoDB implementations report; the rest below are
# dynemu's own.
MSG_ORDER_BY_WHERE = "Must have WHERE clause in the statement when using ORDER BY clause."
MSG_ORDER_BY_HASH = "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
MSG_MIXED_BATCH = "Batch statements must be either all reads (SELECT) or all writes (INSERT, UPDATE, DELETE)"
MSG_MIXED_TRANSACTION = (
    "Transaction statements must be either all reads (SELECT) or all writes (INSERT, UPDATE, DELETE, EXISTS)"
)
MSG_EXISTS_OUTSIDE_TRANSACTION = "EXISTS is supported only in ExecuteTransaction"
MSG_EXISTS_NEEDS_CONDITION = "EXISTS must have a condition beyond the primary key"
MSG_INVALID_NEXT_TOKEN = "The provided NextToken is invalid"
MSG_MIXED_SET = "Unsupported set: a set must hold only strings, only numbers or only binaries, and at least one element"


def msg_in_values(limit: int, count: int) -> str:
    return f"The IN operator takes at most {limit} values; it was given {count}"


def msg_in_keys(limit: int, count: int) -> str:
    return f"The IN operator takes at most {limit} values of the partition key; it was given {count}"


def msg_order_by_non_key(name: str) -> str:
    return f"ORDER BY is supported only on key attributes; {name} is not a key attribute"


def msg_partiql_unsupported(what: str) -> str:
    return f"Unsupported operation: {what}"


# the ``what`` of msg_partiql_unsupported: "IsType" is the service's (a type test it does not
# run); the others are dynemu's
UNSUPPORTED_IS_TYPE = "IsType"
UNSUPPORTED_NOT_CONDITION = "a WHERE clause must be a condition"
UNSUPPORTED_SIZE_OPERAND = "size takes a document path"
UNSUPPORTED_WHERE_ARITHMETIC = "arithmetic in a WHERE clause"
UNSUPPORTED_SET_VALUE = "SET takes a value, a document path, arithmetic or list_append"
UNSUPPORTED_SOURCE = "FROM takes a table or a table and an index"
UNSUPPORTED_ORDER_BY = "ORDER BY takes attribute names"
UNSUPPORTED_INSERT_IN_UPDATE = "INSERT INTO inside an UPDATE"
UNSUPPORTED_RETURNING = "RETURNING takes ALL OLD *, MODIFIED OLD *, ALL NEW * or MODIFIED NEW * (DELETE: ALL OLD *)"
UNSUPPORTED_IN_OPERAND = "IN takes a list of values"
UNSUPPORTED_PATH = "a document path takes names and list indexes"
UNSUPPORTED_MISSING = "MISSING as a value"
UNSUPPORTED_VALUE = "a literal holds values and parameters only"
UNSUPPORTED_STRUCT_KEY = "a map literal's keys are strings"


def unsupported_operand_function(name: str) -> str:
    return f"function {name} as an operand"


def unsupported_set_clause_function(name: str) -> str:
    return f"function {name} in a SET clause"


def unsupported_set_function(name: str) -> str:
    return f"{name} takes a document path and a set"

# api/operations/partiql_adapter.py
MSG_DUPLICATE = "Duplicate primary key exists in table"
