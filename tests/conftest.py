"""Fixtures: a real dynemu server on a free port, driven with boto3."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from hypothesis import HealthCheck, settings

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer

# Property tests assert behaviour, never speed: no per-example deadline and no "too slow"
# health check, which a loaded 2-core CI machine would trip at random.
settings.register_profile("dynemu", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("dynemu")

CONFIG = Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=60)
_names = itertools.count()


def make_client(url: str, region: str = "us-east-1", key: str = "AKIDTEST", service: str = "dynamodb") -> Any:
    return boto3.client(
        service,
        endpoint_url=url,
        region_name=region,
        aws_access_key_id=key,
        aws_secret_access_key="secret",
        config=CONFIG,
    )


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """The shared server of the functional tests, with dynemu's defaults (throttling on,
    the default capacity model): ordinary workloads are within what DynamoDB documents as
    available, so they are never throttled. Scenarios that go beyond it run on servers of
    their own with a virtual clock (tests/test_throttling.py)."""
    with DynemuServer() as url:
        yield url


@pytest.fixture(scope="session")
def ddb(server_url: str) -> Any:
    return make_client(server_url)


@pytest.fixture(scope="module")
def raw(server_url: str) -> Any:
    """A client without boto3's own parameter checks, to reach the server's answer."""
    return boto3.client(
        "dynamodb", endpoint_url=server_url, region_name="us-east-1", aws_access_key_id="AKIDTEST",
        aws_secret_access_key="secret", config=Config(parameter_validation=False, retries={"total_max_attempts": 1}),
    )


@pytest.fixture(scope="module")
def virtual_uniform() -> Iterator[tuple[Any, Any]]:
    """A private server on a virtual clock, throttling on, uniform model: (client, clock)."""
    server = DynemuServer(clock="virtual", capacity_model="uniform", throttling=True)
    url = server.start()
    try:
        yield make_client(url), server.app[NAMESPACES].clock
    finally:
        server.stop()


@pytest.fixture(scope="module")
def virtual_default() -> Iterator[tuple[Any, Any]]:
    """A private server on a virtual clock with dynemu's defaults: (client, clock). For
    workloads beyond what a table serves in an instant (tens of MB written at once), which
    advance the clock between their steps as an application's real time would pass."""
    server = DynemuServer(clock="virtual")
    url = server.start()
    try:
        yield make_client(url), server.app[NAMESPACES].clock
    finally:
        server.stop()


@pytest.fixture
def make_table(ddb: Any) -> Iterator[Callable[..., str]]:
    """Create tables with unique names; ``make_table(hash=("pk", "S"), range=("sk", "N"))``."""
    created: list[str] = []

    def make(
        hash: tuple[str, str] = ("pk", "S"),
        range: tuple[str, str] | None = None,
        **extra: Any,
    ) -> str:
        name = f"table-{next(_names)}"
        keys = [{"AttributeName": hash[0], "KeyType": "HASH"}]
        defs = [{"AttributeName": hash[0], "AttributeType": hash[1]}]
        if range is not None:
            keys.append({"AttributeName": range[0], "KeyType": "RANGE"})
            defs.append({"AttributeName": range[0], "AttributeType": range[1]})
        kwargs: dict[str, Any] = {"BillingMode": "PAY_PER_REQUEST"}
        kwargs.update(extra)
        ddb.create_table(TableName=name, KeySchema=keys, AttributeDefinitions=defs, **kwargs)
        created.append(name)
        return name

    yield make
    for name in created:
        try:
            ddb.delete_table(TableName=name)
        except ddb.exceptions.ResourceNotFoundException:
            pass


@pytest.fixture
def table(make_table: Callable[..., str]) -> str:
    """A PAY_PER_REQUEST table with a string partition key ``pk``."""
    return make_table()


@pytest.fixture
def table_hr(make_table: Callable[..., str]) -> str:
    """A table with ``pk`` (S) and ``sk`` (N)."""
    return make_table(range=("sk", "N"))
