"""Partition boundaries shown whole (a hash, plus the key where a split fell inside one
partition key's items) and "which partition holds key K" in the admin API and on the table
page (issue 43)."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import pytest

from dynemu.api.admin.dashboard_html import _range
from dynemu.engine.capacity import locate
from dynemu.engine.schema import KeyAttr, TableSpec
from dynemu.storage import keyspace
from dynemu.testing import DynemuServer
from tests.conftest import make_client

SPEC = TableSpec("tab", 1, "arn", "u", 0.0, KeyAttr("pk", "S"), KeyAttr("sk", "N"), [])


def test_a_boundary_inside_one_key_names_its_hash_partition_key_and_sort_key() -> None:
    suffix = keyspace.hashed_part(keyspace.item_key(1, {"S": "user#hot"}, {"N": "17"}))
    b = locate.boundary(SPEC, None, suffix.hex())
    assert b == {"hash": suffix[:8].hex(), "partition": {"S": "user#hot"}, "sort": {"N": "17"}}
    assert locate.boundary(SPEC, None, "4000000000000000") == {"hash": "4000000000000000"}
    assert locate.boundary(SPEC, None, None) is None
    row = {"start_key": {"hash": "0000000000000000"}, "end_key": b}
    assert _range(row) == f"0 – {suffix[:8].hex()} · user#hot · 17"


def test_a_boundary_of_a_hash_only_table_names_its_partition_key() -> None:
    spec = TableSpec("tab", 1, "arn", "u", 0.0, KeyAttr("pk", "S"), None, [])
    suffix = keyspace.hashed_part(keyspace.item_key(1, {"S": "user#hot"}, None))
    assert locate.boundary(spec, None, suffix.hex()) == {"hash": suffix[:8].hex(), "partition": {"S": "user#hot"}}


def test_key_suffix_is_the_partition_maps_key() -> None:
    full = keyspace.hashed_part(keyspace.item_key(1, {"S": "a"}, {"N": "5"}))
    assert locate.key_suffix(SPEC, None, {"pk": {"S": "a"}, "sk": {"N": "5"}}) == full
    # a partition key alone: the start of that key's items
    assert locate.key_suffix(SPEC, None, {"pk": {"S": "a"}}) == keyspace.hashed_part(keyspace.partition_prefix(1, {"S": "a"}))


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


@pytest.fixture(scope="module")
def served() -> Any:
    with DynemuServer(clock="virtual", capacity_model="uniform") as url:
        ddb = make_client(url)
        ddb.create_table(
            TableName="lookup",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
            ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 3999},  # 4 partitions
        )
        yield url


def test_the_admin_api_answers_which_partition_holds_a_key(served: str) -> None:
    keys = {}
    for name in ("a", "b", "c", "d", "e", "f", "g", "h"):
        key = {"pk": {"S": name}, "sk": {"N": "1"}}
        status, body = _get(f"{served}/_dynemu/tables/lookup/partitions?key=" + urllib.parse.quote(json.dumps(key)))
        assert status == 200
        view = json.loads(body)
        h = keyspace.hashed_part(keyspace.item_key(1, key["pk"], key["sk"]))[:8].hex()
        n = view["key_partition"]
        p = view["partitions"][n]
        assert p["start_key"]["hash"] <= h and (p["end_key"] is None or h < p["end_key"]["hash"])
        keys[name] = n
    assert len(set(keys.values())) > 1  # eight keys over four partitions
    assert [p["start_key"]["hash"] for p in view["partitions"]] == [
        "0000000000000000", "4000000000000000", "8000000000000000", "c000000000000000"
    ]


@pytest.mark.parametrize(
    ("key", "detail"),
    [
        ("x", "not JSON"),
        ('{"pk": {"N": "1"}}', "The provided key element does not match the schema"),
        ('{"other": {"S": "a"}}', "The provided key element does not match the schema"),
    ],
)
def test_a_bad_key_is_explained(served: str, key: str, detail: str) -> None:
    status, body = _get(f"{served}/_dynemu/tables/lookup/partitions?key=" + urllib.parse.quote(key))
    assert status == 400
    assert json.loads(body) == {
        "error": 'key must be the table\'s (or the index\'s) key as DynamoDB JSON, such as {"pk": {"S": "a"}}: ' + detail
    }


def test_the_table_page_has_the_lookup(served: str) -> None:
    key = json.dumps({"pk": {"S": "a"}, "sk": {"N": "1"}})
    status, body = _get(f"{served}/_dynemu/tables/lookup?region=us-east-1&key=" + urllib.parse.quote(key))
    page = body.decode()
    status2, api = _get(f"{served}/_dynemu/tables/lookup/partitions?key=" + urllib.parse.quote(key))
    n = json.loads(api)["key_partition"]
    assert status == 200 and f"held by partition #{n}" in page
    assert '<input type="hidden" name="region" value="us-east-1">' in page
