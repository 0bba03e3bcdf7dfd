"""Messages of expressions (engine/expressions): parameters, placeholders, the parsed tree, the legacy parameters, updates and syntax errors.

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

# expressions (engine/expressions): parameters, placeholders, sizes
MSG_NAMES_WITHOUT_EXPRESSIONS = "ExpressionAttributeNames can only be specified when using expressions"
# PutItem's and DeleteItem's whole message, without the "...: ConditionExpression is null" tail
# (issue 36, observed against the service)
MSG_VALUES_WITHOUT_EXPRESSIONS = "ExpressionAttributeValues can only be specified when using expressions"
MSG_EXPRESSION_EMPTY = "The expression can not be empty;"
MSG_EXPRESSION_TOO_LARGE = "Expression size has exceeded the maximum allowed size;"


def msg_expression_too_large(size: int) -> str:
    return f"{MSG_EXPRESSION_TOO_LARGE} expression size: {size}"


def msg_key_update(name: str) -> str:
    """Detail of ``invalid_parameter``: an update of a key attribute."""
    return f"Cannot update attribute {name}. This attribute is part of the key"


def msg_filter_on_key(label: str, name: str) -> str:
    return f"{label} can only contain non-primary key attributes: Primary key attribute: {name}"


def msg_mixed_parameters(non_expression: list[str], expression: list[str]) -> str:
    return (
        "Can not use both expression and non-expression parameters in the same request: "
        f"Non-expression parameters: {{{', '.join(non_expression)}}} Expression parameters: {{{', '.join(expression)}}}"
    )


def msg_values_without_expressions(parameters: list[str]) -> str:
    verb = "are" if len(parameters) > 1 else "is"
    return f"ExpressionAttributeValues can only be specified when using expressions: {' and '.join(parameters)} {verb} null"


def msg_placeholders_empty(parameter: str) -> str:
    """``parameter``: ExpressionAttributeNames or ExpressionAttributeValues."""
    return f"{parameter} must not be empty"


def msg_placeholder_key(parameter: str, key: str) -> str:
    return f'{parameter} contains invalid key: Syntax error; key: "{key}"'


def msg_placeholder_value(parameter: str, detail: str, key: str) -> str:
    return f"{parameter} contains invalid value: {detail} for key {key}"


def msg_unused_placeholders(parameter: str, unused: list[str]) -> str:
    return f"Value provided in {parameter} unused in expressions: keys: {{{', '.join(unused)}}}"


# expressions: checks of the parsed tree (engine/expressions/checks), each a detail of
# ``msg_invalid_expression``
MSG_REDUNDANT_PARENTHESES = "The expression has redundant parentheses;"


def msg_invalid_expression(kind: str, detail: str) -> str:
    """``kind``: the expression parameter (ConditionExpression, UpdateExpression, ...)."""
    return f"Invalid {kind}: {detail}"


def msg_too_many_operators(count: int) -> str:
    return f"The expression contains too many operators; operator count: {count}"


def msg_reserved_keyword(word: str) -> str:
    return f"Attribute name is a reserved keyword; reserved keyword: {word}"


def msg_function_not_allowed(where: str, function: str) -> str:
    """``where``: "a condition" or "an update"."""
    return f"The function is not allowed in {where} expression; function: {function}"


def msg_invalid_function(function: str) -> str:
    return f"Invalid function name; function: {function}"


def msg_function_misused(function: str) -> str:
    return f"The function is not allowed to be used this way in an expression; function: {function}"


def msg_operand_count(function: str, count: int) -> str:
    return f"Incorrect number of operands for operator or function; operator or function: {function}, number of operands: {count}"


def msg_undefined_name(ref: str) -> str:
    return f"An expression attribute name used in the document path is not defined; attribute name: {ref}"


def msg_undefined_value(ref: str) -> str:
    return f"An expression attribute value used in expression is not defined; attribute value: {ref}"


def msg_operands_not_distinct(operator: str, first: str) -> str:
    return (
        "The first operand must be distinct from the remaining operands for this operator or function; "
        f"operator: {operator}, first operand: {first}"
    )


def msg_too_many_in_operands(count: int) -> str:
    return f"The IN operator is provided with too many operands; number of operands: {count}"


def msg_operand_type(function: str, type_name: str) -> str:
    return f"Incorrect operand type for operator or function; operator or function: {function}, operand type: {type_name}"


def msg_update_operand_type(action: str, type_word: str) -> str:
    return f"Incorrect operand type for operator or function; operator: {action}, operand type: {type_word}"


def msg_needs_document_path(function: str) -> str:
    return f"Operator or function requires a document path; operator or function: {function}"


def msg_invalid_type_name(type_name: str) -> str:
    return f"Invalid attribute type name found; type: {type_name}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"


def msg_between_types(low: str, high: str) -> str:
    """``low``, ``high``: the bounds as DynamoDB prints them (``{N:5}``)."""
    return (
        "The BETWEEN operator requires same data type for lower and upper bounds; "
        f"lower bound operand: AttributeValue: {low}, upper bound operand: AttributeValue: {high}"
    )


def msg_between_order(low: str, high: str) -> str:
    return (
        "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
        f"lower bound operand: AttributeValue: {low}, upper bound operand: AttributeValue: {high}"
    )


def msg_path_too_deep(levels: int) -> str:
    return f"The document path has too many nesting levels; nesting levels: {levels}"


def msg_paths_overlap(one: str, two: str) -> str:
    return f"Two document paths overlap with each other; must remove or rewrite one of these paths; path one: {one}, path two: {two}"


def msg_paths_conflict(one: str, two: str) -> str:
    return f"Two document paths conflict with each other; must remove or rewrite one of these paths; path one: {one}, path two: {two}"


# legacy parameters (engine/expressions/legacy): Expected, QueryFilter, ScanFilter,
# AttributeUpdates; texts without the prefix are details of ``invalid_parameter``
MSG_VALUE_LIST_TYPES = "AttributeValues inside AttributeValueList must be of same type"
MSG_CONDITIONAL_OPERATOR_ALONE = "ConditionalOperator cannot be used without Filter or Expected"
MSG_CONDITIONAL_OPERATOR_ONE = "ConditionalOperator can only be used when Filter or Expected has two or more elements"
MSG_LEGACY_BETWEEN_ORDER = "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"
MSG_UPDATE_TYPE_MISMATCH = "Type mismatch for attribute to update"
MSG_ONLY_DELETE_WITHOUT_VALUE = "Only DELETE action is allowed when no attribute value is specified"


def msg_operator_type(op: str, type_name: str) -> str:
    return f"ComparisonOperator {op} is not valid for {type_name} AttributeValue type"


def msg_value_and_list(name: str) -> str:
    return f"Value and AttributeValueList cannot be used together for Attribute: {name}"


def msg_list_without_operator(name: str) -> str:
    return f"AttributeValueList can only be used with a ComparisonOperator for Attribute: {name}"


def msg_exists_and_operator(name: str) -> str:
    return f"Exists and ComparisonOperator cannot be used together for Attribute: {name}"


def msg_operator_without_value(op: str, name: str) -> str:
    return f"Value or AttributeValueList must be used with ComparisonOperator: {op} for Attribute: {name}"


def msg_argument_count(op: str) -> str:
    return f"Invalid number of argument(s) for the {op} ComparisonOperator"


def msg_exists_without_value(shown: str, name: str) -> str:
    """``shown``: Exists as the service prints it (null or true)."""
    return f"Value must be provided when Exists is {shown} for Attribute: {name}"


def msg_value_when_not_exists(name: str) -> str:
    return f"Value cannot be used when Exists is false for Attribute: {name}"


def msg_duplicate_attribute_name(name: str) -> str:
    return f"Duplicate value in attribute name: {name}"


def msg_delete_value_type(type_name: str) -> str:
    return f"DELETE action with value is not supported for the type {type_name}"


def msg_add_type(type_name: str) -> str:
    return f"ADD action is not supported for the type {type_name}"


# expressions: evaluating an update (engine/expressions/update) and syntax errors
MSG_UPDATE_INVALID_PATH = "The document path provided in the update expression is invalid for update"
MSG_UPDATE_MISSING_ATTRIBUTE = "The provided expression refers to an attribute that does not exist in the item"
MSG_UPDATE_WRONG_TYPE = "An operand in the update expression has an incorrect data type"


def msg_syntax_error(token: str, near: str) -> str:
    """Detail of ``msg_invalid_expression``."""
    return f'Syntax error; token: "{token}", near: "{near}"'
