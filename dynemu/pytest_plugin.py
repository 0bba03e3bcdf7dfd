"""The pytest plugin (entry point ``pytest11``: ``dynemu``), loaded wherever dynemu is installed.

Fixtures:

* ``dynemu_server`` (session): a ``DynemuServer`` in memory on a free port, with dynemu's
  defaults and the ``--dynemu-*`` options / ``dynemu_*`` ini values.
* ``dynemu_url`` (session): its URL. From the first test that uses it to the end of the
  session, ``AWS_ENDPOINT_URL_DYNAMODB`` (and ``..._DYNAMODB_STREAMS``) point at it, and
  dummy credentials and a region are set where none are, so application code that builds
  its own boto3 client reaches dynemu. ``dynemu_autouse = true`` (ini) starts it for every test.
* ``dynamodb`` (function): a boto3 DynamoDB client on an emptied server: the server forgets
  every table before each test that uses it (``POST /_dynemu/reset``), so no table is seen by
  two such tests.
* ``dynamodb_fixtures`` (function): a boto3 client on the server as ``dynemu_data`` left it.
  Override the session fixture ``dynemu_data`` (``dynemu_client`` is a client for it) to
  create and fill tables:
  it runs once, on an emptied server, and the state is saved as a snapshot; each test that uses
  ``dynamodb_fixtures`` starts from that snapshot restored, whatever earlier tests wrote.

Under pytest-xdist every worker is its own pytest session: one server per worker, each on
its own port, so resetting one never touches another worker's tables.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from dynemu.config import flag_actions

# The plugin's server is always in memory on a free port: these flags are not offered.
_NOT_OFFERED = ("host", "port", "data_dir", "in_memory", "store")
_DUMMY_ENV = {
    "AWS_ACCESS_KEY_ID": "dynemu",
    "AWS_SECRET_ACCESS_KEY": "dynemu",
}


def _offered() -> dict[str, Any]:
    return {name: a for name, a in flag_actions().items() if name not in _NOT_OFFERED}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dynemu", "dynemu: the local DynamoDB server of the dynamodb fixture")
    for name, action in _offered().items():
        flag = "--dynemu-" + name.replace("_", "-")
        help_text = (action.help or "").rsplit(" [env ", 1)[0] + f" (ini: dynemu_{name})"
        if action.nargs == 0:
            group.addoption(flag, action="store_true", default=None, dest=f"dynemu_{name}", help=help_text)
        else:
            group.addoption(flag, choices=action.choices, dest=f"dynemu_{name}", help=help_text)
        parser.addini(f"dynemu_{name}", help_text, type="string", default="")
    group.addoption("--dynemu-autouse", action="store_true", default=None, help="start dynemu for every test")
    parser.addini("dynemu_autouse", "start dynemu for every test, so every test sees AWS_ENDPOINT_URL_DYNAMODB", type="bool", default=False)


def server_settings(config: pytest.Config) -> dict[str, Any]:
    """The settings given on the command line (first) or in the ini file, by name."""
    chosen: dict[str, Any] = {}
    for name in _offered():
        value = config.getoption(f"dynemu_{name}")
        if value is None:
            value = str(config.getini(f"dynemu_{name}")).strip() or None
        if value is not None:
            chosen[name] = value
    return chosen


@pytest.fixture(scope="session")
def dynemu_server(pytestconfig: pytest.Config) -> Iterator[Any]:
    from dynemu.testing import DynemuServer

    server = DynemuServer(**server_settings(pytestconfig))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def dynemu_url(dynemu_server: Any) -> Iterator[str]:
    url: str = dynemu_server.url
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_ENDPOINT_URL_DYNAMODB", url)
        mp.setenv("AWS_ENDPOINT_URL_DYNAMODB_STREAMS", url)
        for name, value in _DUMMY_ENV.items():
            if not os.environ.get(name):
                mp.setenv(name, value)
        if not (os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")):
            mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        yield url


@pytest.fixture(autouse=True)
def _dynemu_autouse(request: pytest.FixtureRequest) -> None:
    config = request.config
    if config.getoption("dynemu_autouse") or config.getini("dynemu_autouse"):
        request.getfixturevalue("dynemu_url")


SNAPSHOT = "dynemu-pytest-fixtures"  # the snapshot ``dynamodb_fixtures`` restores


def _client(url: str) -> Any:
    import boto3

    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    return boto3.client("dynamodb", endpoint_url=url, region_name=region)


@pytest.fixture
def dynamodb(dynemu_server: Any, dynemu_url: str) -> Any:
    """A boto3 DynamoDB client on a server emptied for this test."""
    dynemu_server.reset()
    return _client(dynemu_url)


@pytest.fixture(scope="session")
def dynemu_client(dynemu_url: str) -> Any:
    """A boto3 DynamoDB client of the session's server (for ``dynemu_data``)."""
    return _client(dynemu_url)


@pytest.fixture(scope="session")
def dynemu_data(dynemu_url: str) -> Any:
    """Override (scope="session") to load the tables every ``dynamodb_fixtures`` test starts
    from, e.g. ``def dynemu_data(dynemu_client): dynemu_client.create_table(...)``. It runs once,
    on an emptied server; its value is not used."""
    return None


@pytest.fixture(scope="session")
def _dynemu_loaded(request: pytest.FixtureRequest, dynemu_server: Any, dynemu_url: str) -> str:
    dynemu_server.reset()
    request.getfixturevalue("dynemu_data")  # after the reset: only this fixture asks for it
    dynemu_server.snapshot(SNAPSHOT)
    return SNAPSHOT


@pytest.fixture
def dynamodb_fixtures(_dynemu_loaded: str, dynemu_server: Any, dynemu_url: str) -> Any:
    """A boto3 DynamoDB client on the state ``dynemu_data`` loaded, restored for this test."""
    dynemu_server.restore(_dynemu_loaded)
    return _client(dynemu_url)
