"""Vector index errors, sent raw (boto3's own parameter checks off) so that the server's
answer is what is asserted: type and full message."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import assert_error, assert_validation
from tests.test_vectors import create, qv, vec, vector_index

INVALID = "One or more parameter values were invalid: "


def search(raw: Any, table: str, **kw: Any) -> Any:
    args = {"TableName": table, "IndexName": "emb-idx", "SearchVector": qv(1, 0, 0), "TopK": 3, **kw}
    return raw.search_vectors(**args)


def test_search_vector_with_the_wrong_dimension_count(raw: Any) -> None:
    t = create(raw)
    assert_validation("Input search vector dimension 2 does not match vector index dimension 3",
                      search, raw, t, SearchVector=qv(1, 0))


def test_search_vector_with_non_numbers(raw: Any) -> None:
    t = create(raw)
    message = ("Search vector contains invalid values. All values in the search vector must be a 32-bit "
               "floating-point number attribute")
    assert_validation(message, search, raw, t, SearchVector=[{"N": "1"}, {"S": "x"}, {"N": "0"}])
    assert_validation(message, search, raw, t, SearchVector=[{"N": "1"}, {"N": "0"}, {"N": "-4e38"}])
    # an L-wrapped vector: invalid values, before its length is compared (issue 36)
    assert_validation(message, search, raw, t, SearchVector=[{"L": qv(1, 0, 0)}])


def test_item_vector_with_non_numbers(raw: Any) -> None:
    t = create(raw)
    assert_validation(INVALID + "Invalid parameter type for vector attribute emb of vector index emb-idx: "
                      "element [0] is BOOL, expected a finite N within the 32-bit float range",
                      raw.put_item, TableName=t, Item={"pk": {"S": "a"}, "emb": {"L": [{"BOOL": True}, {"N": "1"},
                                                                                       {"N": "2"}]}})


def test_vector_index_on_a_provisioned_table(raw: Any) -> None:
    message = INVALID + "Vector indexes are supported only on tables that use PAY_PER_REQUEST billing mode"
    assert_validation(message, raw.create_table, TableName="vec-provisioned",
                      KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                      AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                      ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
                      VectorIndexes=[vector_index()])
    assert "vec-provisioned" not in raw.list_tables()["TableNames"]
    # an on-demand table with a vector index cannot switch to provisioned capacity
    t = create(raw)
    assert_validation(message, raw.update_table, TableName=t, BillingMode="PROVISIONED",
                      ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    assert raw.describe_table(TableName=t)["Table"]["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"


def test_vector_index_added_to_a_provisioned_table(raw: Any) -> None:
    t = create(raw, plain=True, BillingMode="PROVISIONED",
               ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    assert_validation(INVALID + "Vector indexes are supported only on tables that use PAY_PER_REQUEST billing mode",
                      raw.update_table, TableName=t, VectorIndexUpdates=[{"Create": vector_index()}])


def test_too_many_vector_indexes(raw: Any) -> None:
    message = "Subscriber limit exceeded: A table can have at most 5 vector indexes"
    six = [vector_index(name=f"idx{i}", attribute=f"v{i}") for i in range(6)]
    assert_error("LimitExceededException", message, create, raw, *six)
    t = create(raw, *six[:5])
    assert_error("LimitExceededException", message, raw.update_table, TableName=t,
                 VectorIndexUpdates=[{"Create": six[5]}])


def test_top_k_out_of_range(raw: Any) -> None:
    t = create(raw)
    assert_validation("Provided TopK value '101' is out of valid range. The value must be between 1 and 100 inclusive",
                      search, raw, t, TopK=101)
    assert_validation("Provided TopK value '100000' is out of valid range. The value must be between 1 and 100 "
                      "inclusive", search, raw, t, TopK=100000)


@pytest.mark.parametrize("top_k", [0, -1])
def test_top_k_below_the_model_minimum(raw: Any, top_k: int) -> None:
    """Below 1 the API model's own constraint answers first, as for every operation."""
    t = create(raw)
    assert_validation(f"1 validation error detected: Value '{top_k}' at 'topK' failed to satisfy constraint: "
                      "Member must have value greater than or equal to 1", search, raw, t, TopK=top_k)


def test_top_k_bounds_are_accepted(raw: Any) -> None:
    t = create(raw)
    raw.put_item(TableName=t, Item={"pk": {"S": "a"}, "emb": vec(1, 0, 0)})
    assert len(search(raw, t, TopK=1)["SearchResults"]) == 1
    assert len(search(raw, t, TopK=100)["SearchResults"]) == 1


def test_unknown_index_and_table(raw: Any) -> None:
    t = create(raw)
    assert_validation("The table does not have the specified index: nope", search, raw, t, IndexName="nope")
    assert_error("ResourceNotFoundException", "Requested resource not found", search, raw, "no-such-table")
    assert_error("ResourceNotFoundException", f"Requested resource not found: Index nope for table {t}",
                 raw.update_table, TableName=t, VectorIndexUpdates=[{"Delete": {"IndexName": "nope"}}])


def test_query_scan_and_partiql_do_not_read_vector_indexes(raw: Any) -> None:
    t = create(raw)
    raw.put_item(TableName=t, Item={"pk": {"S": "a"}, "emb": vec(1, 0, 0)})
    message = "The table does not have the specified index: emb-idx"
    assert_validation(message, raw.scan, TableName=t, IndexName="emb-idx")
    assert_validation(message, raw.query, TableName=t, IndexName="emb-idx", KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues={":p": {"S": "a"}})
    # ExecuteStatement's own words name no index (issue 36 §7)
    assert_validation("The table does not have the specified index", raw.execute_statement,
                      Statement=f'SELECT * FROM "{t}"."emb-idx"')


def test_dimensions_out_of_range(raw: Any) -> None:
    assert_validation(INVALID + "Dimensions must be between 1 and 4096, but was 4097",
                      create, raw, vector_index(dims=4097))
    create(raw, vector_index(dims=4096))


def test_search_schema_attribute_not_defined(raw: Any) -> None:
    assert_validation("One element in SearchSchema is not defined in attribute definitions",
                      create, raw, vector_index(schema=[("cat", "HASH")]))


def test_one_attribute_one_dimension_count(raw: Any) -> None:
    assert_validation(INVALID + "Vector attribute emb is indexed with 3 dimensions by another vector index, not 4",
                      create, raw, vector_index(name="one"), vector_index(name="two", dims=4))


def test_duplicate_index_name(raw: Any) -> None:
    assert_validation(INVALID + "Duplicate index name: emb-idx", create, raw, vector_index(), vector_index())


def test_filter_errors(raw: Any) -> None:
    t = create(raw, vector_index(schema=[("cat", "HASH"), ("color", "INLINE_FILTER")]),
               defs=[("cat", "S"), ("color", "S")])
    assert_validation("SearchConditionExpression must be provided when SearchSchema has a HASH key",
                      search, raw, t)
    assert_validation("SearchConditionExpression must be provided when SearchSchema has a HASH key",
                      search, raw, t, SearchConditionExpression="color = :c",
                      ExpressionAttributeValues={":c": {"S": "red"}})
    assert_validation("Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
                      search, raw, t, SearchConditionExpression="cat > :c",
                      ExpressionAttributeValues={":c": {"S": "a"}})
    # begins_with is one of the filter reference's functions; contains is not
    assert_validation("Invalid SearchConditionExpression: Invalid operator used in SearchConditionExpression",
                      search, raw, t, SearchConditionExpression="cat = :c AND contains(color, :c)",
                      ExpressionAttributeValues={":c": {"S": "a"}})
    assert_validation("SearchConditionExpression must not contain any attributes that is not in SearchSchema. "
                      "Invalid attribute: title",
                      search, raw, t, SearchConditionExpression="cat = :c AND title = :c",
                      ExpressionAttributeValues={":c": {"S": "a"}})
    # a condition's form (its comparator) before its attribute
    assert_validation("Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
                      search, raw, t, SearchConditionExpression="cat = :c AND title < :c",
                      ExpressionAttributeValues={":c": {"S": "a"}})


def test_search_condition_errors_name_the_parameter(raw: Any) -> None:
    """Syntax and placeholder errors of SearchConditionExpression name it, as every
    expression parameter's do (not the FilterExpression it is evaluated like)."""
    t = create(raw, vector_index(schema=[("cat", "HASH")]), defs=[("cat", "S")])
    prefix = "Invalid SearchConditionExpression: "
    assert_validation(prefix + 'Syntax error; token: "<EOF>", near: "= "',
                      search, raw, t, SearchConditionExpression="cat = ")
    assert_validation(prefix + "The expression can not be empty;", search, raw, t, SearchConditionExpression="")
    assert_validation(prefix + "An expression attribute value used in expression is not defined; attribute value: :x",
                      search, raw, t, SearchConditionExpression="cat = :x")
    assert_validation(prefix + "Attribute name is a reserved keyword; reserved keyword: size",
                      search, raw, t, SearchConditionExpression="size = :c",
                      ExpressionAttributeValues={":c": {"S": "a"}})
    assert_validation("ExpressionAttributeValues can only be specified when using expressions: "
                      "SearchConditionExpression is null",
                      search, raw, t, ProjectionExpression="pk", ExpressionAttributeValues={":c": {"S": "a"}})
    # the same shape again (the compiled-expression cache) answers the same
    assert_validation(prefix + "Invalid comparator used in SearchConditionExpression",
                      search, raw, t, SearchConditionExpression="cat > :c", ExpressionAttributeValues={":c": {"S": "b"}})
    assert_validation(prefix + "Invalid comparator used in SearchConditionExpression",
                      search, raw, t, SearchConditionExpression="cat > :c", ExpressionAttributeValues={":c": {"S": "b"}})
    put = raw.put_item(TableName=t, Item={"pk": {"S": "a"}, "cat": {"S": "x"}, "emb": vec(1, 0, 0)})
    assert put["ResponseMetadata"]["HTTPStatusCode"] == 200
    for _ in range(2):  # the second through the cache
        out = search(raw, t, SearchConditionExpression="#c = :c", ExpressionAttributeNames={"#c": "cat"},
                     ExpressionAttributeValues={":c": {"S": "x"}})
        assert [r["Item"]["pk"] for r in out["SearchResults"]] == [{"S": "a"}]


def test_response_limited_to_16_mb(virtual_default: tuple[Any, Any]) -> None:
    """"SearchVectors responses are limited to 16 MB. Pagination is not supported": 42
    results of ~400 KB are refused whole; 41 of them, or the 42 through a narrower
    ProjectionExpression, are answered. The 42 writes (~34,000 write units with the index's
    copies) are more than a new on-demand table takes in an instant: written a few at a
    time, 5 s apart on a virtual clock."""
    raw, clock = virtual_default
    t = create(raw)
    blob = "x" * 400_000
    for i in range(42):
        raw.put_item(TableName=t, Item={"pk": {"S": f"k{i:02}"}, "emb": vec(1, i, 0), "blob": {"S": blob}})
        if i % 5 == 4:
            clock.advance(5)
    clock.advance(5)
    assert_validation("SearchVectors response size has exceeded the maximum allowed size of 16 MB; "
                      "use a narrower projection or a smaller TopK", search, raw, t, TopK=42)
    clock.advance(5)
    out = search(raw, t, TopK=41)
    assert len(out["SearchResults"]) == 41
    assert all(len(r["Item"]["blob"]["S"]) == 400_000 for r in out["SearchResults"])
    out = search(raw, t, TopK=100, ProjectionExpression="pk")
    assert sorted(r["Item"]["pk"]["S"] for r in out["SearchResults"]) == [f"k{i:02}" for i in range(42)]
    assert all(set(r["Item"]) == {"pk"} for r in out["SearchResults"])
