"""PartiQL: ExecuteStatement and BatchExecuteStatement on a small table."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario
from compat.scenarios._util import pick, sorted_items


def _seeded(c: Ctx) -> str:
    name = c.table(range=("sk", "N"))
    for i in range(3):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"N": str(i)}, "v": {"S": f"v{i}"}})
    return name


def _run(c: Ctx, statement: str, params: list[dict[str, Any]] | None = None) -> Any:
    args: dict[str, Any] = {"Statement": statement}
    if params:
        args["Parameters"] = params
    return pick(c.call("execute_statement", **args), "Items", "NextToken")


@scenario("partiql")
def select_by_key(c: Ctx) -> Any:
    """SELECT with the whole key in the WHERE clause."""
    name = _seeded(c)
    return _run(c, f'SELECT * FROM "{name}" WHERE pk = ? AND sk = ?', [{"S": "p"}, {"N": "1"}])


@scenario("partiql")
def select_partition(c: Ctx) -> Any:
    """SELECT of one partition, projecting two attributes."""
    name = _seeded(c)
    return _run(c, f'SELECT sk, v FROM "{name}" WHERE pk = ?', [{"S": "p"}])


@scenario("partiql")
def insert_then_get(c: Ctx) -> Any:
    """INSERT of a new item, then GetItem; INSERT of an existing key."""
    name = _seeded(c)
    first = _run(c, f"INSERT INTO \"{name}\" VALUE {{'pk': 'q', 'sk': 7, 'v': 'new'}}")
    got = c.ddb.get_item(TableName=name, Key={"pk": {"S": "q"}, "sk": {"N": "7"}}).get("Item")
    again = _run(c, f"INSERT INTO \"{name}\" VALUE {{'pk': 'q', 'sk': 7}}")
    return {"first": first, "item": got, "again": again}


@scenario("partiql")
def update_and_delete(c: Ctx) -> Any:
    """UPDATE ... SET and DELETE by key, then a Scan."""
    name = _seeded(c)
    _run(c, f'UPDATE "{name}" SET v = ? WHERE pk = ? AND sk = ?', [{"S": "changed"}, {"S": "p"}, {"N": "0"}])
    _run(c, f'DELETE FROM "{name}" WHERE pk = ? AND sk = ?', [{"S": "p"}, {"N": "2"}])
    return sorted_items(c.ddb.scan(TableName=name)["Items"])


@scenario("partiql")
def syntax_error(c: Ctx) -> Any:
    """A statement that does not parse."""
    name = _seeded(c)
    return _run(c, f'SELEC * FROM "{name}"')


@scenario("partiql")
def missing_table(c: Ctx) -> Any:
    """SELECT from a table that does not exist."""
    return _run(c, f'SELECT * FROM "{c.name("missing")}" WHERE pk = ?', [{"S": "p"}])


@scenario("partiql")
def batch_execute(c: Ctx) -> Any:
    """BatchExecuteStatement of two reads (one missing) and an insert."""
    name = _seeded(c)
    r = c.call("batch_execute_statement", Statements=[
        {"Statement": f'SELECT * FROM "{name}" WHERE pk = ? AND sk = ?', "Parameters": [{"S": "p"}, {"N": "1"}]},
        {"Statement": f'SELECT * FROM "{name}" WHERE pk = ? AND sk = ?', "Parameters": [{"S": "p"}, {"N": "9"}]},
        {"Statement": f"INSERT INTO \"{name}\" VALUE {{'pk': 'b', 'sk': 1}}"},
    ])
    return pick(r, "Responses", "error", "message")


@scenario("partiql")
def execute_transaction(c: Ctx) -> Any:
    """ExecuteTransaction of an UPDATE and an INSERT, then a Scan."""
    name = _seeded(c)
    r = c.call("execute_transaction", TransactStatements=[
        {"Statement": f'UPDATE "{name}" SET v = ? WHERE pk = ? AND sk = ?', "Parameters": [{"S": "tx"}, {"S": "p"}, {"N": "1"}]},
        {"Statement": f"INSERT INTO \"{name}\" VALUE {{'pk': 't', 'sk': 1}}"},
    ])
    return {"answer": pick(r, "Responses", "error", "message"), "items": sorted_items(c.ddb.scan(TableName=name)["Items"])}


@scenario("partiql")
def select_with_limit(c: Ctx) -> Any:
    """ExecuteStatement SELECT with Limit 2: a NextToken follows."""
    name = _seeded(c)
    r = c.call("execute_statement", Statement=f'SELECT sk FROM "{name}" WHERE pk = ?', Parameters=[{"S": "p"}], Limit=2)
    return {"items": r.get("Items"), "next": "NextToken" in r, "error": r.get("error")}
