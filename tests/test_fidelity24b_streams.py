"""Issue 24, streams and PartiQL (items 20, 21): stream ARNs that are malformed or name no
stream, and a PartiQL SELECT of nested paths."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import assert_error, assert_validation
from tests.test_protocol import raw as raw_http
from tests.test_streams_helpers import Harness, serve

SHARD = "shardId-00000000000000000001-00000001"


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    yield from serve()


# --- 20. stream ARNs --------------------------------------------------------------------------------


def _calls(h: Harness, arn: str) -> list[tuple[Any, dict[str, Any]]]:
    s = h.streams
    return [(s.describe_stream, {"StreamArn": arn}),
            (s.get_shard_iterator, {"StreamArn": arn, "ShardId": SHARD, "ShardIteratorType": "LATEST"}),
            (s.list_streams, {"ExclusiveStartStreamArn": arn})]


@pytest.mark.parametrize("arn", [
    "this-is-not-a-stream-arn-but-it-is-long-enough",
    "arn:aws:dynamodb:us-east-1:000000000000:table/streamless-table-name",  # a table's ARN
    "arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/",  # no label
    "arn:aws:kinesis:us-east-1:000000000000:stream/some-kinesis-stream",
])
def test_a_malformed_stream_arn_is_invalid(harness: Harness, arn: str) -> None:
    for call, kwargs in _calls(harness, arn):
        assert_validation("Invalid StreamArn", call, **kwargs)


@pytest.mark.parametrize("arn", [
    "arn:aws:dynamodb:us-east-1:000000000000:table/never-created/stream/2020-01-01T00:00:00.000",
    "arn:aws:dynamodb:us-east-1:000000000000:table/other/stream/2031-12-31T23:59:59.999",
])
def test_a_well_formed_stream_arn_naming_no_stream_is_not_found(harness: Harness, arn: str) -> None:
    for call, kwargs in _calls(harness, arn):
        assert_error("ResourceNotFoundException", f"Requested resource not found: Stream: {arn} not found",
                     call, **kwargs)


def test_an_old_label_of_a_streamed_table_is_not_found(harness: Harness) -> None:
    _, arn = harness.streamed()
    ghost = arn.rpartition("/stream/")[0] + "/stream/2001-01-01T00:00:00.000"
    for call, kwargs in _calls(harness, ghost):
        assert_error("ResourceNotFoundException", f"Requested resource not found: Stream: {ghost} not found",
                     call, **kwargs)


# --- 21. PartiQL nested paths ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nested(harness: Harness) -> str:
    name = harness.create()
    harness.ddb.put_item(TableName=name, Item={
        "pk": {"S": "x"},
        "mymap": {"M": {"nested": {"S": "deep"}, "other": {"N": "2"}, "inner": {"M": {"leaf": {"BOOL": True}}}}},
        "list": {"L": [{"S": "a"}, {"M": {"q": {"N": "1"}}}]},
    })
    return name


@pytest.mark.parametrize(("select", "item"), [
    ("mymap.nested", {"nested": {"S": "deep"}}),
    ('"mymap"."nested"', {"nested": {"S": "deep"}}),
    ('mymap."inner".leaf', {"leaf": {"BOOL": True}}),  # INNER is a keyword: quoted (issue 37)
    ("mymap.nested, pk", {"nested": {"S": "deep"}, "pk": {"S": "x"}}),
    ('"list"[1].q', {"q": {"N": "1"}}),  # LIST is a keyword: quoted
    ("mymap.absent", {}),
    ("pk", {"pk": {"S": "x"}}),
])
def test_a_select_of_a_nested_path_is_keyed_by_its_last_name(
    harness: Harness, nested: str, select: str, item: dict[str, Any]
) -> None:
    statement = f"SELECT {select} FROM \"{nested}\" WHERE pk = 'x'"
    assert harness.ddb.execute_statement(Statement=statement)["Items"] == [item]
    scan = f'SELECT {select} FROM "{nested}"'
    assert harness.ddb.execute_statement(Statement=scan)["Items"] == [item]


def test_a_nested_select_over_http(harness: Harness, nested: str) -> None:
    body = json.dumps({"Statement": f"SELECT mymap.nested FROM \"{nested}\" WHERE pk = 'x'"})
    status, _, data = raw_http(harness.server.url, body, target="DynamoDB_20120810.ExecuteStatement")
    assert status == 200
    assert json.loads(data)["Items"] == [{"nested": {"S": "deep"}}]
