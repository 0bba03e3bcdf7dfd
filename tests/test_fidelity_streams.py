"""Issue 12, the Streams API at its edges: limits, missing streams, ShardFilter, labels, and
GetShardIterator with AT_TIMESTAMP as the API reference documents it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.config import Config

from tests.helpers import assert_error, assert_validation
from tests.test_streams_helpers import Harness, seq, serve

MISSING = "arn:aws:dynamodb:us-east-1:000000000000:table/nope/stream/2020-01-01T00:00:00.000"


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    yield from serve()


@pytest.fixture(scope="module")
def raw(harness: Harness) -> Any:
    return boto3.client(
        "dynamodbstreams", endpoint_url=harness.server.url, region_name="us-east-1", aws_access_key_id="AKIDTEST",
        aws_secret_access_key="secret", config=Config(parameter_validation=False, retries={"total_max_attempts": 1}),
    )


def _limit_message(value: int) -> str:
    return (f"1 validation error detected: Value '{value}' at 'limit' failed to satisfy constraint: "
            "Member must have value less than or equal to 100")


def test_limit_over_100(harness: Harness) -> None:
    _, arn = harness.streamed()
    assert_validation(_limit_message(101), harness.streams.list_streams, Limit=101)
    assert_validation(_limit_message(500), harness.streams.describe_stream, StreamArn=arn, Limit=500)
    assert harness.streams.list_streams(Limit=100)["Streams"]


def test_missing_streams(harness: Harness) -> None:
    message = f"Requested resource not found: Stream: {MISSING} not found"
    s = harness.streams
    assert_error("ResourceNotFoundException", message, s.list_streams, ExclusiveStartStreamArn=MISSING)
    assert_error("ResourceNotFoundException", message, s.describe_stream, StreamArn=MISSING)
    assert_error("ResourceNotFoundException", message, s.get_shard_iterator, StreamArn=MISSING,
                 ShardId="shardId-00000000000000000001-00000001", ShardIteratorType="LATEST")


def test_exclusive_start_stream_arn_of_an_existing_stream_pages(harness: Harness) -> None:
    _, first = harness.streamed()
    _, second = harness.streamed()
    arns = [s["StreamArn"] for s in harness.streams.list_streams(ExclusiveStartStreamArn=first)["Streams"]]
    assert first not in arns and second in arns


@pytest.mark.parametrize(("flt", "path"), [
    ({"ShardId": "shardId-00000000000000000001-00000001"}, "shardFilter.type"),
    ({"Type": "CHILD_SHARDS"}, "shardFilter.shardId"),
])
def test_shard_filter_needs_type_and_shard_id(harness: Harness, raw: Any, flt: dict[str, str], path: str) -> None:
    _, arn = harness.streamed()
    assert_validation(f"1 validation error detected: Value null at '{path}' failed to satisfy constraint: "
                      "Member must not be null", raw.describe_stream, StreamArn=arn, ShardFilter=flt)


def test_latest_stream_label_and_arn_in_describe_table(harness: Harness) -> None:
    name = harness.create(StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    table = harness.ddb.describe_table(TableName=name)["Table"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    label = table["LatestStreamLabel"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}", label)
    assert table["LatestStreamArn"] == f"{table['TableArn']}/stream/{label}"
    harness.ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    table = harness.ddb.describe_table(TableName=name)["Table"]
    assert "StreamSpecification" not in table and table["LatestStreamLabel"] == label


# --- AT_TIMESTAMP ---------------------------------------------------------------------------------


def _iterate(h: Harness, arn: str, **kw: Any) -> list[str]:
    """The keys of the records every shard yields from an AT_TIMESTAMP iterator, in order."""
    records: list[dict[str, Any]] = []
    for shard in h.shards(arn):
        records += h.read_shard(arn, shard["ShardId"], "AT_TIMESTAMP", **kw)
    return [r["dynamodb"]["Keys"]["pk"]["S"] for r in sorted(records, key=seq)]


def test_at_timestamp_reads_from_the_first_record_at_or_after_it(harness: Harness) -> None:
    name, arn = harness.streamed()
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "early"}})
    harness.advance(10)
    middle = int(harness.now() * 1000) / 1000  # the API's millisecond precision
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "middle"}})
    harness.advance(10)
    harness.ddb.put_item(TableName=name, Item={"pk": {"S": "late"}})
    at = datetime.fromtimestamp(middle, UTC)
    assert _iterate(harness, arn, Timestamp=at) == ["middle", "late"]
    assert _iterate(harness, arn, Timestamp=datetime.fromtimestamp(middle - 1000, UTC)) == ["early", "middle", "late"]
    harness.advance(1)
    assert _iterate(harness, arn, Timestamp=datetime.fromtimestamp(harness.now(), UTC)) == []


def test_at_timestamp_in_the_future_or_missing(harness: Harness, raw: Any) -> None:
    _, arn = harness.streamed()
    shard = harness.shards(arn)[0]["ShardId"]
    future = datetime.fromtimestamp(harness.now() + 3600, UTC)
    assert_validation("The provided Timestamp is in the future", harness.streams.get_shard_iterator, StreamArn=arn,
                      ShardId=shard, ShardIteratorType="AT_TIMESTAMP", Timestamp=future)
    assert_validation("Must specify Timestamp for iterator of type AT_TIMESTAMP", raw.get_shard_iterator,
                      StreamArn=arn, ShardId=shard, ShardIteratorType="AT_TIMESTAMP")
