"""Messages of vector indexes and SearchVectors.

Texts quoted in the developer guide's "Troubleshooting vector indexes" page are the
service's own; the others are marked UNSURE: the guide names the condition but not the
words, and dynemu chose them.
"""

# "Troubleshooting vector indexes" (developer guide)
MSG_SEARCH_CONDITION_REQUIRED = "SearchConditionExpression must be provided when SearchSchema has a HASH key"
MSG_SEARCH_SCHEMA_UNDEFINED = "One element in SearchSchema is not defined in attribute definitions"
MSG_INVALID_SEARCH_COMPARATOR = "Invalid comparator used in SearchConditionExpression"
# The service sends it as the detail of "Invalid SearchConditionExpression: ..." (reported from
# the service; the guide quotes the detail), the prefix of every SearchConditionExpression
# error (``msg_invalid_expression``). UNSURE for the syntax errors' details, which are the
# other expression parameters'.

# Reported from the service (the guide does not quote it) for operators it does not take in a
# SearchConditionExpression, also a detail of "Invalid SearchConditionExpression: ...". dynemu
# sends it for a function the filter reference does not list, a function as an operand, and
# BETWEEN, IN or a function on the HASH attribute (UNSURE: which cases the service sends it for).
MSG_INVALID_SEARCH_OPERATOR = "Invalid operator used in SearchConditionExpression"
MSG_TOP_K_RANGE = "Provided TopK value is out of valid range"  # the guide's words, without the value


def msg_top_k_range(value: object, maximum: int) -> str:
    """What the service answers (issue 36 quotes it): the guide's words with the value."""
    return f"Provided TopK value '{value}' is out of valid range. The value must be between 1 and {maximum} inclusive"


def msg_backfilling_vector_index(index: str) -> str:
    """"Troubleshooting vector indexes": a search of an index still being backfilled."""
    return f"Cannot search backfilling vector index: {index}"


# UNSURE: the guide states the rule (on-demand tables only, "Requirements and limitations"),
# not the service's words.
MSG_VECTOR_ON_DEMAND_ONLY = (
    "One or more parameter values were invalid: Vector indexes are supported only on tables "
    "that use PAY_PER_REQUEST billing mode"
)


def msg_vector_index_limit(limit: int) -> str:
    # UNSURE: the quota (five per table) is the guide's; the words are dynemu's.
    return f"Subscriber limit exceeded: A table can have at most {limit} vector indexes"


def msg_vector_dimensions_range(value: int, maximum: int) -> str:
    # UNSURE: the range (1 to 4,096) is the quotas page's; the words are dynemu's.
    return (
        f"One or more parameter values were invalid: Dimensions must be between 1 and {maximum}, "
        f"but was {value}"
    )


def msg_inline_filter_limit(index: str, limit: int) -> str:
    # UNSURE
    return (
        f"One or more parameter values were invalid: Vector index {index} has more than {limit} "
        "INLINE_FILTER attributes"
    )


def msg_search_schema_hash_count(index: str) -> str:
    # UNSURE
    return f"One or more parameter values were invalid: Vector index {index} has more than one HASH key"


def msg_vector_attribute_dimensions(attribute: str, existing: int, given: int) -> str:
    # UNSURE: "If multiple vector indexes reference the same attribute, they must all use the
    # same number of dimensions" (CreateVectorIndexAction).
    return (
        f"One or more parameter values were invalid: Vector attribute {attribute} is indexed with "
        f"{existing} dimensions by another vector index, not {given}"
    )


def msg_vector_wrong_dimensions(attribute: str, index: str, actual: int, expected: int) -> str:
    # UNSURE: a write whose vector does not have the index's dimensions is refused
    # ("Troubleshooting vector indexes").
    return (
        f"One or more parameter values were invalid: Vector attribute {attribute} has {actual} dimensions "
        f"but vector index {index} expects {expected}"
    )


def msg_vector_invalid_type(attribute: str, index: str, actual: str) -> str:
    # UNSURE: "Write rejected with 'Invalid parameter type'" ("Troubleshooting vector indexes").
    return (
        f"One or more parameter values were invalid: Invalid parameter type for vector attribute {attribute} "
        f"of vector index {index}: expected L of N, got {actual}"
    )


def msg_vector_invalid_element(attribute: str, index: str, position: int, actual: str) -> str:
    # UNSURE: the message "targets the offending element index" ("Troubleshooting vector indexes").
    return (
        f"One or more parameter values were invalid: Invalid parameter type for vector attribute {attribute} "
        f"of vector index {index}: element [{position}] is {actual}, expected a finite N within the "
        "32-bit float range"
    )


def msg_search_vector_dimensions(actual: int, expected: int) -> str:
    # the service's words (issue 36 quotes them)
    return f"Input search vector dimension {actual} does not match vector index dimension {expected}"


# the service's words (issue 36 quotes them) for a search vector element that is not an N
# (an L-wrapped vector) or not a 32-bit float
MSG_SEARCH_VECTOR_INVALID = (
    "Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point "
    "number attribute"
)


def msg_search_attribute_not_in_schema(path: str) -> str:
    # the service's words (issue 36 quotes them: "... Invalid attribute: tenant", sic); a nested
    # path is printed as written (``a.b``, ``a[0]``): UNSURE
    return f"SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: {path}"


def msg_search_schema_type(name: str, expected: str, actual: str, index: str) -> str:
    # UNSURE: a search schema attribute is typed like an index key (AttributeDefinitions).
    return f"One or more parameter values were invalid: Type mismatch for SearchSchema attribute {name} " \
        f"Expected: {expected} Actual: {actual} IndexName: {index}"


def msg_search_response_too_large(limit: int) -> str:
    # UNSURE: "SearchVectors responses are limited to 16 MB. Pagination is not supported"
    # ("Requirements and limitations"); the guide does not say whether the service refuses or
    # truncates, nor its words. dynemu refuses, in the words of the item size errors.
    return (
        f"SearchVectors response size has exceeded the maximum allowed size of {limit // (1024 * 1024)} MB; "
        "use a narrower projection or a smaller TopK"
    )


# SearchVectors is served by a newer front end than the other operations, whose request
# deserialiser answers shape errors in its own words (issue 36 quotes the missing field's):
def msg_missing_field(name: str, line: int, column: int) -> str:
    return f"missing field `{name}` at line {line} column {column}"


def msg_null_member(expected: str, line: int, column: int) -> str:
    # UNSURE: the service refuses an explicit null member with a SerializationException
    # (issue 36); the words are the same deserialiser's for a value of the wrong type.
    return f"invalid type: null, expected {expected} at line {line} column {column}"
