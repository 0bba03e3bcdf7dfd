"""Open namespaces are bounded: idle LevelDB stores close (LRU) and reopen transparently."""

from __future__ import annotations

import os
from typing import Any

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.conftest import make_client

REGIONS = [f"region-{i}" for i in range(6)]


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _fds_once_closed(namespaces: Any) -> int:
    """The descriptors open once the evicted stores have closed: they close on worker threads
    (storage/closing.py), and one still closing holds a LevelDB store's handful, which a
    busy machine leaves open a while after the request that evicted it was answered."""
    import time

    deadline = time.monotonic() + 60
    while any(namespaces.closing(region) for region in REGIONS):
        assert time.monotonic() < deadline, "an evicted store never closed"
        time.sleep(0.01)
    return _fds()


def _create(ddb: Any) -> None:
    ddb.create_table(
        TableName="tab", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )


def _stream_records(streams: Any, arn: str) -> int:
    n = 0
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
        n += len(streams.get_records(ShardIterator=it["ShardIterator"])["Records"])
    return n


def test_idle_namespaces_close_and_reopen_with_their_data(tmp_path: Any) -> None:
    server = DynemuServer(data_dir=str(tmp_path), max_open_namespaces=2)
    url = server.start()
    try:
        namespaces = server.app[NAMESPACES]
        for region in REGIONS:
            ddb = make_client(url, region=region)
            _create(ddb)
            for i in range(20):
                ddb.put_item(TableName="tab", Item={"pk": {"S": f"{region}-{i}"}, "v": {"N": str(i)}})
            assert len(namespaces.databases) <= 2
        fds = _fds_once_closed(namespaces)
        for region in REGIONS * 2:  # every namespace reopened (twice), nothing lost
            ddb = make_client(url, region=region)
            assert ddb.scan(TableName="tab", Select="COUNT")["Count"] == 20
            item = ddb.get_item(TableName="tab", Key={"pk": {"S": f"{region}-7"}}, ConsistentRead=True)["Item"]
            assert item["v"] == {"N": "7"}
            stream = ddb.describe_table(TableName="tab")["Table"]["LatestStreamArn"]
            streams = make_client(url, region=region, service="dynamodbstreams")
            assert _stream_records(streams, stream) == 20
            assert len(namespaces.databases) <= 2
        assert _fds_once_closed(namespaces) <= fds + 8  # reopening does not leak descriptors
    finally:
        server.stop()
    with DynemuServer(data_dir=str(tmp_path), max_open_namespaces=2) as url:  # and after a restart
        for region in REGIONS:
            assert make_client(url, region=region).scan(TableName="tab", Select="COUNT")["Count"] == 20


def test_made_up_regions_do_not_exhaust_file_descriptors(tmp_path: Any) -> None:
    with DynemuServer(data_dir=str(tmp_path), max_open_namespaces=4) as url:
        before = _fds()
        for i in range(60):
            make_client(url, region=f"made-up-{i}").list_tables()
        assert _fds() < before + 40  # 60 LevelDB stores would hold far more


def test_remembered_namespace_names_refuse_bad_regions_every_time() -> None:
    """The (region, access key) -> namespace name cache keeps only names that passed: a
    made-up region is refused on every request, and a known one still opens its database."""
    import pytest

    from dynemu import errors
    from dynemu.engine import namespaces as ns_module
    from dynemu.engine.clock import VirtualClock

    spaces = ns_module.Namespaces(data_dir=None, clock=VirtualClock(1_700_000_000.0), isolate_access_keys=True)
    for _ in range(2):
        with pytest.raises(errors.DynamoError) as e:
            spaces.get("not a region!", "AKID")
        assert e.value.type_name == "InvalidSignatureException"
        assert e.value.message == "Credential should be scoped to a valid region, not 'not a region!'."
    first = spaces.get("us-east-1", "AKIDONE")
    assert spaces.get("us-east-1", "AKIDONE") is first
    assert spaces.get("us-east-1", "AKIDTWO") is not first  # isolated access keys: another namespace
    for i in range(ns_module._NAMES_KEPT + 5):  # the cache stays bounded
        spaces.get("us-east-1", f"AKID{i:06d}")
    assert len(spaces._names) <= ns_module._NAMES_KEPT
    assert spaces.get("us-east-1", "AKIDONE") is first


def _namespace_dirs(data_dir: Any) -> list[str]:
    return sorted(e for e in os.listdir(data_dir) if os.path.isdir(os.path.join(data_dir, e)))


def test_reads_create_no_store_and_the_first_write_does(tmp_path: Any) -> None:
    """ListTables and DescribeTable in a namespace never written leave nothing on disk, for
    600 made-up regions too; the first CreateTable creates the namespace's store."""
    import boto3
    import pytest
    from botocore.exceptions import ClientError

    from tests.conftest import CONFIG

    with DynemuServer(data_dir=str(tmp_path), store="leveldb") as url:
        session = boto3.session.Session(aws_access_key_id="AKIDTEST", aws_secret_access_key="secret")
        for i in range(600):
            ddb = session.client("dynamodb", endpoint_url=url, region_name=f"made-up-{i}", config=CONFIG)
            assert ddb.list_tables()["TableNames"] == []
        ddb = make_client(url, region="read-only-1")
        with pytest.raises(ClientError) as e:
            ddb.describe_table(TableName="tab")
        assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"
        assert ddb.list_tables()["TableNames"] == []
        assert _namespace_dirs(tmp_path) == []

        writer = make_client(url, region="written-1")
        assert writer.list_tables()["TableNames"] == []  # read first: the namespace is open, empty
        _create(writer)
        writer.put_item(TableName="tab", Item={"pk": {"S": "a"}})
        assert _namespace_dirs(tmp_path) == ["written-1"]
    with DynemuServer(data_dir=str(tmp_path), store="leveldb") as url:  # the write is on disk
        assert make_client(url, region="written-1").list_tables()["TableNames"] == ["tab"]
        assert make_client(url, region="read-only-1").list_tables()["TableNames"] == []
    assert _namespace_dirs(tmp_path) == ["written-1"]


def _pipelined(url: str, requests: list[tuple[str, str, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """(region, operation, body) requests sent at once on one connection: the answers, in order."""
    import json
    import socket
    from urllib.parse import urlparse

    u = urlparse(url)
    data = b""
    for region, op, body in requests:
        raw = json.dumps(body).encode()
        data += (f"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
                 f"X-Amz-Target: DynamoDB_20120810.{op}\r\nAuthorization: AWS4-HMAC-SHA256 "
                 f"Credential=AKIDTEST/20250101/{region}/dynamodb/aws4_request, SignedHeaders=host, Signature=x\r\n"
                 f"Content-Length: {len(raw)}\r\n\r\n").encode() + raw  # fmt: skip
    answers = []
    with socket.create_connection((u.hostname, u.port), timeout=60) as s:
        s.sendall(data)
        got = b""
        while len(answers) < len(requests):
            head, sep, rest = got.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), None)  # fmt: skip
            if not sep or length is None or len(rest) < length:
                chunk = s.recv(65536)
                assert chunk, f"connection closed after {len(answers)} answers"
                got += chunk
                continue
            answers.append((int(head.split(b" ")[1]), json.loads(rest[:length])))
            got = rest[length:]
    return answers


def test_requests_wait_for_their_namespace_to_open_and_keep_their_order(tmp_path: Any) -> None:
    """With one namespace open, each request below names a namespace on disk that is not open:
    its store opens off the event loop (engine/namespaces.py) while the request waits, and the
    answers of pipelined requests come in the order the requests were sent."""
    with DynemuServer(data_dir=str(tmp_path), max_open_namespaces=1) as url:
        for region in REGIONS[:3]:
            ddb = make_client(url, region=region)
            _create(ddb)
            ddb.put_item(TableName="tab", Item={"pk": {"S": "k"}, "v": {"S": region}})
        order = [REGIONS[0], REGIONS[1], REGIONS[0], REGIONS[2], REGIONS[2], REGIONS[1]]
        get = {"TableName": "tab", "Key": {"pk": {"S": "k"}}, "ConsistentRead": True}
        answers = _pipelined(url, [(region, "GetItem", get) for region in order])
        assert answers == [(200, {"Item": {"pk": {"S": "k"}, "v": {"S": region}}}) for region in order]


def test_a_store_that_fails_to_open_is_answered_and_the_connection_goes_on(tmp_path: Any) -> None:
    """A namespace directory holding the other store's files fails to open (off the loop): the
    request gets the service's answer to its own failure, and the next one on the connection
    is served."""
    from dynemu.storage.base import SQLITE_FILENAME

    with DynemuServer(data_dir=str(tmp_path), store="leveldb") as url:
        os.mkdir(tmp_path / "region-bad")
        (tmp_path / "region-bad" / SQLITE_FILENAME).write_bytes(b"")
        answers = _pipelined(url, [("region-bad", "ListTables", {}), ("region-0", "ListTables", {})])
        assert answers == [(500, {"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
                                  "message": "Internal server error"}),
                           (200, {"TableNames": []})]  # fmt: skip


def test_the_replication_applier_opens_an_evicted_replica_off_the_loop(tmp_path: Any) -> None:
    """Global tables' applier (on a timer) writing into a replica whose namespace was evicted
    opens that store off the event loop, as a request does, then applies the change."""
    import threading
    import time
    import traceback

    server = DynemuServer(data_dir=str(tmp_path), max_open_namespaces=2, replication_lag_ms=50)
    url = server.start()
    try:
        namespaces = server.app[NAMESPACES]
        origin, replica = make_client(url, region="region-0"), make_client(url, region="region-1")
        _create(origin)
        origin.update_table(TableName="tab", ReplicaUpdates=[{"Create": {"RegionName": "region-1"}}])
        deadline = time.monotonic() + 60
        while origin.describe_table(TableName="tab")["Table"].get("Replicas", [{}])[0].get("ReplicaStatus") != "ACTIVE":
            assert time.monotonic() < deadline, "the replica never became ACTIVE"
            time.sleep(0.05)
        # (namespace, thread, whether the applier asked) of each store opened from now on
        opened: list[tuple[str, str, bool]] = []
        real_open = namespaces._open_store

        def recorded(name: str) -> Any:
            applier = any(f.filename.endswith("replication.py") for f in traceback.extract_stack())
            opened.append((name, threading.current_thread().name, applier))
            return real_open(name)

        namespaces._open_store = recorded
        key = ("tab", "region-0", "region-1")
        for i in range(5):
            before = namespaces.replication.applied.get(key, 0)
            origin.put_item(TableName="tab", Item={"pk": {"S": f"k{i}"}, "v": {"N": str(i)}})
            make_client(url, region="region-2").list_tables()  # evicts region-1: the least recently used
            while namespaces.replication.applied.get(key, 0) == before:  # applied by the timer
                assert time.monotonic() < deadline + 60, "the change was never applied"
                time.sleep(0.02)
        assert replica.get_item(TableName="tab", Key={"pk": {"S": "k4"}}, ConsistentRead=True)["Item"]["v"] == {"N": "4"}
        assert "region-1" in {name for name, _, _ in opened}  # reopened after each eviction
        # none by the applier on the loop (global tables' membership saves may open on it)
        assert not [o for o in opened if o[2] and not o[1].startswith("dynemu-open")], opened
    finally:
        server.stop()
