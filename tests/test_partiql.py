"""ExecuteStatement over HTTP with boto3: each statement form, its options and its errors."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
import urllib3

from tests.helpers import assert_error, assert_validation, error_of

MALFORMED = "Statement wasn't well formed, can't be processed: "
INCOMPLETE_KEY = "Where clause does not contain a mandatory equality on all key attributes"


def run(ddb: Any, statement: str, *params: dict[str, Any], **kw: Any) -> dict[str, Any]:
    if params:
        kw["Parameters"] = list(params)
    return ddb.execute_statement(Statement=statement, **kw)


_music_names = itertools.count()


@pytest.fixture
def music(ddb: Any) -> Iterator[str]:
    """``pk`` (S) / ``sk`` (N), a GSI ``by_genre`` on ``genre`` (S), and items a/1..a/3, b/1;
    its name needs no quotes."""
    name = f"music_{next(_music_names)}"
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"},
                              {"AttributeName": "genre", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_genre", "KeySchema": [{"AttributeName": "genre", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
    )
    fill(ddb, name)
    yield name
    ddb.delete_table(TableName=name)


def fill(ddb: Any, name: str) -> None:
    for pk, sk, genre in (("a", 1, "rock"), ("a", 2, "jazz"), ("a", 3, "rock"), ("b", 1, "pop")):
        run(ddb, f"INSERT INTO \"{name}\" VALUE {{'pk': ?, 'sk': ?, 'genre': ?, 'info': {{'tags': ['x', 'y']}}}}",
            {"S": pk}, {"N": str(sk)}, {"S": genre})


def sks(items: list[dict[str, Any]]) -> list[int]:
    return [int(i["sk"]["N"]) for i in items]


# --- INSERT ------------------------------------------------------------------------------------


def test_insert_every_literal_type_and_read_it_back(table: str, ddb: Any) -> None:
    out = run(ddb, f"INSERT INTO \"{table}\" VALUE {{'pk': 'k', 'n': 1.50, 'neg': -2, 'b': true, 'z': null, "
                   "'m': {'l': [1, 'two', <<'x', 'y'>>]}, 'ns': <<3, 1>>, 'q': 'it''s', 'p': ?}", {"B": b"\x01"})
    assert out["Items"] == []
    item = ddb.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]
    assert item == {"pk": {"S": "k"}, "n": {"N": "1.5"}, "neg": {"N": "-2"}, "b": {"BOOL": True},
                    "z": {"NULL": True}, "m": {"M": {"l": {"L": [{"N": "1"}, {"S": "two"}, {"SS": ["x", "y"]}]}}},
                    "ns": {"NS": ["1", "3"]}, "q": {"S": "it's"}, "p": {"B": b"\x01"}}


def test_insert_existing_key_is_a_duplicate(table: str, ddb: Any) -> None:
    run(ddb, f"INSERT INTO \"{table}\" VALUE {{'pk': 'k', 'v': 1}}")
    assert_error("DuplicateItemException", "Duplicate primary key exists in table",
                 run, ddb, f"INSERT INTO \"{table}\" VALUE {{'pk': 'k', 'v': 2}}")
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]["v"] == {"N": "1"}


def test_insert_whole_item_as_a_parameter_and_missing_key(table: str, ddb: Any) -> None:
    run(ddb, f"INSERT INTO \"{table}\" VALUE ?", {"M": {"pk": {"S": "p"}}})
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "p"}})["Item"] == {"pk": {"S": "p"}}
    assert_validation("One or more parameter values were invalid: Missing the key pk in the item",
                      run, ddb, f"INSERT INTO \"{table}\" VALUE {{'other': 1}}")
    assert_validation("One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N",
                      run, ddb, f"INSERT INTO \"{table}\" VALUE {{'pk': 1}}")


# --- SELECT ------------------------------------------------------------------------------------


def test_select_on_the_partition_key_with_projection_and_order(music: str, ddb: Any) -> None:
    out = run(ddb, f"SELECT sk, info.tags[1] FROM \"{music}\" WHERE pk = 'a' AND sk >= 2 ORDER BY sk DESC")
    assert out["Items"] == [{"sk": {"N": "3"}, "info": {"M": {"tags": {"L": [{"S": "y"}]}}}},
                            {"sk": {"N": "2"}, "info": {"M": {"tags": {"L": [{"S": "y"}]}}}}]
    out = run(ddb, f"SELECT * FROM \"{music}\" WHERE pk = ? AND genre = 'rock' ORDER BY sk ASC", {"S": "a"})
    assert sks(out["Items"]) == [1, 3]


def test_select_in_and_or_read_several_partitions(music: str, ddb: Any) -> None:
    out = run(ddb, f"SELECT pk, sk FROM \"{music}\" WHERE pk IN ['b', 'a'] AND sk < 3")
    assert [(i["pk"]["S"], int(i["sk"]["N"])) for i in out["Items"]] == [("b", 1), ("a", 1), ("a", 2)]
    out = run(ddb, f"SELECT sk FROM \"{music}\" WHERE pk = 'b' OR pk = 'zz'")
    assert sks(out["Items"]) == [1]


def test_select_without_the_partition_key_scans(music: str, ddb: Any) -> None:
    out = run(ddb, f"SELECT pk, sk FROM \"{music}\" WHERE genre = 'rock'")
    assert sorted(sks(out["Items"])) == [1, 3]
    assert len(run(ddb, f"SELECT * FROM \"{music}\"")["Items"]) == 4
    assert len(run(ddb, f"SELECT * FROM {music} WHERE sk > 1")["Items"]) == 2  # an unquoted name


def test_select_reads_only_the_fixed_partition(table: str, ddb: Any) -> None:
    """A Query is charged for what one partition holds; a Scan for the whole table."""
    big = "x" * 3000
    for i in range(6):
        run(ddb, f"INSERT INTO \"{table}\" VALUE {{'pk': ?, 'big': ?}}", {"S": f"k{i}"}, {"S": big})
    query = run(ddb, f"SELECT * FROM \"{table}\" WHERE pk = 'k1'", ReturnConsumedCapacity="TOTAL")
    scan = run(ddb, f"SELECT * FROM \"{table}\" WHERE big = 'nope'", ReturnConsumedCapacity="TOTAL")
    assert query["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 0.5}
    assert scan["Items"] == [] and scan["ConsumedCapacity"]["CapacityUnits"] == 2.5  # 18 KB / 4 KB, halved
    strong = run(ddb, f"SELECT * FROM \"{table}\" WHERE pk = 'k1'", ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert strong["ConsumedCapacity"]["CapacityUnits"] == 1.0


def test_select_from_an_index(music: str, ddb: Any) -> None:
    out = run(ddb, f"SELECT pk, sk FROM \"{music}\".\"by_genre\" WHERE genre = 'rock'", ReturnConsumedCapacity="INDEXES")
    assert sorted(sks(out["Items"])) == [1, 3]
    assert set(out["ConsumedCapacity"]["GlobalSecondaryIndexes"]) == {"by_genre"}
    # ExecuteStatement's own words (issue 36 §7), not Query's
    assert_validation("The table does not have the specified index",
                      run, ddb, f"SELECT * FROM \"{music}\".\"nope\" WHERE genre = 'rock'")
    assert_validation("Strongly consistent read is not supported on Global Secondary Indexes",
                      run, ddb, f"SELECT * FROM \"{music}\".\"by_genre\" WHERE genre = 'rock'", ConsistentRead=True)


@pytest.mark.parametrize("where", ["WHERE pk IN ['a', 'b']", "WHERE sk > 0"])
def test_limit_and_next_token_page_through_everything(music: str, ddb: Any, where: str) -> None:
    statement = f"SELECT pk, sk FROM \"{music}\" {where}"
    seen: list[tuple[str, int]] = []
    kwargs: dict[str, Any] = {}
    for _ in range(20):
        out = run(ddb, statement, Limit=1, **kwargs)
        seen += [(i["pk"]["S"], int(i["sk"]["N"])) for i in out["Items"]]
        if "NextToken" not in out:
            break
        kwargs["NextToken"] = out["NextToken"]
    assert sorted(seen) == [("a", 1), ("a", 2), ("a", 3), ("b", 1)]
    assert_validation("The provided NextToken is invalid", run, ddb, statement, NextToken="garbage")


def test_condition_functions(music: str, ddb: Any) -> None:
    def select(where: str) -> list[int]:
        return sks(run(ddb, f"SELECT sk FROM \"{music}\" WHERE pk = 'a' AND {where}")["Items"])

    assert select("begins_with(genre, 'ro')") == [1, 3]
    assert select("contains(info.tags, 'y')") == [1, 2, 3]
    assert select("attribute_type(genre, 'S') AND size(info.tags) = 2") == [1, 2, 3]
    assert select("\"nothing\" IS MISSING AND genre IS NOT MISSING AND sk BETWEEN 2 AND 3") == [2, 3]
    assert select("(genre NOT IN ['rock'] OR sk <> 3)") == [1, 2]
    # AND binds tighter than OR: this one also reads partition b
    out = run(ddb, f"SELECT sk FROM \"{music}\" WHERE pk = 'a' AND genre = 'jazz' OR sk = 1")
    assert sorted(sks(out["Items"])) == [1, 1, 2]


# --- UPDATE ------------------------------------------------------------------------------------


def test_update_set_remove_and_the_update_functions(music: str, ddb: Any) -> None:
    out = run(ddb, f"UPDATE \"{music}\" SET n = 10, info.tags = list_append(info.tags, ['z']) "
                   f"SET s = <<'p'>> REMOVE genre WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *")
    assert out["Items"] == [{"pk": {"S": "a"}, "sk": {"N": "1"}, "n": {"N": "10"}, "s": {"SS": ["p"]},
                             "info": {"M": {"tags": {"L": [{"S": "x"}, {"S": "y"}, {"S": "z"}]}}}}]
    out = run(ddb, f"UPDATE \"{music}\" SET n = n + 5 SET s = set_add(s, <<'q'>>) WHERE pk = 'a' AND sk = 1 "
                   "RETURNING MODIFIED NEW *")
    assert out["Items"] == [{"n": {"N": "15"}, "s": {"SS": ["p", "q"]}}]
    out = run(ddb, f"UPDATE \"{music}\" SET s = set_delete(s, <<'p'>>) WHERE pk = 'a' AND sk = 1 RETURNING ALL OLD *")
    assert out["Items"][0]["s"] == {"SS": ["p", "q"]}
    item = ddb.get_item(TableName=music, Key={"pk": {"S": "a"}, "sk": {"N": "1"}})["Item"]
    assert item["s"] == {"SS": ["q"]} and "genre" not in item
    # the index followed the write: the GSI no longer has a/1 under rock
    gsi = ddb.query(TableName=music, IndexName="by_genre", KeyConditionExpression="genre = :g",
                    ExpressionAttributeValues={":g": {"S": "rock"}})
    assert sks(gsi["Items"]) == [3]


def test_update_needs_an_existing_item_and_its_condition(music: str, ddb: Any) -> None:
    assert_error("ConditionalCheckFailedException", "The conditional request failed",
                 run, ddb, f"UPDATE \"{music}\" SET n = 1 WHERE pk = 'zz' AND sk = 1")
    assert ddb.get_item(TableName=music, Key={"pk": {"S": "zz"}, "sk": {"N": "1"}}).get("Item") is None
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException) as info:
        run(ddb, f"UPDATE \"{music}\" SET n = 1 WHERE pk = 'a' AND sk = 2 AND genre = 'rock'",
            ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert info.value.response["Item"]["genre"] == {"S": "jazz"}


def test_update_errors(music: str, ddb: Any) -> None:
    assert_validation(INCOMPLETE_KEY, run, ddb, f"UPDATE \"{music}\" SET n = 1 WHERE pk = 'a'")
    assert_validation("One or more parameter values were invalid: Cannot update attribute sk. This attribute is "
                      "part of the key", run, ddb, f"UPDATE \"{music}\" SET sk = 5 WHERE pk = 'a' AND sk = 1")
    assert_validation("An operand in the update expression has an incorrect data type",
                      run, ddb, f"UPDATE \"{music}\" SET genre = genre + 1 WHERE pk = 'a' AND sk = 1")


# --- DELETE ------------------------------------------------------------------------------------


def test_delete(music: str, ddb: Any) -> None:
    out = run(ddb, f"DELETE FROM \"{music}\" WHERE pk = 'a' AND sk = 3 RETURNING ALL OLD *",
              ReturnConsumedCapacity="TOTAL")
    assert sks(out["Items"]) == [3]
    assert out["ConsumedCapacity"]["CapacityUnits"] == 2.0  # the table and its GSI
    assert run(ddb, f"DELETE FROM \"{music}\" WHERE pk = 'a' AND sk = 3")["Items"] == []  # gone: nothing to do
    assert_error("ConditionalCheckFailedException", "The conditional request failed",
                 run, ddb, f"DELETE FROM \"{music}\" WHERE pk = 'a' AND sk = 2 AND genre = 'rock'")
    assert_validation(INCOMPLETE_KEY, run, ddb, f"DELETE FROM \"{music}\" WHERE pk = 'a'")
    assert ddb.describe_table(TableName=music)["Table"]["ItemCount"] == 3


# --- errors ------------------------------------------------------------------------------------


def test_syntax_errors_in_the_service_words(table: str, ddb: Any) -> None:
    # the service's parse errors carry no position (issue 37; issue 43 asked for one)
    assert_validation(MALFORMED + "Expected FROM after SELECT list", run, ddb, f"SELECT * FORM \"{table}\"")
    assert_validation(MALFORMED + "Expected data manipulation", run, ddb, f"SELEC * FROM \"{table}\"")
    assert_validation(MALFORMED + "Unexpected keyword", run, ddb, "DROP TABLE x")
    # a syntax error is reported before the table is looked up
    assert_validation(MALFORMED + "Unexpected term", run, ddb, "SELECT * FROM nope WHERE")


def test_unknown_table(ddb: Any) -> None:
    assert_error("ResourceNotFoundException", "Requested resource not found", run, ddb, "SELECT * FROM no_such_table")


def test_parameter_count(table: str, ddb: Any) -> None:
    expected = "Number of parameters in request and statement don't match."
    assert_validation(expected, run, ddb, f"SELECT * FROM \"{table}\" WHERE pk = ?")
    assert_validation(expected, run, ddb, f"SELECT * FROM \"{table}\" WHERE pk = ?", {"S": "a"}, {"S": "b"})


def test_unsupported_constructs(table: str, ddb: Any) -> None:
    statement = f"SELECT * FROM \"{table}\" WHERE upper(pk) = 'A'"
    column = statement.index("upper") + 1
    assert_validation(f"Unrecognized function: upper at 1:{column}:5", run, ddb, statement)
    assert_validation("Unsupported operation: arithmetic in a WHERE clause",
                      run, ddb, f"SELECT * FROM \"{table}\" WHERE n + 1 = 2")
    assert_validation("ORDER BY is supported only on key attributes; n is not a key attribute",
                      run, ddb, f"SELECT * FROM \"{table}\" WHERE pk = 'a' ORDER BY n")
    assert_validation("Must have WHERE clause in the statement when using ORDER BY clause.",
                      run, ddb, f"SELECT * FROM \"{table}\" ORDER BY pk")
    assert_validation("EXISTS is supported only in ExecuteTransaction",
                      run, ddb, f"EXISTS(SELECT * FROM \"{table}\" WHERE pk = 'a')")


def test_statement_longer_than_8192_characters(table: str, server_url: str) -> None:
    """botocore does not check the maximum length: send the request raw."""
    statement = f"SELECT * FROM \"{table}\" WHERE pk = '{'x' * 8200}'"
    response = urllib3.PoolManager().request(
        "POST", server_url, body=orjson.dumps({"Statement": statement}),
        headers={"X-Amz-Target": "DynamoDB_20120810.ExecuteStatement", "Content-Type": "application/x-amz-json-1.0",
                 "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request"},
    )
    body = orjson.loads(response.data)
    assert response.status == 400
    assert body["__type"] == "com.amazon.coral.validate#ValidationException"
    assert body["message"].endswith("at 'statement' failed to satisfy constraint: Member must have length less than "
                                    "or equal to 8192")


@pytest.mark.parametrize(
    "statement",
    ["", "SELECT", "SELECT * FROM", "INSERT INTO t VALUE 5", "UPDATE t SET", "SELECT * FROM t WHERE a IN",
     "SELECT * FROM t WHERE (a = 1", "SELECT * FROM t WHERE a = <<>>", "SELECT * FROM t WHERE a = 1e999999",
     "DELETE FROM t WHERE a = {'x': ?}", "SELECT a[99999999999999999999] FROM t", "\x00", "'", '"',
     "UPDATE t SET a = list_append(a) WHERE pk = 1"],
)
def test_bad_statements_are_client_errors(ddb: Any, statement: str) -> None:
    code, _ = error_of(run, ddb, statement) if statement else ("ParamValidationError", "")
    assert code in ("ValidationException", "ResourceNotFoundException", "ParamValidationError")


def test_insert_over_400_kb_is_refused(table: str, ddb: Any) -> None:
    assert_validation("Item size has exceeded the maximum allowed size",
                      run, ddb, f"INSERT INTO \"{table}\" VALUE {{'pk': 'k', 'big': ?}}", {"S": "x" * (400 * 1024)})
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "k"}}).get("Item") is None


def test_next_token_of_another_statement_is_refused(music: str, ddb: Any) -> None:
    out = run(ddb, f"SELECT * FROM \"{music}\" WHERE pk = 'a'", Limit=1)
    assert_validation("The provided NextToken is invalid",
                      run, ddb, f"SELECT * FROM \"{music}\" WHERE pk = 'b'", Limit=1, NextToken=out["NextToken"])


def test_order_by_needs_the_partition_key_fixed(music: str, ddb: Any) -> None:
    assert_validation("Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY "
                      "clause.", run, ddb, f"SELECT * FROM \"{music}\" WHERE genre = 'rock' ORDER BY sk")


def test_in_on_the_partition_key_pages_by_ten(table: str, ddb: Any) -> None:
    for i in range(12):
        run(ddb, f"INSERT INTO \"{table}\" VALUE {{'pk': ?}}", {"S": f"k{i}"})
    keys = ", ".join(f"'k{i}'" for i in range(12))
    first = run(ddb, f"SELECT pk FROM \"{table}\" WHERE pk IN [{keys}]")
    assert len(first["Items"]) == 10 and "NextToken" in first
    rest = run(ddb, f"SELECT pk FROM \"{table}\" WHERE pk IN [{keys}]", NextToken=first["NextToken"])
    assert len(rest["Items"]) == 2 and "NextToken" not in rest
    many = ", ".join(f"'k{i}'" for i in range(51))
    assert_validation("The IN operator takes at most 50 values of the partition key; it was given 51",
                      run, ddb, f"SELECT pk FROM \"{table}\" WHERE pk IN [{many}]")
    many = ", ".join(str(i) for i in range(101))
    assert_validation("The IN operator takes at most 100 values; it was given 101",
                      run, ddb, f"SELECT pk FROM \"{table}\" WHERE v IN [{many}]")


def test_attributes_an_index_does_not_project(ddb: Any) -> None:
    name = f"keys_only_{next(_music_names)}"
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}}],
    )
    try:
        run(ddb, f"INSERT INTO {name} VALUE {{'pk': 'a', 'g': 'x', 'other': 1}}")
        assert run(ddb, f"SELECT * FROM {name}.by_g WHERE g = 'x'")["Items"] == [{"pk": {"S": "a"}, "g": {"S": "x"}}]
        assert_validation("One or more parameter values were invalid: Global secondary index by_g does not project "
                          "[other]", run, ddb, f"SELECT other FROM {name}.by_g WHERE g = 'x'")
    finally:
        ddb.delete_table(TableName=name)
