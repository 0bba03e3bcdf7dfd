"""--transient-delays (DynamoDB Local's -delayTransientStatuses): CREATING, UPDATING and
DELETING last a while on the clock, the requests DynamoDB refuses meanwhile are refused with
its errors, and boto3's waiters work (engine/transient.py)."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynemu.api.admin.app import NAMESPACES
from dynemu.engine import transient
from dynemu.testing import DynemuServer
from tests.conftest import make_client

KEY = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}


@pytest.fixture()
def virtual() -> Iterator[tuple[Any, Any]]:
    server = DynemuServer(clock="virtual", transient_delays=True)
    url = server.start()
    try:
        yield make_client(url), server.app[NAMESPACES].clock
    finally:
        server.stop()


def _error(call: Any, **kwargs: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


def status(ddb: Any, name: str) -> str:
    return ddb.describe_table(TableName=name)["Table"]["TableStatus"]


def test_a_table_is_creating_then_active_on_a_virtual_clock(virtual: tuple[Any, Any]) -> None:
    ddb, clock = virtual
    assert ddb.create_table(TableName="trans", BillingMode="PAY_PER_REQUEST", **KEY)["TableDescription"]["TableStatus"] == "CREATING"
    assert status(ddb, "trans") == "CREATING"
    assert _error(ddb.put_item, TableName="trans", Item={"pk": {"S": "a"}}) == (
        "ResourceNotFoundException", "Requested resource not found")
    assert _error(ddb.delete_table, TableName="trans") == (
        "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being created: trans")
    assert _error(ddb.update_table, TableName="trans", BillingMode="PROVISIONED",
                  ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}) == (
        "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being created: trans")
    assert _error(ddb.create_table, TableName="trans", BillingMode="PAY_PER_REQUEST", **KEY) == (
        "ResourceInUseException", "Table already exists: trans")
    clock.advance(transient.CREATE - 0.5)
    assert status(ddb, "trans") == "CREATING"
    clock.advance(0.5)
    assert status(ddb, "trans") == "ACTIVE"
    ddb.put_item(TableName="trans", Item={"pk": {"S": "a"}})


def test_updating_then_deleting(virtual: tuple[Any, Any]) -> None:
    ddb, clock = virtual
    ddb.create_table(TableName="trans2", BillingMode="PAY_PER_REQUEST", **KEY)
    clock.advance(transient.CREATE)
    out = ddb.update_table(TableName="trans2", BillingMode="PROVISIONED",
                           ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    assert out["TableDescription"]["TableStatus"] == "UPDATING" and status(ddb, "trans2") == "UPDATING"
    ddb.put_item(TableName="trans2", Item={"pk": {"S": "a"}})  # served while UPDATING
    assert _error(ddb.delete_table, TableName="trans2") == (
        "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being updated: trans2")
    clock.advance(transient.UPDATE)
    assert status(ddb, "trans2") == "ACTIVE"
    assert ddb.delete_table(TableName="trans2")["TableDescription"]["TableStatus"] == "DELETING"
    assert status(ddb, "trans2") == "DELETING" and "trans2" in ddb.list_tables()["TableNames"]
    # DeleteTable again: no error (API_DeleteTable.html)
    assert ddb.delete_table(TableName="trans2")["TableDescription"]["TableStatus"] == "DELETING"
    assert _error(ddb.get_item, TableName="trans2", Key={"pk": {"S": "a"}})[0] == "ResourceNotFoundException"
    assert _error(ddb.create_table, TableName="trans2", BillingMode="PAY_PER_REQUEST", **KEY) == (
        "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being deleted: trans2")
    clock.advance(transient.DELETE)
    assert "trans2" not in ddb.list_tables()["TableNames"]
    assert _error(ddb.describe_table, TableName="trans2") == (
        "ResourceNotFoundException", "Requested resource not found: Table: trans2 not found")
    ddb.create_table(TableName="trans2", BillingMode="PAY_PER_REQUEST", **KEY)  # the name is free again


def test_a_new_gsi_is_creating_for_a_while(virtual: tuple[Any, Any]) -> None:
    ddb, clock = virtual
    ddb.create_table(TableName="trans3", BillingMode="PAY_PER_REQUEST", **KEY)
    clock.advance(transient.CREATE)
    ddb.update_table(TableName="trans3", AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
                     GlobalSecondaryIndexUpdates=[{"Create": {
                         "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                         "Projection": {"ProjectionType": "ALL"}}}])
    gsi = ddb.describe_table(TableName="trans3")["Table"]["GlobalSecondaryIndexes"][0]
    assert (gsi["IndexStatus"], gsi.get("Backfilling")) == ("CREATING", True)
    assert status(ddb, "trans3") == "UPDATING"
    clock.advance(transient.INDEX_CREATE)
    gsi = ddb.describe_table(TableName="trans3")["Table"]["GlobalSecondaryIndexes"][0]
    assert gsi["IndexStatus"] == "ACTIVE" and "Backfilling" not in gsi and status(ddb, "trans3") == "ACTIVE"


def test_off_by_default_instant_as_before() -> None:
    with DynemuServer(clock="virtual") as url:
        ddb = make_client(url)
        ddb.create_table(TableName="instant", BillingMode="PAY_PER_REQUEST", **KEY)
        assert status(ddb, "instant") == "ACTIVE"
        ddb.delete_table(TableName="instant")
        assert ddb.list_tables()["TableNames"] == []


def test_boto3_waiters_on_a_real_clock() -> None:
    """table_exists and table_not_exists poll DescribeTable until the status has passed."""
    with DynemuServer(transient_delays=True) as url:
        ddb = make_client(url)
        # before the request: the server reads its clock within it, so the table is CREATING
        # for CREATE seconds after ``began`` whatever time its answer takes to arrive
        began = time.monotonic()
        ddb.create_table(TableName="waited", BillingMode="PAY_PER_REQUEST", **KEY)
        ddb.get_waiter("table_exists").wait(TableName="waited", WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        assert status(ddb, "waited") == "ACTIVE" and time.monotonic() - began >= transient.CREATE - 1
        ddb.delete_table(TableName="waited")
        ddb.get_waiter("table_not_exists").wait(TableName="waited", WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        assert ddb.list_tables()["TableNames"] == []


def test_boto3_waiters_on_a_virtual_clock() -> None:
    """The delays pass with the clock: a thread advances it while the waiter polls."""
    server = DynemuServer(clock="virtual", transient_delays=True)
    url = server.start()
    try:
        ddb = make_client(url)
        ddb.create_table(TableName="waitv", BillingMode="PAY_PER_REQUEST", **KEY)
        body = json.dumps({"advance": transient.CREATE}).encode()
        advance = urllib.request.Request(url + "/_dynemu/clock", data=body, headers={"Content-Type": "application/json"})
        mover = threading.Timer(0.5, lambda: urllib.request.urlopen(advance, timeout=60).read())
        mover.start()
        # polls until the mover has run: attempts enough for a busy machine to start it late
        ddb.get_waiter("table_exists").wait(TableName="waitv", WaiterConfig={"Delay": 1, "MaxAttempts": 120})
        mover.join()
        assert status(ddb, "waitv") == "ACTIVE"
    finally:
        server.stop()
