"""DynamoDB Streams through boto3: records, view types, iterators, paging, lineage,
disable/re-enable, retention, errors."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import assert_error, assert_validation
from tests.test_streams_helpers import Harness, by_sequence, seq, serve

VIEWS = ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES")


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    yield from serve()


def _changes(h: Harness, name: str) -> None:
    """INSERT, MODIFY, a Put of an identical item, a failed condition, REMOVE, a delete of
    nothing: four changes, four records."""
    d = h.ddb
    d.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    d.update_item(TableName=name, Key={"pk": {"S": "a"}}, UpdateExpression="SET v = :v",
                  ExpressionAttributeValues={":v": {"N": "2"}})  # fmt: skip
    d.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "2.0"}})  # identical: no record
    with pytest.raises(d.exceptions.ConditionalCheckFailedException):
        d.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "3"}},
                   ConditionExpression="attribute_not_exists(pk)")  # fmt: skip
    d.update_item(TableName=name, Key={"pk": {"S": "a"}}, UpdateExpression="SET v = :v",
                  ExpressionAttributeValues={":v": {"N": "2"}})  # same value: no record
    d.put_item(TableName=name, Item={"pk": {"S": "b"}, "s": {"SS": ["x", "y"]}})
    d.put_item(TableName=name, Item={"pk": {"S": "b"}, "s": {"SS": ["y", "x"]}})  # same set: no record
    d.delete_item(TableName=name, Key={"pk": {"S": "a"}})
    d.delete_item(TableName=name, Key={"pk": {"S": "nothing"}})  # nothing removed: no record


@pytest.mark.parametrize("view", VIEWS)
def test_records_of_each_view_type(harness: Harness, view: str) -> None:
    name, arn = harness.streamed(view)
    _changes(harness, name)
    records = by_sequence(harness.read_all(arn))
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "INSERT", "REMOVE"]
    v1 = {"pk": {"S": "a"}, "v": {"N": "1"}}
    v2 = {"pk": {"S": "a"}, "v": {"N": "2"}}
    b = {"pk": {"S": "b"}, "s": {"SS": ["x", "y"]}}
    new = [v1, v2, b, None]
    old = [None, v1, None, v2]
    for r, n, o in zip(records, new, old, strict=True):
        data = r["dynamodb"]
        assert r["eventSource"] == "aws:dynamodb" and r["eventVersion"] == "1.1"
        assert r["awsRegion"] == "us-east-1" and "userIdentity" not in r
        assert re.fullmatch(r"[0-9a-f]{32}", r["eventID"])
        assert data["StreamViewType"] == view
        assert re.fullmatch(r"[0-9]{21,40}", data["SequenceNumber"])
        assert data["Keys"] == {"pk": n["pk"] if n else o["pk"]}  # type: ignore[index]
        assert data.get("NewImage") == (n if view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES") else None)
        assert data.get("OldImage") == (o if view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES") else None)
        assert abs(data["ApproximateCreationDateTime"].timestamp() - harness.now()) < 2
    # SizeBytes: the keys plus the images carried (the developer guide's Lambda example:
    # Keys {Id: 101} + NewImage {Message: "New item!", Id: 101} = 26 bytes).
    sizes = [r["dynamodb"]["SizeBytes"] for r in records]
    key_a = 2 + 1  # "pk" + "a"
    if view == "KEYS_ONLY":
        assert sizes[0] == key_a
    if view == "NEW_AND_OLD_IMAGES":
        assert sizes[1] > sizes[0] > key_a


def test_size_bytes_matches_the_documented_example(harness: Harness) -> None:
    name, arn = harness.streamed("NEW_IMAGE", hash=("Id", "N"))
    harness.ddb.put_item(TableName=name, Item={"Id": {"N": "101"}, "Message": {"S": "New item!"}})
    (record,) = harness.read_all(arn)
    assert record["dynamodb"]["SizeBytes"] == 26


def test_transactions_and_batches_write_one_record_per_changed_item(harness: Harness) -> None:
    name, arn = harness.streamed("KEYS_ONLY", range=("sk", "N"))
    d = harness.ddb
    d.batch_write_item(RequestItems={name: [
        {"PutRequest": {"Item": {"pk": {"S": "p"}, "sk": {"N": str(i)}}}} for i in range(5)
    ]})  # fmt: skip
    d.transact_write_items(TransactItems=[
        {"Put": {"TableName": name, "Item": {"pk": {"S": "p"}, "sk": {"N": "0"}, "x": {"S": "y"}}}},
        {"Delete": {"TableName": name, "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}}},
        {"ConditionCheck": {"TableName": name, "Key": {"pk": {"S": "p"}, "sk": {"N": "2"}},
                            "ConditionExpression": "attribute_exists(pk)"}},
    ])  # fmt: skip
    with pytest.raises(d.exceptions.TransactionCanceledException):
        d.transact_write_items(TransactItems=[
            {"Put": {"TableName": name, "Item": {"pk": {"S": "p"}, "sk": {"N": "9"}}}},
            {"Delete": {"TableName": name, "Key": {"pk": {"S": "p"}, "sk": {"N": "3"}},
                        "ConditionExpression": "attribute_not_exists(pk)"}},
        ])  # fmt: skip
    records = by_sequence(harness.read_all(arn))
    assert [r["eventName"] for r in records] == ["INSERT"] * 5 + ["MODIFY", "REMOVE"]
    assert [r["dynamodb"]["Keys"]["sk"]["N"] for r in records[5:]] == ["0", "1"]


def test_list_streams_by_table_and_paged(harness: Harness) -> None:
    made = [harness.streamed("KEYS_ONLY") for _ in range(3)]
    s = harness.streams
    mine = {arn for _, arn in made}
    seen: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"Limit": 1}
    while True:
        page = s.list_streams(**kwargs)
        assert len(page["Streams"]) <= 1
        seen += page["Streams"]
        if "LastEvaluatedStreamArn" not in page:
            break
        kwargs["ExclusiveStartStreamArn"] = page["LastEvaluatedStreamArn"]
    assert mine <= {x["StreamArn"] for x in seen}
    assert len(seen) == len({x["StreamArn"] for x in seen})
    name, arn = made[0]
    only = s.list_streams(TableName=name)["Streams"]
    assert only == [{"StreamArn": arn, "TableName": name, "StreamLabel": arn.rpartition("/")[2]}]
    assert_error("ResourceNotFoundException", "Requested resource not found: Table: nosuchtable not found",
                 s.list_streams, TableName="nosuchtable")  # fmt: skip


def test_describe_stream(harness: Harness) -> None:
    name, arn = harness.streamed("NEW_IMAGE", range=("sk", "S"))
    desc = harness.streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert desc["StreamStatus"] == "ENABLED" and desc["StreamViewType"] == "NEW_IMAGE"
    assert desc["TableName"] == name and desc["StreamArn"] == arn
    assert desc["StreamLabel"] == arn.rpartition("/stream/")[2]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}", desc["StreamLabel"])
    assert desc["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
    shards = desc["Shards"]
    assert shards and all(len(s["ShardId"]) >= 28 and s["ShardId"].startswith("shardId-") for s in shards)
    assert all("EndingSequenceNumber" not in s["SequenceNumberRange"] and "ParentShardId" not in s for s in shards)
    # paging: one shard per page
    paged = []
    kwargs: dict[str, Any] = {"StreamArn": arn, "Limit": 1}
    while True:
        d = harness.streams.describe_stream(**kwargs)["StreamDescription"]
        paged += d["Shards"]
        if "LastEvaluatedShardId" not in d:
            break
        kwargs["ExclusiveStartShardId"] = d["LastEvaluatedShardId"]
    assert [s["ShardId"] for s in paged] == [s["ShardId"] for s in shards]


def _one_shard_records(h: Harness, arn: str) -> tuple[str, list[dict[str, Any]]]:
    for shard in h.shards(arn):
        records = h.read_shard(arn, shard["ShardId"])
        if len(records) >= 3:
            return shard["ShardId"], records
    raise AssertionError("no shard with three records")


def test_iterator_types(harness: Harness) -> None:
    name, arn = harness.streamed("KEYS_ONLY")
    for _ in range(3):  # the same key: three records in one shard
        harness.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "n": {"N": str(_)}})
    shard_id, records = _one_shard_records(harness, arn)
    first, second, third = (r["dynamodb"]["SequenceNumber"] for r in records[:3])
    at = harness.read_shard(arn, shard_id, "AT_SEQUENCE_NUMBER", SequenceNumber=second)
    assert [r["dynamodb"]["SequenceNumber"] for r in at] == [second, third]
    after = harness.read_shard(arn, shard_id, "AFTER_SEQUENCE_NUMBER", SequenceNumber=second)
    assert [r["dynamodb"]["SequenceNumber"] for r in after] == [third]
    s = harness.streams
    latest = s.get_shard_iterator(StreamArn=arn, ShardId=shard_id, ShardIteratorType="LATEST")["ShardIterator"]
    assert s.get_records(ShardIterator=latest)["Records"] == []
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "n": {"N": "9"}})
    page = s.get_records(ShardIterator=latest)
    assert [r["eventName"] for r in page["Records"]] == ["MODIFY"]
    assert int(page["Records"][0]["dynamodb"]["SequenceNumber"]) > int(third)
    assert "NextShardIterator" in page  # an open shard always has a next iterator
    assert s.get_records(ShardIterator=page["NextShardIterator"])["Records"] == []


def test_get_records_pages_with_limit(harness: Harness) -> None:
    name, arn = harness.streamed("NEW_IMAGE")
    for i in range(25):
        harness.ddb.put_item(TableName=name, Item={"pk": {"S": "same"}, "i": {"N": str(i)}})
    shard_id = next(s["ShardId"] for s in harness.shards(arn) if harness.read_shard(arn, s["ShardId"]))
    it: str | None = harness.streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard_id, ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    got: list[str] = []
    calls = 0
    while it is not None and calls < 20:
        page = harness.streams.get_records(ShardIterator=it, Limit=7)
        calls += 1
        assert len(page["Records"]) <= 7
        got += [r["dynamodb"]["NewImage"]["i"]["N"] for r in page["Records"]]
        if not page["Records"]:
            break
        it = page.get("NextShardIterator")
    assert got == [str(i) for i in range(25)]
    assert calls == 5  # 7 + 7 + 7 + 4, then an empty page


def test_disable_and_re_enable(harness: Harness) -> None:
    name, first = harness.streamed("NEW_IMAGE")
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "before"}})
    harness.disable(name)
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "while-disabled"}})
    second = harness.enable(name, "KEYS_ONLY")
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "after"}})
    assert second != first
    old = harness.streams.describe_stream(StreamArn=first)["StreamDescription"]
    assert old["StreamStatus"] == "DISABLED"
    assert all("EndingSequenceNumber" in s["SequenceNumberRange"] for s in old["Shards"])
    # the old stream stays readable, and its closed shards end (no NextShardIterator)
    old_records = []
    for shard in old["Shards"]:
        it = harness.streams.get_shard_iterator(StreamArn=first, ShardId=shard["ShardId"],
                                                ShardIteratorType="TRIM_HORIZON")["ShardIterator"]  # fmt: skip
        page = harness.streams.get_records(ShardIterator=it)
        old_records += page["Records"]
        assert "NextShardIterator" not in page
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in old_records] == ["before"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in harness.read_all(second)] == ["after"]
    listed = {s["StreamArn"]: s for s in harness.streams.list_streams(TableName=name)["Streams"]}
    assert set(listed) == {first, second}
    # 24 hours later the disabled stream is gone
    harness.advance(24 * 3600 + 1)
    assert_error("ResourceNotFoundException", f"Requested resource not found: Stream: {first} not found",
                 harness.streams.describe_stream, StreamArn=first)  # fmt: skip
    assert [s["StreamArn"] for s in harness.streams.list_streams(TableName=name)["Streams"]] == [second]


def test_enable_twice_and_disable_twice_are_refused(harness: Harness) -> None:
    from dynemu.errors import DynamoError

    name, _ = harness.streamed("KEYS_ONLY")
    with pytest.raises(DynamoError, match=f"Table already has an enabled stream: TableName: {name}"):
        harness.enable(name, "NEW_IMAGE")
    harness.disable(name)
    with pytest.raises(DynamoError, match=f"Table has no stream to disable: TableName: {name}"):
        harness.disable(name)


def test_retention_is_24_hours_of_clock_time(harness: Harness) -> None:
    name, arn = harness.streamed("KEYS_ONLY")
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "old"}})
    harness.advance(23 * 3600)
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "new"}})
    assert sorted(r["dynamodb"]["Keys"]["pk"]["S"] for r in harness.read_all(arn)) == ["new", "old"]
    old_seq = shard_of_old = ""
    for shard in harness.shards(arn):
        for r in harness.read_shard(arn, shard["ShardId"]):
            if r["dynamodb"]["Keys"]["pk"]["S"] == "old":
                old_seq, shard_of_old = r["dynamodb"]["SequenceNumber"], shard["ShardId"]
    it = harness.streams.get_shard_iterator(StreamArn=arn, ShardId=shard_of_old,
                                            ShardIteratorType="TRIM_HORIZON")["ShardIterator"]  # fmt: skip
    harness.advance(2 * 3600)  # "old" is now 25 h old: trimmed
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in harness.read_all(arn)] == ["new"]
    assert_error("ExpiredIteratorException", "The provided iterator exceeds the maximum age allowed.",
                 harness.streams.get_records, ShardIterator=it)  # fmt: skip
    assert_error("TrimmedDataAccessException", "The data you are trying to access has been trimmed.",
                 harness.streams.get_shard_iterator, StreamArn=arn, ShardId=shard_of_old,
                 ShardIteratorType="AT_SEQUENCE_NUMBER", SequenceNumber=old_seq)  # fmt: skip


def test_trimmed_while_holding_an_iterator(harness: Harness) -> None:
    name, arn = harness.streamed("KEYS_ONLY")
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "x"}})
    shard_id = next(s["ShardId"] for s in harness.shards(arn) if harness.read_shard(arn, s["ShardId"]))
    harness.advance(24 * 3600 - 60)
    it = harness.streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                                            ShardIteratorType="TRIM_HORIZON")["ShardIterator"]  # fmt: skip
    harness.advance(120)  # the record passes 24 h before the (still valid) iterator is used
    assert_error("TrimmedDataAccessException", "The data you are trying to access has been trimmed.",
                 harness.streams.get_records, ShardIterator=it)  # fmt: skip


def test_iterators_expire_after_15_minutes(harness: Harness) -> None:
    name, arn = harness.streamed("KEYS_ONLY")
    shard_id = harness.shards(arn)[0]["ShardId"]
    it = harness.streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                                            ShardIteratorType="LATEST")["ShardIterator"]  # fmt: skip
    assert it.startswith(arn + "|1|")
    harness.advance(14 * 60)
    nxt = harness.streams.get_records(ShardIterator=it)["NextShardIterator"]
    harness.advance(2 * 60)  # the first is now 16 minutes old, the next one 2
    assert_error("ExpiredIteratorException", "The provided iterator exceeds the maximum age allowed.",
                 harness.streams.get_records, ShardIterator=it)  # fmt: skip
    assert harness.streams.get_records(ShardIterator=nxt)["Records"] == []


def test_errors(harness: Harness) -> None:
    name, arn = harness.streamed("KEYS_ONLY")
    s = harness.streams
    ghost = arn.rpartition("/stream/")[0] + "/stream/2001-01-01T00:00:00.000"
    assert_error("ResourceNotFoundException", f"Requested resource not found: Stream: {ghost} not found",
                 s.describe_stream, StreamArn=ghost)  # fmt: skip
    assert_error("ResourceNotFoundException", "Requested resource not found: Shard does not exist",
                 s.get_shard_iterator, StreamArn=arn, ShardId="shardId-00000000000000000000-00000000",
                 ShardIteratorType="LATEST")  # fmt: skip
    assert_validation("Invalid ShardIterator", s.get_records, ShardIterator=arn + "|1|AAAA")
    assert_validation("Invalid ShardIterator", s.get_records, ShardIterator="garbage")
    shard_id = harness.shards(arn)[0]["ShardId"]
    it = s.get_shard_iterator(StreamArn=arn, ShardId=shard_id, ShardIteratorType="LATEST")["ShardIterator"]
    tampered = it[:-6] + ("AAAA" if it[-6:-2] != "AAAA" else "BBBB") + it[-2:]
    assert_validation("Invalid ShardIterator", s.get_records, ShardIterator=tampered)
    assert_validation(
        "1 validation error detected: Value '1001' at 'limit' failed to satisfy constraint: "
        "Member must have value less than or equal to 1000",
        s.get_records, ShardIterator=it, Limit=1001,
    )
    assert_validation(
        "Must either specify (1) AT_SEQUENCE_NUMBER or AFTER_SEQUENCE_NUMBER and SequenceNumber or (2) "
        "TRIM_HORIZON or LATEST and no SequenceNumber. Request specified AT_SEQUENCE_NUMBER and no SequenceNumber.",
        s.get_shard_iterator, StreamArn=arn, ShardId=shard_id, ShardIteratorType="AT_SEQUENCE_NUMBER",
    )


def test_shard_ids_are_stable_and_sorted(harness: Harness) -> None:
    _, arn = harness.streamed("KEYS_ONLY")
    first = [s["ShardId"] for s in harness.shards(arn)]
    assert first == sorted(first) and len(set(first)) == len(first)
    assert [s["ShardId"] for s in harness.shards(arn)] == first


def test_create_table_with_stream_specification(harness: Harness) -> None:
    name = harness.create(StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    table = harness.ddb.describe_table(TableName=name)["Table"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    arn = table["LatestStreamArn"]
    assert arn == f"{table['TableArn']}/stream/{table['LatestStreamLabel']}"
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "x"}})
    assert [r["eventName"] for r in harness.read_all(arn)] == ["INSERT"]


def test_create_table_stream_specification_messages(harness: Harness) -> None:
    assert_validation(
        "One or more parameter values were invalid: Table is being created with a stream enabled, "
        "UpdateViewType is required",
        harness.create, StreamSpecification={"StreamEnabled": True},
    )
    assert_validation(
        "One or more parameter values were invalid: Table is being created with a stream disabled, "
        "UpdateViewType should not be specified",
        harness.create, StreamSpecification={"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"},
    )


def test_update_table_stream_specification(harness: Harness) -> None:
    name = harness.create()
    d = harness.ddb
    first = d.update_table(TableName=name, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    arn1 = first["TableDescription"]["LatestStreamArn"]
    assert_validation(f"Table already has an enabled stream: TableName: {name}", d.update_table,
                      TableName=name, StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})  # fmt: skip
    assert_validation(
        "One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required",
        d.update_table, TableName=name, StreamSpecification={"StreamEnabled": True},
    )
    assert_validation(
        "One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be "
        "specified",
        d.update_table, TableName=name, StreamSpecification={"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"},
    )
    d.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    table = d.describe_table(TableName=name)["Table"]
    assert "StreamSpecification" not in table and table["LatestStreamArn"] == arn1
    assert_validation(f"Table has no stream to disable: TableName: {name}", d.update_table,
                      TableName=name, StreamSpecification={"StreamEnabled": False})  # fmt: skip
    d.update_table(TableName=name, StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    assert d.describe_table(TableName=name)["Table"]["LatestStreamArn"] != arn1


def test_delete_table_keeps_the_stream_readable(harness: Harness) -> None:
    name = harness.create(StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    arn = harness.ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "x"}})
    harness.ddb.delete_table(TableName=name)
    desc = harness.streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert desc["StreamStatus"] == "DISABLED" and desc["TableName"] == name
    assert [r["eventName"] for r in harness.read_all(arn)] == ["INSERT"]


def test_seq_helper() -> None:
    assert seq({"dynamodb": {"SequenceNumber": "100000000000000000007"}}) == 100000000000000000007


def _split(h: Harness, name: str, partition: int) -> None:
    def run() -> None:
        state = h.table(name).capacity.state
        state.split(partition, state.pmap.hash_midpoint(partition), h.now())

    h.call(run)


def test_lineage_across_a_partition_split(harness: Harness) -> None:
    name, arn = harness.streamed("NEW_IMAGE")
    keys = [f"key-{i}" for i in range(60)]

    def write_round(v: int) -> None:
        for k in keys:
            harness.ddb.put_item(TableName=name, Item={"pk": {"S": k}, "v": {"N": str(v)}})

    write_round(1)
    before = {s["ShardId"] for s in harness.shards(arn)}
    _split(harness, name, 0)
    shards = harness.shards(arn)  # DescribeStream notices the split by itself
    parent = next(s for s in shards if s["ShardId"] in before and "EndingSequenceNumber" in s["SequenceNumberRange"])
    children = [s for s in shards if s.get("ParentShardId") == parent["ShardId"]]
    assert len(children) == 2 and all(s["ShardId"] not in before for s in children)
    assert len([s for s in shards if "EndingSequenceNumber" not in s["SequenceNumberRange"]]) == len(before) + 1
    filtered = harness.streams.describe_stream(
        StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": parent["ShardId"]}
    )["StreamDescription"]["Shards"]
    assert [s["ShardId"] for s in filtered] == [s["ShardId"] for s in children]
    write_round(2)
    _split(harness, name, 1)  # split a child again, found on the next write
    write_round(3)
    history: dict[str, list[str]] = {}
    for r in harness.read_all(arn):  # parents before children, as the KCL reads them
        history.setdefault(r["dynamodb"]["Keys"]["pk"]["S"], []).append(r["dynamodb"]["NewImage"]["v"]["N"])
    assert history == {k: ["1", "2", "3"] for k in keys}
    ends = [int(s["SequenceNumberRange"]["EndingSequenceNumber"]) for s in harness.shards(arn)
            if "EndingSequenceNumber" in s["SequenceNumberRange"]]  # fmt: skip
    assert len(ends) == 2
