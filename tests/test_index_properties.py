"""Property: after any sequence of PutItem, UpdateItem, DeleteItem, BatchWriteItem and
TransactWriteItems, every index holds exactly the projection of the items that belong in
it (and DescribeTable's ItemCount / IndexSizeBytes agree) -- also after the server has been
restarted on its LevelDB data directory. Writes refused for an index key of the wrong type
change nothing."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import orjson
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynemu.engine.values import item_size
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.test_indexes import ad, gsi, ks, lsi
from tests.test_server_process import Process

Item = dict[str, Any]
TABLE = "props"
# name -> (key attributes, projected non-key attributes or None for ALL)
INDEXES: dict[str, tuple[tuple[str, ...], tuple[str, ...] | None]] = {
    "lsi_l": (("pk", "l"), ()),
    "lsi_m": (("pk", "m"), ("x",)),
    "g_all": (("g", "n"), None),
    "g_keys": (("g",), ()),
    "g_inc": (("n", "m"), ("y",)),
}
TYPES = {"pk": "S", "sk": "N", "l": "N", "m": "S", "g": "S", "n": "N"}
_dirs = itertools.count()


def create_table(c: Any) -> None:
    c.create_table(
        TableName=TABLE, KeySchema=ks(("pk", "HASH"), ("sk", "RANGE")), AttributeDefinitions=ad(**TYPES),
        BillingMode="PAY_PER_REQUEST",
        LocalSecondaryIndexes=[lsi("lsi_l", "l", "KEYS_ONLY"), lsi("lsi_m", "m", "INCLUDE", "x")],
        GlobalSecondaryIndexes=[gsi("g_all", "g", "n", "ALL"), gsi("g_keys", "g", None, "KEYS_ONLY"),
                                gsi("g_inc", "n", "m", "INCLUDE", "y")],
    )


# --- the model ----------------------------------------------------------------------------------


def projection(index: str, item: Item) -> Item | None:
    keys, non_key = INDEXES[index]
    if any(k not in item for k in keys):
        return None
    if non_key is None:
        return item
    names = set(keys) | {"pk", "sk"} | set(non_key)
    return {k: v for k, v in item.items() if k in names}


def canonical(items: list[Item]) -> list[bytes]:
    return sorted(orjson.dumps(i, option=orjson.OPT_SORT_KEYS) for i in items)


def check(c: Any, model: dict[tuple[str, int], Item]) -> None:
    desc = c.describe_table(TableName=TABLE)["Table"]
    counts = {d["IndexName"]: (d["ItemCount"], d["IndexSizeBytes"])
              for d in desc["LocalSecondaryIndexes"] + desc["GlobalSecondaryIndexes"]}
    assert desc["ItemCount"] == len(model)
    for index in INDEXES:
        got: list[Item] = []
        start = None
        while True:
            page = c.scan(TableName=TABLE, IndexName=index, Limit=7, **({"ExclusiveStartKey": start} if start else {}))
            got += page["Items"]
            start = page.get("LastEvaluatedKey")
            if start is None:
                break
        want = [p for p in (projection(index, i) for i in model.values()) if p is not None]
        assert canonical(got) == canonical(want), index
        assert counts[index] == (len(want), sum(item_size(p) for p in want)), index


# --- operations -----------------------------------------------------------------------------------

keys = st.tuples(st.sampled_from(["a", "b"]), st.integers(1, 3))
values = {
    "l": st.sampled_from([{"N": "1"}, {"N": "2"}]),
    "m": st.sampled_from([{"S": "a"}, {"S": "b"}]),
    "g": st.sampled_from([{"S": "A"}, {"S": "B"}, {"S": "B"}, {"N": "1"}]),  # N: the wrong type
    "n": st.sampled_from([{"N": "1"}, {"N": "2"}]),
    "x": st.sampled_from([{"S": "x"}, {"S": "xx" * 20}]),
    "y": st.sampled_from([{"L": [{"S": "y"}]}, {"S": "y"}]),
    "z": st.just({"S": "z"}),
}
attrs = st.fixed_dictionaries({}, optional=values)
put = st.tuples(st.just("put"), keys, attrs)
update = st.tuples(st.just("update"), keys, attrs, st.lists(st.sampled_from(sorted(values)), max_size=3, unique=True))
delete = st.tuples(st.just("delete"), keys)
single = st.one_of(put, update, delete)
transaction = st.tuples(st.just("txn"), st.lists(single, min_size=1, max_size=4, unique_by=lambda op: op[1]))
batch = st.tuples(st.just("batch"), st.lists(st.one_of(put, delete), min_size=1, max_size=4, unique_by=lambda op: op[1]))
operation = st.one_of(single, single, transaction, batch)


def key_of(k: tuple[str, int]) -> Item:
    return {"pk": {"S": k[0]}, "sk": {"N": str(k[1])}}


def _update_args(op: tuple[Any, ...]) -> dict[str, Any]:
    _, k, sets, removes = op
    removes = [r for r in removes if r not in sets]
    names = {f"#{a}": a for a in list(sets) + removes}
    parts = []
    if sets:
        parts.append("SET " + ", ".join(f"#{a} = :{a}" for a in sets))
    if removes:
        parts.append("REMOVE " + ", ".join(f"#{a}" for a in removes))
    args: dict[str, Any] = {"Key": key_of(k), "UpdateExpression": " ".join(parts) or "SET #z = :z"}
    if not parts:
        names, sets = {"#z": "z"}, {"z": {"S": "z"}}
    args["ExpressionAttributeNames"] = names
    if sets:
        args["ExpressionAttributeValues"] = {f":{a}": v for a, v in sets.items()}
    return args


def apply_model(model: dict[tuple[str, int], Item], op: tuple[Any, ...]) -> None:
    kind, k = op[0], op[1]
    if kind == "put":
        model[k] = {**key_of(k), **op[2]}
    elif kind == "delete":
        model.pop(k, None)
    else:
        item = dict(model.get(k) or key_of(k))
        sets, removes = op[2], [r for r in op[3] if r not in op[2]]
        if not sets and not removes:
            sets = {"z": {"S": "z"}}
        if k not in model and not sets:
            return  # a lone REMOVE on a missing item creates nothing (issue 12)
        item.update(sets)
        for r in removes:
            item.pop(r, None)
        if k not in model and item == key_of(k):
            return  # an update of a missing item that leaves only its key creates nothing
        model[k] = item


def valid(op: tuple[Any, ...]) -> bool:
    """Whether the service accepts ``op``: g of type N is an index key of the wrong type."""
    if op[0] in ("txn", "batch"):
        return all(valid(o) for o in op[1])
    return op[0] == "delete" or "N" not in op[2].get("g", {})


def run(c: Any, model: dict[tuple[str, int], Item], op: tuple[Any, ...]) -> None:
    kind = op[0]
    try:
        if kind == "put":
            c.put_item(TableName=TABLE, Item={**key_of(op[1]), **op[2]})
        elif kind == "delete":
            c.delete_item(TableName=TABLE, Key=key_of(op[1]))
        elif kind == "update":
            c.update_item(TableName=TABLE, **_update_args(op))
        elif kind == "batch":
            c.batch_write_item(RequestItems={TABLE: [
                {"PutRequest": {"Item": {**key_of(o[1]), **o[2]}}} if o[0] == "put"
                else {"DeleteRequest": {"Key": key_of(o[1])}} for o in op[1]
            ]})
        else:
            actions = []
            for o in op[1]:
                if o[0] == "put":
                    actions.append({"Put": {"TableName": TABLE, "Item": {**key_of(o[1]), **o[2]}}})
                elif o[0] == "delete":
                    actions.append({"Delete": {"TableName": TABLE, "Key": key_of(o[1])}})
                else:
                    actions.append({"Update": {"TableName": TABLE, **_update_args(o)}})
            c.transact_write_items(TransactItems=actions)
    except ClientError as e:
        assert not valid(op), e
        assert e.response["Error"]["Code"] in ("ValidationException", "TransactionCanceledException"), e
        return
    assert valid(op), op
    for o in (op[1] if kind in ("txn", "batch") else [op]):
        apply_model(model, o)


# --- the properties -----------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(operation, min_size=1, max_size=12))
def test_indexes_follow_the_items(tmp_path: Path, ops: list[tuple[Any, ...]]) -> None:
    data = str(tmp_path / f"data-{next(_dirs)}")
    model: dict[tuple[str, int], Item] = {}
    with DynemuServer(data_dir=data, in_memory=False, throttling=False) as url:
        c = make_client(url)
        create_table(c)
        for op in ops:
            run(c, model, op)
            check(c, model)
    with DynemuServer(data_dir=data, in_memory=False, throttling=False) as url:  # restarted on the same data
        check(make_client(url), model)


def test_indexes_survive_a_process_restart(tmp_path: Path) -> None:
    rng = random.Random(5)
    ops = [_random_op(rng) for _ in range(60)]
    data = str(tmp_path / "data")
    model: dict[tuple[str, int], Item] = {}
    p = Process("--data-dir", data, "--throttling", "off")
    try:
        c = make_client(p.url)
        create_table(c)
        for op in ops:
            run(c, model, op)
        check(c, model)
    finally:
        assert p.stop() == 0
    p = Process("--data-dir", data, "--throttling", "off")
    try:
        check(make_client(p.url), model)
    finally:
        assert p.stop() == 0


def _random_op(rng: random.Random) -> tuple[Any, ...]:
    k = (rng.choice("ab"), rng.randint(1, 3))
    chosen = {a: rng.choice(_CHOICES[a]) for a in _CHOICES if rng.random() < 0.5}
    kind = rng.choice(["put", "put", "update", "delete"])
    if kind == "put":
        return ("put", k, chosen)
    if kind == "delete":
        return ("delete", k)
    return ("update", k, chosen, [a for a in _CHOICES if rng.random() < 0.2])


_CHOICES: dict[str, list[Item]] = {
    "l": [{"N": "1"}, {"N": "2"}], "m": [{"S": "a"}, {"S": "b"}], "g": [{"S": "A"}, {"S": "B"}, {"N": "1"}],
    "n": [{"N": "1"}, {"N": "2"}], "x": [{"S": "x"}], "y": [{"S": "y"}],
}

