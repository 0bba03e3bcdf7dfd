"""The capacity model's third calibration (issue 39, part 1): a burst of large batches and
transactions on a new on-demand table whose keys land unevenly on its four partitions, as
random keys do, is served; a hot key is still held to its partition's ceiling.

The trigger: a suite of transaction tests writes and deletes 100 KB items under random
partition keys (about 20,000 write units within a second). Over four partitions random keys
never land evenly: one partition takes a third or more of the burst, more than its balance
and its own spike allowance, and the debt left refused the next small request there for a
second or two. The rule (pre-warming-on-demand-capacity-mode.html): "The overall table won't
be throttled if the table access is distributed evenly across partitions"; dynemu lets such
a partition draw on the unused spike allowances of its siblings while its share of the
table's recent consumption is at most twice the even share (docs/capacity.md, "Token
buckets").

Every scenario runs on a virtual clock, with boto3's retries off.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from dynemu.storage import keyspace
from dynemu.testing import DynemuServer
from tests.test_throttling import ON_DEMAND_MESSAGE, Virtual

KB = 1024
BLOB = "x" * 100_000  # as the recording's: 98 write units, 196 in a transaction


def keys_on(counts: list[int], prefix: str) -> list[str]:
    """Partition keys ``prefix<n>`` landing ``counts[p]`` on each of ``len(counts)`` even hash
    ranges (a new on-demand table's four partitions)."""
    room = dict(enumerate(counts))
    keys = []
    for i in range(100_000):
        k = f"{prefix}{i}"
        p = int.from_bytes(keyspace.key_hash(keyspace.item_key(1, {"S": k}, None)), "big") * len(counts) >> 64
        if room[p]:
            room[p] -= 1
            keys.append(k)
            if len(keys) == sum(counts):
                return keys
    raise AssertionError("not enough keys")


class Burst:
    """Requests on one table, each ``gap`` seconds of virtual time after the previous one,
    collecting what was refused."""

    def __init__(self, v: Virtual, table: str) -> None:
        self.v, self.t = v, table
        self.refused: list[str] = []

    def call(self, op: str, gap: float, **kw: Any) -> Any:
        self.v.advance(gap)
        try:
            out = getattr(self.v.ddb, op)(**kw)
        except ClientError as err:
            self.refused.append(f"{op}: {err.response['Error']['Code']}")
            return None
        if op == "batch_write_item" and out["UnprocessedItems"]:
            self.refused.append(f"{op}: unprocessed items")
        return out

    def get(self, key: str, gap: float) -> None:
        self.call("get_item", gap, TableName=self.t, Key={"pk": {"S": key}}, ConsistentRead=True)

    def put(self, key: str, gap: float, value: str = "v") -> None:
        self.call("put_item", gap, TableName=self.t, Item={"pk": {"S": key}, "v": {"S": value}})

    def batch_put(self, keys: list[str], gap: float, value: str) -> None:
        items = [{"PutRequest": {"Item": {"pk": {"S": k}, "v": {"S": value}}}} for k in keys]
        self.call("batch_write_item", gap, RequestItems={self.t: items})

    def transact(self, actions: list[dict[str, Any]], gap: float) -> None:
        self.call("transact_write_items", gap, TransactItems=actions)


def transactions_burst(v: Virtual, t: str, crowded: list[int]) -> list[str]:
    """The shape and pace of the recorded burst (a suite of transaction tests run against one
    new on-demand table with one boto3 client, about 3 ms a request): two BatchWriteItems of
    25 items of 100 KB, one transaction deleting the 50 (~10,000 write units), GetItems of
    them, a transaction of 30 Puts of 100 KB (~3 MB, ~6,000 write units), GetItems of those,
    small PutItems, BatchWriteItems and a 100-item TransactGetItems, then GetItems.
    ``crowded``: how the large items' keys fall on the four partitions (per 10 items)."""
    b = Burst(v, t)
    big = keys_on([n * 5 for n in crowded], "big-")
    tx = keys_on([n * 3 for n in crowded], "tx-")
    small = keys_on([25, 25, 25, 25], "small-")
    b.batch_put(big[:25], 0.05, BLOB)
    b.batch_put(big[25:], 0.04, BLOB)
    b.transact([{"Delete": {"TableName": t, "Key": {"pk": {"S": k}}}} for k in big], 0.02)
    for k in big:
        b.get(k, 0.003)
    b.transact([{"Put": {"TableName": t, "Item": {"pk": {"S": k}, "v": {"S": BLOB}}}} for k in tx], 0.045)
    for k in tx:
        b.get(k, 0.003)
    for k in keys_on([2 * n for n in crowded], "put-"):  # small new items, most where the burst crowded
        b.put(k, 0.01)
    for i in range(4):
        b.batch_put(small[25 * i : 25 * i + 25], 0.006, "s")
    got = b.call(
        "transact_get_items", 0.013, TransactItems=[{"Get": {"TableName": t, "Key": {"pk": {"S": k}}}} for k in small]
    )
    assert got is None or len(got["Responses"]) == 100
    for k in small + tx:
        b.get(k, 0.0035)
    return b.refused


def test_a_burst_crowding_one_partition_is_served() -> None:
    """Four in ten of the large items on one partition (random keys do that on four
    partitions): ~8,000 write units there within half a second, more than its balance and its
    own spike allowance; the other three partitions' unused allowances cover it."""
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        t = v.create("crowded")
        assert transactions_burst(v, t, [4, 2, 2, 2]) == []
        view = v.partitions(t)
        assert view["summary"]["throttles"] == {}
        assert view["summary"]["consumed_total"][1] > 20_000


def test_the_recorded_burst_at_its_pace_is_served_whatever_the_spread() -> None:
    """The same burst with the large items spread as the recording's random keys were, and
    as other random keys are: never a refusal."""
    for crowded in ([3, 3, 2, 2], [2, 3, 3, 2], [1, 2, 3, 4], [4, 4, 1, 1], [5, 2, 2, 1]):
        with DynemuServer(clock="virtual", throttling=True) as url:
            v = Virtual(url)
            t = v.create("spread")
            assert transactions_burst(v, t, crowded) == [], crowded


def test_a_hot_partition_does_not_draw_on_its_siblings() -> None:
    """The sibling allowances are for access spread over the table: large writes to keys of
    one partition only (the table's other partitions idle) get that partition's ceiling, its
    savings and its own spike allowance, then ThrottlingException."""
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        t = v.create("one-partition")
        keys = keys_on([80, 0, 0, 0], "hot-")
        served, errors = 0, []
        for k in keys:  # 80 x 100 KB in 0.8 s: 8,000 units on one partition
            err = v.put(t, k, 100)
            if err is None:
                served += 100
            else:
                errors.append(err)
            v.advance(0.01)
        assert errors and errors[0].response["Error"]["Message"] == ON_DEMAND_MESSAGE
        assert errors[0].response["throttlingReasons"][0]["reason"] == "TableWriteKeyRangeThroughputExceeded"
        # balance (3 s of the ceiling) + its own allowance (3 s) + the refill + one request
        assert served <= 3000 + 3000 + 800 + 100
        parts = v.partitions(t)["partitions"]
        assert [p["spike_allowance_seconds"] for p in parts[1:]] == [3.0, 3.0, 3.0]


def test_a_refused_5_mb_transaction_charges_nothing() -> None:
    """The recorded burst holds a 50-item transaction of 5 MB, refused for its size: refused
    before admission, it consumes no capacity and leaves no debt (one of the candidates for
    the trigger, ruled out)."""
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        t = v.create("too-large")
        items = [{"Put": {"TableName": t, "Item": {"pk": {"S": f"w{i}"}, "v": {"S": BLOB}}}} for i in range(50)]
        try:
            v.ddb.transact_write_items(TransactItems=items)
        except ClientError as err:
            assert err.response["Error"]["Code"] == "ValidationException"
            assert err.response["Error"]["Message"] == (
                "Collection size of items exceeded, which can also be caused by the aggregate size of the items in "
                "the transaction exceeding the 4MB limit"
            )
        else:
            raise AssertionError("a 5 MB transaction was accepted")
        view = v.partitions(t)
        assert view["summary"]["consumed_total"] == [0.0, 0.0]
        assert [p["bucket_write"] for p in view["partitions"]] == [3000.0] * 4
