"""The pytest plugin, used from a throw-away project the way a user's project uses it: pytest
in a subprocess finds the plugin through the ``pytest11`` entry point declared in
pyproject.toml (an installed distribution's metadata is written for it into tmp_path)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

APP = '''
import boto3


def save_order(order_id: str) -> None:
    """Application code: builds its own client, as applications do."""
    boto3.resource("dynamodb").Table("orders").put_item(Item={"id": order_id})
'''

TESTS = '''
import os
import urllib.request

import app


def make_orders(client):
    # Fails with ResourceInUseException if another test's table were visible.
    client.create_table(
        TableName="orders",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


def test_app_code_reaches_dynemu(dynamodb):
    make_orders(dynamodb)
    app.save_order("o-1")
    assert dynamodb.get_item(TableName="orders", Key={"id": {"S": "o-1"}})["Item"] == {"id": {"S": "o-1"}}


def test_tables_do_not_leak_between_tests(dynamodb):
    assert dynamodb.list_tables()["TableNames"] == []
    make_orders(dynamodb)
    assert dynamodb.scan(TableName="orders")["Count"] == 0


def test_environment(dynemu_url):
    assert os.environ["AWS_ENDPOINT_URL_DYNAMODB"] == dynemu_url
    assert os.environ["AWS_ENDPOINT_URL_DYNAMODB_STREAMS"] == dynemu_url
    assert os.environ["AWS_ACCESS_KEY_ID"] == "dynemu"
    assert os.environ["AWS_DEFAULT_REGION"] == "us-east-1"
    with urllib.request.urlopen(dynemu_url + "/") as response:
        assert response.status == 200


def test_options(dynemu_server):
    settings = dynemu_server.settings
    assert settings.in_memory
    assert settings.capacity_model == "uniform"  # ini
    assert settings.throttling is False  # command line
    assert settings.partition_size == 64 * 1024  # ini, the command line's spelling
'''

INI = """
[pytest]
dynemu_capacity_model = {model}
dynemu_partition_size = 64KB
"""


def _install_entry_point(site: Path) -> None:
    """What ``pip install dynemu`` writes for the plugin: an entry_points.txt."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["pytest11"]
    dist = site / "dynemu_under_test-0.0.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: dynemu-under-test\nVersion: 0.0.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in declared.items())
    (dist / "entry_points.txt").write_text("[pytest11]\n" + lines)


def _project(tmp_path: Path, model: str) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text(APP)
    (project / "test_app.py").write_text(textwrap.dedent(TESTS))
    (project / "pytest.ini").write_text(INI.format(model=model))
    site = tmp_path / "site"
    _install_entry_point(site)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PYTEST_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT), str(project)])
    return project, env


def _pytest(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
    )


def test_fixtures_options_and_isolation(tmp_path: Path) -> None:
    project, env = _project(tmp_path, "uniform")
    result = _pytest(project, env, "--dynemu-throttling", "off")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 passed" in result.stdout
    # Isolation does not depend on the order the tests ran in.
    result = _pytest(project, env, "--dynemu-throttling", "off", "-k", "leak or reaches")
    assert result.returncode == 0, result.stdout + result.stderr


def test_bad_ini_value_is_a_clear_error(tmp_path: Path) -> None:
    project, env = _project(tmp_path, "bogus")
    result = _pytest(project, env, "-k", "options")
    assert result.returncode != 0
    assert "capacity_model: must be one of uniform, burst, adaptive, gac, got 'bogus'" in result.stdout


def test_options_are_listed_in_help(tmp_path: Path) -> None:
    project, env = _project(tmp_path, "gac")
    text = _pytest(project, env, "--help").stdout
    for flag in ("--dynemu-capacity-model", "--dynemu-throttling", "--dynemu-clock", "--dynemu-autouse"):
        assert flag in text
    assert "--dynemu-port" not in text and "--dynemu-data-dir" not in text


def test_autouse_sets_the_endpoint_for_every_test(tmp_path: Path) -> None:
    project, env = _project(tmp_path, "gac")
    (project / "test_app.py").unlink()
    (project / "test_plain.py").write_text(
        "import os\n\n\ndef test_plain():\n    assert os.environ['AWS_ENDPOINT_URL_DYNAMODB'].startswith('http://')\n"
    )
    assert _pytest(project, env).returncode == 1  # without autouse nothing starts dynemu
    result = _pytest(project, env, "--dynemu-autouse")
    assert result.returncode == 0, result.stdout + result.stderr
    with open(project / "pytest.ini", "a") as ini:
        ini.write("dynemu_autouse = true\n")
    result = _pytest(project, env)
    assert result.returncode == 0, result.stdout + result.stderr


FIXTURE_TESTS = '''
import pytest

LOADS = []


@pytest.fixture(scope="session")
def dynemu_data(dynemu_client):
    LOADS.append(1)
    dynemu_client.create_table(
        TableName="orders", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
    )
    for i in range(20):
        dynemu_client.put_item(TableName="orders", Item={"id": {"S": f"o-{i}"}})


@pytest.mark.parametrize("run", range(3))
def test_starts_from_the_fixtures(dynamodb_fixtures, run):
    assert dynamodb_fixtures.list_tables()["TableNames"] == ["orders"]
    assert dynamodb_fixtures.scan(TableName="orders")["Count"] == 20
    # what this test writes is gone before the next one
    dynamodb_fixtures.delete_item(TableName="orders", Key={"id": {"S": "o-0"}})
    dynamodb_fixtures.put_item(TableName="orders", Item={"id": {"S": f"new-{run}"}})
    dynamodb_fixtures.create_table(
        TableName="scratch", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
    )


def test_empty_server_between(dynamodb):
    assert dynamodb.list_tables()["TableNames"] == []


def test_loaded_once():
    assert LOADS == [1]
'''


def test_fixtures_loaded_once_and_restored_before_each_test(tmp_path: Path) -> None:
    project, env = _project(tmp_path, "gac")
    (project / "test_app.py").write_text(FIXTURE_TESTS)
    result = _pytest(project, env, "-p", "no:randomly")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 passed" in result.stdout
