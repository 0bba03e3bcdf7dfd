"""The PartiQL tokenizer, parser and translation, tested directly (engine units)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynemu.engine.expressions import ast as ex
from dynemu.engine.partiql import ast
from dynemu.engine.partiql.parser import parse
from dynemu.engine.partiql.tokenizer import tokenize
from dynemu.engine.partiql.translate import bind, plan_get, plan_select, plan_write
from dynemu.errors import DynamoError

KEYS = [("pk", "HASH", "S"), ("sk", "RANGE", "N")]
MALFORMED = "Statement wasn't well formed, can't be processed: "


def message(text: str, params: list[Any] | None = None) -> str:
    with pytest.raises(DynamoError) as info:
        bind(parse(text), params)
    assert info.value.type_name == "ValidationException"
    return info.value.message


def statement(text: str, params: list[Any] | None = None) -> Any:
    return bind(parse(text), params)


# --- tokens ----------------------------------------------------------------------------------


def test_tokens_carry_line_column_and_length() -> None:
    tokens = tokenize("SELECT *\n  FROM \"my table\" /* c */ WHERE a IS NOT -- x\n MISSING AND b = 'it''s'")
    by_text = {t.text: (t.kind, t.line, t.column, t.length) for t in tokens}
    assert by_text["from"] == ("KEYWORD", 2, 3, 4)
    assert by_text["my table"] == ("QNAME", 2, 8, 10)
    assert by_text["is_not"] == ("OPERATOR", 2, 35, 6)  # IS NOT is one token
    assert by_text["it's"] == ("STRING", 3, 18, 7)
    assert tokens[-1].kind == "EOF"


@pytest.mark.parametrize("text", ["SELECT * FROM t # x", "SELECT * FROM t /* open", "SELECT 'open FROM t",
                                  "SELECT * FROM t WHERE a = 1e2147483648",
                                  "SELECT * FROM t WHERE a = 1.5e-2147483647"])
def test_lexical_errors_have_no_detail(text: str) -> None:
    assert message(text) == MALFORMED


# --- statements ------------------------------------------------------------------------------


def test_select_with_nested_projection_index_and_order() -> None:
    s = statement('SELECT a, b.c[1], "d e" FROM "T"."I" WHERE pk = ? ORDER BY sk DESC', [{"S": "x"}])
    assert isinstance(s, ast.Select)
    assert s.source == ast.Source("T", "I")
    assert [p.elements for p in s.projection] == [("a",), ("b", "c", 1), ("d e",)]
    assert repr(s.where) == repr(ex.Compare("=", ex.Path(("pk",)), ex.Literal({"S": "x"})))
    assert s.order_by == (ast.OrderBy("sk", True),)


def test_insert_literals_and_parameters_inside_collections() -> None:
    s = statement("INSERT INTO t VALUE {'pk': 'a', 'n': -1.50, 'l': [1, ?, <<'x', 'y'>>], 'b': TRUE, 'z': null, "
                  "'ns': <<1, 2>>}", [{"N": "7"}])
    assert isinstance(s, ast.Insert)
    assert s.value.value == {"M": {  # type: ignore[union-attr]
        "pk": {"S": "a"}, "n": {"N": "-1.5"}, "l": {"L": [{"N": "1"}, {"N": "7"}, {"SS": ["x", "y"]}]},
        "b": {"BOOL": True}, "z": {"NULL": True}, "ns": {"NS": ["1", "2"]}}}


def test_update_actions_and_returning() -> None:
    s = statement("UPDATE t SET a = a + 1, b = list_append(b, [1]) SET s = set_add(s, <<'q'>>) "
                  "REMOVE c REMOVE d[2] SET e = set_delete(e, <<1>>) WHERE pk = 'x' AND sk = 1 RETURNING MODIFIED NEW *")
    assert isinstance(s, ast.Update)
    assert [(a.kind, a.path.elements) for a in s.actions] == [
        ("SET", ("a",)), ("SET", ("b",)), ("ADD", ("s",)), ("REMOVE", ("c",)), ("REMOVE", ("d", 2)), ("DELETE", ("e",))]
    assert s.returning == "UPDATED_NEW"


def test_functions_and_operators_become_expression_nodes() -> None:
    s = statement("SELECT * FROM t WHERE begins_with(a, 'x') AND contains(b, 1) AND attribute_type(c, 'S') "
                  "AND size(d) > 2 AND e IS MISSING AND f IS NOT MISSING AND g BETWEEN 1 AND 5 "
                  "AND h NOT IN [1, 2] AND (i <> 1 OR NOT j != 2)")
    items = s.where.items
    # (Literal compares by identity: compare the trees' text)
    assert repr(items[0]) == repr(ex.Func("begins_with", (ex.Path(("a",)), ex.Literal({"S": "x"}))))
    assert repr(items[3]) == repr(ex.Compare(">", ex.Func("size", (ex.Path(("d",)),)), ex.Literal({"N": "2"})))
    assert items[4] == ex.Func("attribute_not_exists", (ex.Path(("e",)),))
    assert items[5] == ex.Func("attribute_exists", (ex.Path(("f",)),))
    assert isinstance(items[6], ex.Between)
    assert isinstance(items[7], ex.Not) and isinstance(items[7].operand, ex.In)
    assert isinstance(items[8], ex.Or)


def test_exists_and_delete() -> None:
    s = statement("EXISTS(SELECT * FROM t WHERE pk = 'a' AND x IS MISSING)")
    assert isinstance(s, ast.Exists) and s.select.source.table == "t"
    d = statement("delete from t where pk = 'a' returning all old *;")
    assert isinstance(d, ast.Delete) and d.returning == "ALL_OLD"


# --- syntax errors: DynamoDB's prefix, the token and its position ----------------------------------


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("SELECT * FROM t WHERE", "Unexpected term"),
        ("SELECT * FROM t WHERE value = 1", "Unexpected keyword"),
        ("SELECT * FROM t\nWHERE a == 1", "Unexpected operator"),
        ("CREATE TABLE t", "Unexpected keyword"),
        ("UPDATE t WHERE pk = 'a'", "Expected data manipulation"),
        ("SELECT * FROM t WHERE a = 1 extra", "Unexpected token after expression"),
        ("SELECT * FROM t; SELECT", "Unexpected token after semicolon. (Only one query is allowed.)"),
        ("SELECT * FROM t WHERE a BETWEEN 1 2", "Expected AND keyword"),
        ("SELECT * FROM t WHERE a IN (1, 2", "Expected RIGHT_PAREN"),
        ("SELECT * FROM t WHERE a = {'x' 1}", "Expected COLON"),
        ("UPDATE t SET a 1 WHERE pk = 'a'", "Expected '='"),
        ("DELETE t WHERE pk = 'a'", "Expected FROM after DELETE"),
        ("SELECT a, * FROM t", "Other expressions may not be present in the select list when '*' is used "
                               "without dot notation."),
        ("DELETE FROM t WHERE pk = 'a' RETURNING NEW *", "Expected ( MODIFIED | ALL ) ( NEW | OLD ) in each "
                                                         "returning element."),
    ],
)
def test_syntax_errors(text: str, detail: str) -> None:
    assert message(text) == MALFORMED + detail


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SELECT * FROM t WHERE upper(a) = 'A'", "Unrecognized function: upper at 1:23:5"),
        ("SELECT * FROM t WHERE begins_with(a) ", "Incorrect number of operands for operator or function; "
                                                  "operator or function: begins_with, number of operands: 1"),
        ("DELETE FROM t WHERE pk = 'a' RETURNING ALL NEW *", "Unsupported operation: RETURNING takes ALL OLD *, "
         "MODIFIED OLD *, ALL NEW * or MODIFIED NEW * (DELETE: ALL OLD *)"),
    ],
)
def test_refusals_after_parsing(text: str, expected: str) -> None:
    assert message(text) == expected


def test_parameter_count_must_match() -> None:
    expected = "Number of parameters in request and statement don't match."
    assert message("SELECT * FROM t WHERE a = ? AND b = ?", [{"S": "x"}]) == expected
    assert message("SELECT * FROM t WHERE a = ?") == expected
    assert message("SELECT * FROM t", [{"S": "x"}]) == expected


def test_mixed_set_literal_is_refused() -> None:
    assert message("INSERT INTO t VALUE {'pk': 'a', 's': <<'x', 1>>}").startswith("Unsupported set")


# --- translation -----------------------------------------------------------------------------


def test_select_fixing_the_partition_key_is_a_query() -> None:
    p = plan_select(statement("SELECT * FROM t WHERE pk = 'a' AND sk >= 3 AND x = 1"), KEYS)
    assert p.partitions == ({"S": "a"},)
    assert (p.sort.op, p.sort.values) == ("GE", ({"N": "3"},))  # type: ignore[union-attr]
    p = plan_select(statement("SELECT * FROM t WHERE pk IN ['a', 'b', 'a'] AND begins_with(x, 'q')"), KEYS)
    assert p.partitions == ({"S": "a"}, {"S": "b"}) and p.sort is None
    p = plan_select(statement("SELECT * FROM t WHERE pk = 'a' OR pk = 'c'"), KEYS)
    assert p.partitions == ({"S": "a"}, {"S": "c"})
    p = plan_select(statement("SELECT * FROM t WHERE 5 < sk AND 'a' = pk ORDER BY sk DESC"), KEYS)
    assert p.partitions == ({"S": "a"},) and p.sort.op == "GT" and p.forward is False  # type: ignore[union-attr]


@pytest.mark.parametrize("where", ["", " WHERE pk > 'a'", " WHERE x = 1", " WHERE pk = 'a' OR x = 1"])
def test_other_selects_are_scans(where: str) -> None:
    assert plan_select(statement("SELECT * FROM t" + where), KEYS).is_scan


def test_order_by_rules() -> None:
    assert message_of(lambda: plan_select(statement("SELECT * FROM t ORDER BY sk"), KEYS)) == (
        "Must have WHERE clause in the statement when using ORDER BY clause.")
    assert "not a key attribute" in message_of(
        lambda: plan_select(statement("SELECT * FROM t WHERE pk = 'a' ORDER BY x"), KEYS))


def message_of(call: Any) -> str:
    with pytest.raises(DynamoError) as info:
        call()
    return info.value.message


def test_writes_need_the_full_key() -> None:
    batch = "Select statements within BatchExecuteStatement must specify the primary key in the where clause."
    incomplete = "Where clause does not contain a mandatory equality on all key attributes"
    for text in ("UPDATE t SET a = 1 WHERE pk = 'a'", "DELETE FROM t WHERE pk = 'a' OR sk = 1",
                 "DELETE FROM t WHERE pk = 'a' AND sk > 1"):
        assert message_of(lambda t=text: plan_write(statement(t), KEYS)) == incomplete
    assert message_of(lambda: plan_get(statement("SELECT * FROM t WHERE pk = 'a'"), KEYS, batch)) == batch


def test_update_plan_keeps_the_rest_of_where_as_condition() -> None:
    p = plan_write(statement("UPDATE t SET a = 1 WHERE pk = 'a' AND sk = 2 AND b = 3"), KEYS)
    assert p.key == {"pk": {"S": "a"}, "sk": {"N": "2"}}
    assert p.condition.evaluate({"pk": {"S": "a"}, "b": {"N": "3"}})  # type: ignore[union-attr]
    assert not p.condition.evaluate(None)  # type: ignore[union-attr]  # UPDATE needs the item
    assert message_of(lambda: plan_write(statement("UPDATE t SET sk = 1 WHERE pk = 'a' AND sk = 2"), KEYS)) == (
        "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key")


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * FROM t WHERE a + 1 = 2",
        "UPDATE t SET a = size(b) WHERE pk = 'a' AND sk = 1",
    ],
)
def test_unsupported_constructs(text: str) -> None:
    def run() -> None:
        s = statement(text)
        plan_select(s, KEYS) if isinstance(s, ast.Select) else plan_write(s, KEYS)

    assert message_of(run).startswith("Unsupported operation: ")


# --- robustness: any token soup is a DynamoError or a plan the engine can run ---------------------

VOCABULARY = ["SELECT", "*", "FROM", "t", "\"t\".\"i\"", "WHERE", "pk", "sk", "a", "a.b", "a[0]", "=", "<>", "<",
              ">=", "AND", "OR", "NOT", "IN", "[", "]", "(", ")", ",", "BETWEEN", "IS", "MISSING", "NULL", "?",
              "'x'", "1", "-2", "{", "}", "'k'", ":", "<<", ">>", "begins_with(", "size(", "contains(",
              "attribute_type(", "list_append(", "set_add(", "set_delete(", "upper(", "+", "-", "INSERT", "INTO",
              "VALUE", "UPDATE", "SET", "REMOVE", "DELETE", "RETURNING", "ALL", "OLD", "NEW", "MODIFIED",
              "EXISTS", "ORDER", "BY", "DESC", "TRUE", ";", "'", "\""]
PREFIXES = ["SELECT * FROM t WHERE ", "UPDATE t SET a = ", "UPDATE t SET ", "DELETE FROM t WHERE pk = 'x' AND sk = 1 AND ",
            "INSERT INTO t VALUE {'pk': 'x', 'sk': 1, 'a': ", "SELECT a FROM t WHERE pk = 'x' AND sk = 1 AND ", ""]
ITEM = {"pk": {"S": "x"}, "sk": {"N": "1"}, "a": {"M": {"b": {"L": [{"N": "1"}]}}}, "s": {"SS": ["x"]}}


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PREFIXES), st.lists(st.sampled_from(VOCABULARY), max_size=14))
def test_token_soup_never_escapes_as_another_exception(prefix: str, words: list[str]) -> None:
    text = prefix + " ".join(words)
    try:
        parsed = parse(text)
        s = bind(parsed, [{"N": "1"}] * parsed.parameters)
        if isinstance(s, ast.Select):
            plan = plan_select(s, KEYS)
            if plan.filter is not None:
                plan.filter.evaluate(ITEM)
            if plan.projection is not None:
                plan.projection.apply(ITEM)
        else:
            p = plan_write(s, KEYS)
            if p.condition is not None:
                p.condition.evaluate(ITEM)
            if p.update is not None:
                p.update.apply(ITEM, {"pk": {"S": "x"}, "sk": {"N": "1"}})
    except DynamoError as e:
        assert e.type_name == "ValidationException"


@pytest.mark.parametrize(
    "text",
    ["SELECT * FROM t WHERE " + "(" * 3000 + "a = 1" + ")" * 3000,
     "SELECT * FROM t WHERE " + "NOT " * 3000 + "a = 1",
     "UPDATE t SET a = " + "(" * 3000 + "1" + ")" * 3000 + " WHERE pk = 'x' AND sk = 1",
     "INSERT INTO t VALUE " + "{'a': " * 3000 + "1" + "}" * 3000,
     "SELECT * FROM t WHERE a = " + "size(" * 3000 + "a" + ")" * 3000],
)
def test_deep_nesting_is_refused_not_a_crash(text: str) -> None:
    assert "nested too deeply" in message(text)


def test_update_paths_must_not_overlap() -> None:
    assert message_of(lambda: plan_write(statement("UPDATE t SET a = 1 REMOVE a.b WHERE pk = 'x' AND sk = 1"), KEYS)) \
        == ("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], "
            "path two: [a, b]")
