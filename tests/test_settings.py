"""Settings: flags, DYNEMU_* variables and DynemuServer keywords share names, values and checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynemu.config import Settings, SettingsError, flag_actions, load_settings, make_settings
from dynemu.startup import StartupError
from dynemu.testing import DynemuServer
from tests.conftest import make_client


def test_cli_spellings_and_python_values_are_the_same_settings() -> None:
    a = DynemuServer(throttling="off", capacity_model="uniform", partition_size="64KB", time_scale="2").settings
    b = DynemuServer(throttling=False, capacity_model="uniform", partition_size=64 * 1024, time_scale=2).settings
    c = load_settings(
        ["--throttling", "off", "--capacity-model", "uniform", "--partition-size", "64KB", "--time-scale", "2"], {}
    )
    assert a == b
    for name in ("throttling", "capacity_model", "partition_size", "time_scale"):
        assert getattr(a, name) == getattr(c, name)
    assert a.throttling is False and DynemuServer(throttling="on").settings.throttling is True


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"capacity_model": "bogus"}, "capacity_model: must be one of uniform, burst, adaptive, gac"),
        ({"throttling": "sometimes"}, "throttling: expected one of"),
        ({"port": 99999}, "between 0 and 65535"),
        ({"port": "abc"}, "port: expected a whole number"),
        ({"partition_size": "lots"}, "size in bytes"),
        ({"stale_read_probability": 2}, "between 0 and 1"),
        ({"clock": 1}, "clock: expected str"),
        ({"shared_db": "maybe"}, "shared_db: expected one of"),
    ],
)
def test_bad_values_fail_at_construction(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(SettingsError, match=match):
        DynemuServer(**kwargs)


def test_unknown_keyword_fails_with_a_suggestion() -> None:
    with pytest.raises(TypeError, match="did you mean 'capacity_model'"):
        DynemuServer(capacity_modle="uniform")


def test_every_setting_has_a_flag_and_every_flag_help_names_its_variable() -> None:
    names = {f for f in vars(Settings()) if f != "extra"}
    actions = flag_actions()
    assert set(actions) == names
    for name, action in actions.items():
        assert action.help and f"[env DYNEMU_{name.upper()}]" in action.help, name


def test_settings_object_and_overrides_are_checked() -> None:
    with pytest.raises(SettingsError, match="capacity-model"):
        DynemuServer(Settings(capacity_model="bogus", in_memory=True, port=0))
    s = make_settings({"seed": "7"}, Settings(in_memory=True, port=0))
    assert s.seed == 7


def test_restart_after_stop_keeps_the_data(tmp_path: Path) -> None:
    server = DynemuServer(data_dir=tmp_path / "data", throttling="off")
    url = server.start()
    with pytest.raises(RuntimeError, match="already running"):
        server.start()
    make_client(url).create_table(
        TableName="kept", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
    )
    server.stop()
    server.stop()  # idempotent
    url = server.start()
    try:
        assert make_client(url).list_tables()["TableNames"] == ["kept"]
    finally:
        server.stop()


def test_in_memory_restart_and_reset() -> None:
    server = DynemuServer()
    for _ in range(2):
        with server as url:
            c = make_client(url)
            assert c.list_tables()["TableNames"] == []
            c.create_table(
                TableName="gone", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
            )
            server.reset()
            assert c.list_tables()["TableNames"] == []
            assert make_client(url, region="eu-west-1").list_tables()["TableNames"] == []


def test_two_servers_on_one_data_directory(tmp_path: Path) -> None:
    with DynemuServer(data_dir=str(tmp_path)):
        with pytest.raises(StartupError, match="in use by another dynemu process"):
            DynemuServer(data_dir=str(tmp_path)).start()


@pytest.mark.parametrize("store", ["sqlite", "leveldb"])
def test_server_on_each_disk_store(tmp_path: Path, store: str) -> None:
    if store == "leveldb":
        pytest.importorskip("plyvel")
    server = DynemuServer(data_dir=str(tmp_path), store=store, throttling="off")
    for restart in range(2):
        with server as url:
            c = make_client(url)
            if restart == 0:
                c.create_table(
                    TableName="items", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                    BillingMode="PAY_PER_REQUEST",
                )
                for i in range(30):
                    c.put_item(TableName="items", Item={"pk": {"S": f"k{i}"}, "n": {"N": str(i)}})
            else:
                assert c.scan(TableName="items")["Count"] == 30
                assert c.get_item(TableName="items", Key={"pk": {"S": "k7"}})["Item"]["n"] == {"N": "7"}


def test_port_in_use_is_a_startup_error() -> None:
    import socket

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        server = DynemuServer(port=other.getsockname()[1])
        with pytest.raises(StartupError, match="already in use"):
            server.start()
        assert not server.running
    with server as url:  # the same object starts once the port is free
        assert url.endswith(f":{server.settings.port}")
