"""ExportTableToPointInTime, DescribeExport, ListExports, ImportTable, DescribeImport and
ListImports over HTTP with boto3, the files against DynamoDB's documented layout ("DynamoDB
table export output format"), and round trips (export -> import, full + incremental, JSON <->
ION)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import itertools
import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config

from dynemu import errors
from dynemu.api.admin.app import NAMESPACES
from dynemu.engine.exports import codecs, layout
from dynemu.storage.objects import LocalObjects, S3Objects
from dynemu.testing import DynemuServer
from tests.conftest import make_client

_names = itertools.count()
EVERY_TYPE = {
    "pk": {"S": "all-types"},
    "s": {"S": "text ✓ \"quoted\"\nnew line"},
    "n_big": {"N": "9.9999999999999999999999999999999999999E+125"},
    "n_small": {"N": "-1E-130"},
    "n_int": {"N": "12345678901234567890123456789012345678"},
    "b": {"B": base64.b64encode(bytes(range(256))).decode()},
    "bool": {"BOOL": False},
    "null": {"NULL": True},
    "ss": {"SS": ["a", "b", "ç"]},
    "ns": {"NS": ["1", "-2.5", "1E+10"]},
    "bs": {"BS": [base64.b64encode(b"\x00").decode(), base64.b64encode(b"\xff\xfe").decode()]},
    "l": {"L": [{"S": "x"}, {"N": "1"}, {"L": []}, {"M": {}}]},
    "m": {"M": {"deep": {"M": {"deeper": {"M": {"list": {"L": [{"BOOL": True}, {"NULL": True}]}}}}}}},
    "odd name-with.dots": {"S": "v"},
}


class Server:
    """A server on a virtual clock whose "S3" is a folder, or moto's S3 server (``s3_url``)."""

    def __init__(self, s3: str, s3_url: str | None = None) -> None:
        self.s3 = s3
        where = {"s3_endpoint": s3_url} if s3_url else {"s3_dir": s3}
        self.server = DynemuServer(clock="virtual", import_export_seconds=30, **where)
        self.url = self.server.start()
        self.client = make_client(self.url)
        self.raw = boto3.client(
            "dynamodb", endpoint_url=self.url, region_name="us-east-1", aws_access_key_id="AKIDTEST",
            aws_secret_access_key="secret", config=Config(parameter_validation=False, retries={"total_max_attempts": 1}),
        )  # fmt: skip
        self.clock = self.server.app[NAMESPACES].clock
        self.objects: Any = S3Objects(s3_url) if s3_url else LocalObjects(s3)
        self.s3_client = self.objects.client if s3_url else None
        self.put("exports", "_keep", b"")  # the bucket exports go to

    def advance(self, seconds: float) -> None:
        """Move the virtual clock through the admin API, on the server's loop: the job steps
        run there too, so the clock never moves under them from this thread."""
        req = urllib.request.Request(self.url + "/_dynemu/clock", data=json.dumps({"advance": seconds}).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
        urllib.request.urlopen(req, timeout=60).read()

    def put(self, bucket: str, key: str, data: bytes) -> None:
        if self.s3_client is not None and not self.objects.bucket_exists(bucket):
            self.s3_client.create_bucket(Bucket=bucket)
        self.objects.put(bucket, key, data)

    def get(self, bucket: str, key: str) -> bytes:
        with self.objects.open(bucket, key) as f:
            return f.read()  # type: ignore[no-any-return]

    def table(self, pitr: bool = True, **extra: Any) -> tuple[str, str]:
        name = f"io-{next(_names)}"
        self.client.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            **{"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], **extra},
        )  # fmt: skip
        if pitr:
            self.client.update_continuous_backups(
                TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
        return name, self.client.describe_table(TableName=name)["Table"]["TableArn"]

    def items(self, name: str) -> list[dict[str, Any]]:
        pages = self.client.get_paginator("scan").paginate(TableName=name)
        return sorted((i for p in pages for i in p["Items"]), key=lambda i: i["pk"]["S"])


@pytest.fixture(scope="module", params=["folder", "s3-endpoint"])
def srv(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Every test runs twice: "S3" as --s3-dir, and as --s3-endpoint on moto's S3 server."""
    moto = None
    url = None
    if request.param == "s3-endpoint":
        from moto.server import ThreadedMotoServer

        moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        moto.start()
        host, port = moto.get_host_and_port()
        url = f"http://{host}:{port}"
    s = Server(str(tmp_path_factory.mktemp("s3")), url)
    try:
        yield s
    finally:
        s.server.stop()
        if moto is not None:
            moto.stop()


def _put(srv: Server, name: str, n: int, tag: str = "v1") -> None:
    for i in range(n):
        srv.client.put_item(TableName=name, Item={"pk": {"S": f"k{i:03d}"}, "tag": {"S": tag}, "n": {"N": str(i)}})


def _ended(srv: Server, kind: str, arn: str) -> dict[str, Any]:
    """The job once it has ended: the clock moved past its 30 s, then polled until its steps
    (run on the server's event loop) are done."""
    srv.advance(31)
    for _ in range(10_000):
        if kind == "export":
            d = srv.client.describe_export(ExportArn=arn)["ExportDescription"]
        else:
            d = srv.client.describe_import(ImportArn=arn)["ImportTableDescription"]
        if d[f"{kind.title()}Status"] != "IN_PROGRESS":
            return d  # type: ignore[no-any-return]
        time.sleep(0.01)
    raise AssertionError(f"the {kind} {arn} never ended")


def _export(srv: Server, arn: str, **kw: Any) -> dict[str, Any]:
    d = srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", **kw)["ExportDescription"]
    assert d["ExportStatus"] == "IN_PROGRESS"
    done = _ended(srv, "export", d["ExportArn"])
    assert done["ExportStatus"] == "COMPLETED"
    return done


def _import(srv: Server, name: str, prefix: str, fmt: str = "DYNAMODB_JSON", bucket: str = "exports",
            compression: str = "GZIP", **kw: Any) -> dict[str, Any]:
    d = srv.client.import_table(
        S3BucketSource={"S3Bucket": bucket, "S3KeyPrefix": prefix}, InputFormat=fmt, InputCompressionType=compression,
        TableCreationParameters={
            "TableName": name, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST",
        }, **kw,
    )["ImportTableDescription"]  # fmt: skip
    assert d["ImportStatus"] == "IN_PROGRESS"
    return _ended(srv, "import", d["ImportArn"])


def _base(d: dict[str, Any]) -> str:
    return d["ExportManifest"].rpartition("/")[0]


# --- the files ------------------------------------------------------------------------------------


def test_full_export_files_follow_the_documented_layout(srv: Server) -> None:
    name, arn = srv.table()
    _put(srv, name, 5)
    d = _export(srv, arn, S3Prefix="nightly")
    export_id = d["ExportArn"].rpartition("/")[2]
    assert d["ExportArn"] == f"{arn}/export/{export_id}" and len(export_id) == 23 and export_id[14] == "-"
    base = f"nightly/AWSDynamoDB/{export_id}"
    assert d["ExportManifest"] == f"{base}/manifest-summary.json"
    assert srv.get("exports", f"{base}/_started") == b""
    raw_summary = srv.get("exports", f"{base}/manifest-summary.json")
    summary = json.loads(raw_summary)
    assert set(summary) == {"version", "exportArn", "startTime", "endTime", "tableArn", "tableId", "exportTime",
                            "s3Bucket", "s3Prefix", "s3SseAlgorithm", "s3SseKmsKeyId", "manifestFilesS3Key",
                            "billedSizeBytes", "itemCount", "outputFormat"}  # fmt: skip
    assert summary["version"] == "2020-06-30" and summary["exportArn"] == d["ExportArn"]
    assert summary["tableArn"] == arn and summary["s3Bucket"] == "exports" and summary["s3Prefix"] == "nightly"
    assert summary["s3SseAlgorithm"] == "AES256" and summary["s3SseKmsKeyId"] is None
    assert summary["itemCount"] == 5 == d["ItemCount"] and summary["outputFormat"] == "DYNAMODB_JSON"
    assert summary["billedSizeBytes"] == d["BilledSizeBytes"] > 0
    assert summary["startTime"].endswith("Z") and len(summary["startTime"]) == len("2020-11-04T07:28:34.028Z")
    assert summary["manifestFilesS3Key"] == f"{base}/manifest-files.json"
    assert srv.get("exports", f"{base}/manifest-summary.md5").decode() == hashlib.md5(raw_summary).hexdigest()
    files = [json.loads(line) for line in srv.get("exports", summary["manifestFilesS3Key"]).splitlines()]
    assert len(files) == 1 and set(files[0]) == {"itemCount", "md5Checksum", "etag", "dataFileS3Key"}
    data_key = files[0]["dataFileS3Key"]
    assert data_key.startswith(f"{base}/data/") and data_key.endswith(".json.gz")
    blob = srv.get("exports", data_key)
    assert files[0]["md5Checksum"] == base64.b64encode(hashlib.md5(blob).digest()).decode()
    assert files[0]["etag"] == hashlib.md5(blob).hexdigest() and files[0]["itemCount"] == 5
    lines = [json.loads(line) for line in gzip.decompress(blob).splitlines()]
    assert sorted(line["Item"]["pk"]["S"] for line in lines) == [f"k{i:03d}" for i in range(5)]
    assert all(set(line) == {"Item"} for line in lines)


def test_ion_lines_follow_the_documented_mapping() -> None:
    item = {"Id": {"N": "103"}, "PageCount": {"N": "600"}, "Authors": {"SS": ["A1", "A2"]}, "B": {"B": "AAE="},
            "Ok": {"BOOL": False}, "Nothing": {"NULL": True}, "M": {"M": {"x": {"L": [{"N": "1.5"}]}}}}
    line = codecs.ion_item_line(item).decode()
    assert line == ('$ion_1_0 {Item:{Id:103.,PageCount:6d2,Authors:$dynamodb_SS::["A1","A2"],B:{{AAE=}},'
                    'Ok:false,Nothing:null,M:{x:[15d-1]}}}\n')  # fmt: skip
    assert codecs.read_ion(line.encode()) == (item, None)


# --- ExportTableToPointInTime -------------------------------------------------------------------


def test_export_is_the_table_as_of_export_time(srv: Server) -> None:
    name, arn = srv.table()
    _put(srv, name, 3, "old")
    srv.advance(60)
    then = srv.clock.now()
    srv.advance(60)
    _put(srv, name, 4, "new")
    d = _export(srv, arn, ExportTime=then)
    target = f"{name}-copy"
    imp = _import(srv, target, _base(d) + "/")
    assert imp["ImportStatus"] == "COMPLETED" and imp["ImportedItemCount"] == 3 and imp["ErrorCount"] == 0
    assert {i["tag"]["S"] for i in srv.items(target)} == {"old"} and len(srv.items(target)) == 3


def test_export_needs_point_in_time_recovery(srv: Server) -> None:
    _, arn = srv.table(pitr=False)
    with pytest.raises(srv.client.exceptions.PointInTimeRecoveryUnavailableException) as e:
        srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")
    assert e.value.response["Error"]["Message"] == errors.pitr_unavailable(arn.rpartition("/")[2]).message


def test_export_time_outside_the_window(srv: Server) -> None:
    _, arn = srv.table()
    future = srv.clock.now() + 3600
    with pytest.raises(srv.client.exceptions.InvalidExportTimeException) as e:
        srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", ExportTime=future)
    msg = e.value.response["Error"]["Message"]
    assert msg.startswith("The specified ExportTime ") and "is outside of the point in time recovery window" in msg


def test_export_of_a_missing_table(srv: Server) -> None:
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/nope"
    with pytest.raises(srv.client.exceptions.TableNotFoundException) as e:
        srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")
    assert e.value.response["Error"]["Message"] == f"Table not found: {arn}"


def test_export_client_token(srv: Server) -> None:
    name, arn = srv.table()
    first = srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", ClientToken="tok-1")
    again = srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", ClientToken="tok-1")
    assert first["ExportDescription"]["ExportArn"] == again["ExportDescription"]["ExportArn"]
    with pytest.raises(srv.client.exceptions.ExportConflictException) as e:
        srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="other-bucket", ClientToken="tok-1")
    assert e.value.response["Error"]["Message"] == errors.export_conflict("tok-1").message


def test_describe_export_not_found(srv: Server) -> None:
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/x/export/01234567890123-abcdef01"
    with pytest.raises(srv.client.exceptions.ExportNotFoundException) as e:
        srv.client.describe_export(ExportArn=arn)
    assert e.value.response["Error"]["Message"] == f"Export not found: {arn}"


def test_list_exports_pages_and_filters(srv: Server) -> None:
    name, arn = srv.table()
    made = [srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")["ExportDescription"]["ExportArn"]
            for _ in range(3)]  # fmt: skip
    first = srv.client.list_exports(TableArn=arn, MaxResults=2)
    assert [s["ExportArn"] for s in first["ExportSummaries"]] == made[:2]
    assert all(s["ExportStatus"] == "IN_PROGRESS" and s["ExportType"] == "FULL_EXPORT" for s in first["ExportSummaries"])
    rest = srv.client.list_exports(TableArn=arn, MaxResults=2, NextToken=first["NextToken"])
    assert [s["ExportArn"] for s in rest["ExportSummaries"]] == made[2:] and "NextToken" not in rest
    srv.advance(31)
    assert {s["ExportStatus"] for s in srv.client.list_exports(TableArn=arn)["ExportSummaries"]} == {"COMPLETED"}


def test_incremental_export_applied_on_the_full_one_is_the_later_table(srv: Server) -> None:
    name, arn = srv.table()
    _put(srv, name, 6, "v1")
    srv.advance(10)
    t1 = srv.clock.now()
    full = _export(srv, arn, ExportTime=t1)
    srv.client.put_item(TableName=name, Item={"pk": {"S": "k000"}, "tag": {"S": "v2"}})  # update
    srv.client.delete_item(TableName=name, Key={"pk": {"S": "k001"}})  # delete
    srv.client.put_item(TableName=name, Item={"pk": {"S": "new"}, "tag": {"S": "v2"}})  # insert
    srv.client.put_item(TableName=name, Item={"pk": {"S": "gone"}, "tag": {"S": "v2"}})
    srv.client.delete_item(TableName=name, Key={"pk": {"S": "gone"}})  # insert + delete: nothing
    srv.advance(20 * 60)
    t2 = srv.clock.now()
    later = srv.items(name)
    inc = _export(srv, arn, ExportType="INCREMENTAL_EXPORT", IncrementalExportSpecification={
        "ExportFromTime": t1, "ExportToTime": t2, "ExportViewType": "NEW_AND_OLD_IMAGES"})
    assert inc["ItemCount"] == 3 and inc["IncrementalExportSpecification"]["ExportViewType"] == "NEW_AND_OLD_IMAGES"
    target = f"{name}-rebuilt"
    _import(srv, target, _base(full) + "/")
    lines = _lines(srv, inc)
    assert all("Metadata" in r and int(r["Metadata"]["WriteTimestampMicros"]["N"]) < t2 * 1e6 for r in lines)
    by_key = {r["Keys"]["pk"]["S"]: r for r in lines}
    assert by_key["k000"]["OldImage"]["tag"] == {"S": "v1"} and by_key["k000"]["NewImage"]["tag"] == {"S": "v2"}
    assert "NewImage" not in by_key["k001"] and "OldImage" not in by_key["new"] and "gone" not in by_key
    for r in lines:  # applied as a reader of the files would
        if "NewImage" in r:
            srv.client.put_item(TableName=target, Item=r["NewImage"])
        else:
            srv.client.delete_item(TableName=target, Key=r["Keys"])
    assert srv.items(target) == later


def _lines(srv: Server, d: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for k in layout.data_keys(srv.objects, "exports", _base(d) + "/"):
        out.extend(json.loads(line) for line in gzip.decompress(srv.get("exports", k)).splitlines())
    return out


def test_incremental_export_errors(srv: Server) -> None:
    _, arn = srv.table()
    now = srv.clock.now()
    cases = [
        ({"ExportType": "INCREMENTAL_EXPORT"}, errors.MSG_INCREMENTAL_SPEC_NEEDED),
        ({"IncrementalExportSpecification": {"ExportFromTime": now}}, errors.MSG_INCREMENTAL_ON_FULL),
        ({"ExportType": "INCREMENTAL_EXPORT", "IncrementalExportSpecification": {}}, errors.MSG_INCREMENTAL_FROM_NEEDED),
    ]
    for extra, message in cases:
        with pytest.raises(srv.client.exceptions.ClientError) as e:
            srv.raw.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", **extra)
        assert e.value.response["Error"] == {"Code": "ValidationException", "Message": message}


# --- ImportTable --------------------------------------------------------------------------------


def test_round_trip_json_and_ion(srv: Server) -> None:
    name, arn = srv.table()
    srv.client.put_item(TableName=name, Item=_wire(EVERY_TYPE))
    _put(srv, name, 20)
    original = srv.items(name)
    for fmt in ("DYNAMODB_JSON", "ION"):
        d = _export(srv, arn, ExportFormat=fmt)
        target = f"{name}-{fmt.lower().replace('_', '')}"
        imp = _import(srv, target, _base(d) + "/", fmt)
        assert (imp["ImportedItemCount"], imp["ErrorCount"], imp["ProcessedItemCount"]) == (21, 0, 21)
        assert srv.items(target) == original


def _wire(item: dict[str, Any]) -> dict[str, Any]:
    """boto3 takes binary values as bytes."""
    def conv(v: dict[str, Any]) -> dict[str, Any]:
        ((t, x),) = v.items()
        if t == "B":
            return {"B": base64.b64decode(x)}
        if t == "BS":
            return {"BS": [base64.b64decode(b) for b in x]}
        if t == "M":
            return {"M": {k: conv(y) for k, y in x.items()}}
        if t == "L":
            return {"L": [conv(y) for y in x]}
        return v
    return {k: conv(v) for k, v in item.items()}


def test_hand_written_export_in_aws_layout_imports_exactly(srv: Server) -> None:
    """An export as AWS writes it (made by hand): every attribute type, numbers at the limits."""
    base = "AWSDynamoDB/01693910000000-a1b2c3d4"
    lines = (json.dumps({"Item": EVERY_TYPE}) + "\n" + json.dumps({"Item": {"pk": {"S": "second"}}}) + "\n").encode()
    blob = gzip.compress(lines)
    data_key = f"{base}/data/bafybeiczss3yxay3o4abnabbb.json.gz"
    srv.put("handmade", data_key, blob)
    manifest = {"itemCount": 2, "md5Checksum": base64.b64encode(hashlib.md5(blob).digest()).decode(),
                "etag": hashlib.md5(blob).hexdigest(), "dataFileS3Key": data_key}
    srv.put("handmade", f"{base}/manifest-files.json", (json.dumps(manifest) + "\n").encode())
    srv.put("handmade", f"{base}/manifest-summary.json", json.dumps({
        "version": "2020-06-30", "itemCount": 2, "outputFormat": "DYNAMODB_JSON",
        "manifestFilesS3Key": f"{base}/manifest-files.json"}).encode())
    srv.put("handmade", f"{base}/_started", b"")
    target = f"handmade-{next(_names)}"
    imp = _import(srv, target, "AWSDynamoDB/", bucket="handmade")
    assert (imp["ImportedItemCount"], imp["ErrorCount"]) == (2, 0)
    got = srv.client.get_item(TableName=target, Key={"pk": {"S": "all-types"}})["Item"]
    reference, _ = srv.table(pitr=False)  # what PutItem keeps of the same item (numbers in output form)
    srv.client.put_item(TableName=reference, Item=_wire(EVERY_TYPE))
    assert got == srv.client.get_item(TableName=reference, Key={"pk": {"S": "all-types"}})["Item"]
    assert got["b"] == _wire(EVERY_TYPE)["b"] and got["m"] == EVERY_TYPE["m"] and got["n_small"]["N"].endswith("01")


def test_bad_lines_are_counted_and_the_rest_imported(srv: Server) -> None:
    srv.put("dirty", "in/a.json", b'{"Item": {"pk": {"S": "ok1"}}}\nnot json\n{"Item": {"other": {"S": "no key"}}}\n'
            b'{"Item": {"pk": {"N": "1"}}}\n{"Item": {"pk": {"S": "ok2"}, "s": {"SS": []}}}\n{"Item": {"pk": {"S": "ok3"}}}\n')
    target = f"dirty-{next(_names)}"
    imp = _import(srv, target, "in/", bucket="dirty", compression="NONE")
    assert imp["ImportStatus"] == "COMPLETED"
    assert (imp["ProcessedItemCount"], imp["ImportedItemCount"], imp["ErrorCount"]) == (6, 2, 4)
    assert imp["ProcessedSizeBytes"] > 0
    assert [i["pk"]["S"] for i in srv.items(target)] == ["ok1", "ok3"]


def test_repeated_keys_the_later_line_wins_and_no_index_entry_lingers(srv: Server) -> None:
    """The import skips the old-image read of a key it has not put before: a key repeated
    in the same step (512 lines) or a later one still replaces its item, its GSI entry and
    its share of the table's count and size. A line whose GSI key has the wrong type is an
    error, not an item."""
    lines = [b'{"Item":{"pk":{"S":"k%03d"},"g":{"S":"first"},"pad":{"S":"%s"}}}' % (i, b"x" * i) for i in range(600)]
    lines += [b'{"Item":{"pk":{"S":"dup"},"g":{"S":"a"}}}', b'{"Item":{"pk":{"S":"dup"},"g":{"S":"b"}}}']
    lines += [b'{"Item":{"pk":{"S":"k%03d"},"g":{"S":"second"}}}' % i for i in range(600)]
    lines.append(b'{"Item":{"pk":{"S":"bad"},"g":{"N":"1"}}}')
    srv.put("repeats", "in/a.json", b"\n".join(lines) + b"\n")
    target = f"repeats-{next(_names)}"
    gsi = {"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
           "Projection": {"ProjectionType": "ALL"}}
    d = srv.client.import_table(
        S3BucketSource={"S3Bucket": "repeats", "S3KeyPrefix": "in/"}, InputFormat="DYNAMODB_JSON",
        InputCompressionType="NONE", TableCreationParameters={
            "TableName": target, "BillingMode": "PAY_PER_REQUEST", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
            "GlobalSecondaryIndexes": [gsi]},
    )["ImportTableDescription"]  # fmt: skip
    imp = _ended(srv, "import", d["ImportArn"])
    assert imp["ImportStatus"] == "COMPLETED"
    assert (imp["ProcessedItemCount"], imp["ImportedItemCount"], imp["ErrorCount"]) == (1203, 1202, 1)

    def count(name: str, g: str) -> int:
        return srv.client.query(TableName=name, IndexName="by-g", KeyConditionExpression="g = :g",
                                ExpressionAttributeValues={":g": {"S": g}}, Select="COUNT")["Count"]  # type: ignore[no-any-return]

    assert [count(target, g) for g in ("first", "second", "a", "b")] == [0, 600, 0, 1]
    reference, _ = srv.table(pitr=False, AttributeDefinitions=[
        {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[gsi])  # PutItem of the items the import should have left
    for i in range(600):
        srv.client.put_item(TableName=reference, Item={"pk": {"S": f"k{i:03d}"}, "g": {"S": "second"}})
    srv.client.put_item(TableName=reference, Item={"pk": {"S": "dup"}, "g": {"S": "b"}})
    got, want = (srv.client.describe_table(TableName=n)["Table"] for n in (target, reference))
    assert got["ItemCount"] == want["ItemCount"] == 601
    assert got["TableSizeBytes"] == want["TableSizeBytes"]
    assert got["GlobalSecondaryIndexes"][0]["ItemCount"] == want["GlobalSecondaryIndexes"][0]["ItemCount"] == 601
    assert srv.items(target) == srv.items(reference)


def test_csv_and_zstd(srv: Server) -> None:
    import zstandard

    srv.put("csvs", "in/rows.csv.zst", zstandard.ZstdCompressor().compress(b"a;1;x\nb;2;\n"))
    d = srv.client.import_table(
        S3BucketSource={"S3Bucket": "csvs", "S3KeyPrefix": "in/"}, InputFormat="CSV", InputCompressionType="ZSTD",
        InputFormatOptions={"Csv": {"Delimiter": ";", "HeaderList": ["pk", "sk", "note"]}},
        TableCreationParameters={
            "TableName": f"csv-{next(_names)}", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"}]},
    )["ImportTableDescription"]  # fmt: skip
    assert _ended(srv, "import", d["ImportArn"])["ImportStatus"] == "COMPLETED"
    name = d["TableArn"].rpartition("/")[2]
    items = srv.items(name)
    assert items == [{"pk": {"S": "a"}, "sk": {"N": "1"}, "note": {"S": "x"}}, {"pk": {"S": "b"}, "sk": {"N": "2"}}]
    assert d["InputFormatOptions"]["Csv"]["Delimiter"] == ";"


def test_import_with_a_gsi(srv: Server) -> None:
    name, arn = srv.table()
    _put(srv, name, 4)
    d = _export(srv, arn)
    target = f"gsi-{next(_names)}"
    imp = srv.client.import_table(
        S3BucketSource={"S3Bucket": "exports", "S3KeyPrefix": _base(d) + "/"}, InputFormat="DYNAMODB_JSON",
        InputCompressionType="GZIP", TableCreationParameters={
            "TableName": target, "BillingMode": "PAY_PER_REQUEST", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "tag", "AttributeType": "S"}],
            "GlobalSecondaryIndexes": [{"IndexName": "by-tag", "KeySchema": [{"AttributeName": "tag", "KeyType": "HASH"}],
                                        "Projection": {"ProjectionType": "ALL"}}]},
    )["ImportTableDescription"]  # fmt: skip
    assert _ended(srv, "import", imp["ImportArn"])["ImportStatus"] == "COMPLETED"
    got = srv.client.query(TableName=target, IndexName="by-tag", KeyConditionExpression="tag = :t",
                           ExpressionAttributeValues={":t": {"S": "v1"}})
    assert got["Count"] == 4


def test_import_into_an_existing_table(srv: Server) -> None:
    name, _ = srv.table()
    with pytest.raises(srv.client.exceptions.ResourceInUseException) as e:
        _import(srv, name, "x/")
    assert e.value.response["Error"]["Message"] == f"Table already exists: {name}"


def test_import_client_token(srv: Server) -> None:
    srv.put("tok", "one.json", b'{"Item": {"pk": {"S": "a"}}}\n')
    target = f"tok-{next(_names)}"
    args = {"S3BucketSource": {"S3Bucket": "tok"}, "InputFormat": "DYNAMODB_JSON", "ClientToken": "same",
            "TableCreationParameters": {"TableName": target, "BillingMode": "PAY_PER_REQUEST",
                                        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                                        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}}
    first = srv.client.import_table(**args)["ImportTableDescription"]
    again = srv.client.import_table(**args)["ImportTableDescription"]
    assert first["ImportArn"] == again["ImportArn"]
    with pytest.raises(srv.client.exceptions.ImportConflictException) as e:
        srv.client.import_table(**{**args, "InputFormat": "ION"})
    assert e.value.response["Error"]["Message"] == errors.import_conflict().message


def test_import_from_a_missing_bucket_fails_and_leaves_no_table(srv: Server) -> None:
    target = f"missing-{next(_names)}"
    d = _import(srv, target, "", bucket="no-such-bucket")
    assert d["ImportStatus"] == "FAILED" and d["FailureCode"] == "S3NoSuchBucket"
    assert target not in srv.client.list_tables()["TableNames"]


def test_describe_import_not_found_and_list_imports(srv: Server) -> None:
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/x/import/01234567890123-abcdef01"
    with pytest.raises(srv.client.exceptions.ImportNotFoundException) as e:
        srv.client.describe_import(ImportArn=arn)
    assert e.value.response["Error"]["Message"] == f"Import not found: {arn}"
    listed = srv.client.list_imports(PageSize=1)
    assert len(listed["ImportSummaryList"]) == 1 and "NextToken" in listed
    s = listed["ImportSummaryList"][0]
    assert set(s) >= {"ImportArn", "ImportStatus", "TableArn", "S3BucketSource", "CloudWatchLogGroupArn", "InputFormat"}


def test_in_memory_without_s3_dir_says_how_to_enable() -> None:
    with DynemuServer() as url:
        c = make_client(url)
        with pytest.raises(c.exceptions.ClientError) as e:
            c.describe_export(ExportArn="arn:aws:dynamodb:us-east-1:000000000000:table/x/export/01234567890123-abcdef01")
        assert e.value.response["Error"]["Code"] == "ExportNotFoundException"  # a read needs no place
        with pytest.raises(c.exceptions.ClientError) as e:
            c.export_table_to_point_in_time(TableArn="arn:aws:dynamodb:us-east-1:000000000000:table/x", S3Bucket="bkt")
        assert e.value.response["Error"] == {"Code": "ValidationException", "Message": errors.MSG_NO_S3}


def test_too_many_running_jobs(srv: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    from dynemu.engine.exports import jobs

    _, arn = srv.table()
    srv.advance(31)  # the jobs of earlier tests have ended
    monkeypatch.setattr(jobs, "MAX_EXPORTS", 2)
    monkeypatch.setattr(jobs, "MAX_IMPORTS", 0)
    for _ in range(2):
        srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")
    with pytest.raises(srv.client.exceptions.LimitExceededException) as e:
        srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")
    assert e.value.response["Error"]["Message"] == "Too many concurrent exports: at most 2 may run at once"
    with pytest.raises(srv.client.exceptions.LimitExceededException) as e:
        _import(srv, f"limited-{next(_names)}", "x/")
    assert e.value.response["Error"]["Message"] == "Too many concurrent imports: at most 0 may run at once"
    srv.advance(31)
    srv.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")  # ended ones do not count


def test_incremental_new_image_in_ion(srv: Server) -> None:
    name, arn = srv.table()
    _put(srv, name, 2, "v1")
    srv.advance(10)
    t1 = srv.clock.now()
    srv.client.put_item(TableName=name, Item={"pk": {"S": "k000"}, "tag": {"S": "v2"}})
    srv.client.delete_item(TableName=name, Key={"pk": {"S": "k001"}})
    srv.advance(16 * 60)
    d = _export(srv, arn, ExportType="INCREMENTAL_EXPORT", ExportFormat="ION", IncrementalExportSpecification={
        "ExportFromTime": t1, "ExportToTime": srv.clock.now(), "ExportViewType": "NEW_IMAGE"})
    keys = layout.data_keys(srv.objects, "exports", _base(d) + "/")
    assert len(keys) == 1 and keys[0].endswith(".ion.gz")
    lines = gzip.decompress(srv.get("exports", keys[0])).decode().splitlines()
    assert all(line.startswith("$ion_1_0 {Metadata:{WriteTimestampMicros:") for line in lines)
    got = sorted((codecs.read_ion(line.encode()) for line in lines), key=lambda r: str(r))
    assert got == [(None, {"pk": {"S": "k001"}}), ({"pk": {"S": "k000"}, "tag": {"S": "v2"}}, None)]
    assert all("OldImage" not in line for line in lines)


# --- asynchronous jobs: steps on the event loop, CREATING meanwhile -------------------------------


def test_large_import_runs_in_steps_while_other_requests_are_answered(srv: Server) -> None:
    n = 20_000
    lines = b"".join(b'{"Item":{"pk":{"S":"k%05d"},"n":{"N":"%d"}}}\n' % (i, i) for i in range(n))
    srv.put("big", "in/items.json.gz", gzip.compress(lines, compresslevel=1))
    target = f"big-{next(_names)}"
    d = srv.client.import_table(
        S3BucketSource={"S3Bucket": "big", "S3KeyPrefix": "in/"}, InputFormat="DYNAMODB_JSON",
        InputCompressionType="GZIP", TableCreationParameters={
            "TableName": target, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"},
    )["ImportTableDescription"]  # fmt: skip
    assert d["ImportStatus"] == "IN_PROGRESS"
    arn = d["ImportArn"]
    # answered while the import runs: it has not imported everything yet
    first = srv.client.describe_import(ImportArn=arn)["ImportTableDescription"]
    assert first["ImportStatus"] == "IN_PROGRESS" and first.get("ImportedItemCount", 0) < n
    # the table is CREATING: DescribeTable shows it, the data plane does not find it
    assert srv.client.describe_table(TableName=target)["Table"]["TableStatus"] == "CREATING"
    with pytest.raises(srv.client.exceptions.ResourceNotFoundException) as e:
        srv.client.get_item(TableName=target, Key={"pk": {"S": "k00000"}})
    assert e.value.response["Error"]["Message"] == errors.resource_not_found().message
    with pytest.raises(srv.client.exceptions.ResourceInUseException) as e:
        srv.client.delete_table(TableName=target)
    assert e.value.response["Error"]["Message"] == errors.msg_table_busy("created", target)
    seen = [first.get("ImportedItemCount", 0)]
    for _ in range(10_000):  # the counters grow, step by step, up to every item
        now = srv.client.describe_import(ImportArn=arn)["ImportTableDescription"]
        seen.append(now["ImportedItemCount"] if "ImportedItemCount" in now else 0)
        if seen[-1] == n:
            break
        time.sleep(0.01)
    assert seen == sorted(seen) and seen[-1] == n
    # the work is done, but the job lasts its 30 s of clock time: still IN_PROGRESS, CREATING
    assert now["ImportStatus"] == "IN_PROGRESS" and now["ProcessedItemCount"] == n and now["ErrorCount"] == 0
    assert "EndTime" not in now
    assert srv.client.describe_table(TableName=target)["Table"]["TableStatus"] == "CREATING"
    srv.advance(31)
    done = srv.client.describe_import(ImportArn=arn)["ImportTableDescription"]
    assert done["ImportStatus"] == "COMPLETED" and done["EndTime"] >= done["StartTime"]
    assert srv.client.describe_table(TableName=target)["Table"]["TableStatus"] == "ACTIVE"
    assert srv.client.get_item(TableName=target, Key={"pk": {"S": "k19999"}})["Item"]["n"] == {"N": "19999"}
    assert srv.client.describe_table(TableName=target)["Table"]["ItemCount"] == n


def test_import_that_fails_midway_drops_its_table(srv: Server) -> None:
    good = gzip.compress(b"".join(b'{"Item":{"pk":{"S":"k%05d"}}}\n' % i for i in range(3000)))
    srv.put("torn", "in/items.json.gz", good[: len(good) // 2])  # a gzip stream cut in half
    target = f"torn-{next(_names)}"
    d = _import(srv, target, "in/", bucket="torn")
    assert d["ImportStatus"] == "FAILED" and d["FailureCode"] == "InvalidInput"
    assert target not in srv.client.list_tables()["TableNames"]


def test_export_writes_in_steps(tmp_path: Any) -> None:
    """An export's data files are written a step at a time (the server runs a step per turn
    of its event loop)."""
    out = layout.Written()
    lines = ((b'{"Item":{"pk":{"S":"k%d"}}}\n' % i, 10) for i in range(3 * layout.STEP_LINES))
    steps = sum(1 for _ in layout.write_data(LocalObjects(str(tmp_path)), "b", "x", lines, out))
    assert steps == 3 and out.items == 3 * layout.STEP_LINES and out.size == 30 * layout.STEP_LINES


def test_the_bulk_loads_filter_never_takes_a_key_it_saw_for_new() -> None:
    """``loader._Seen``: the keys a load put, a chunk at a time, exactly up to ``_EXACT``,
    then in a Bloom filter; a key it has seen is never "first" again (its plan must read the
    old image)."""
    from dynemu.engine.exports import loader

    seen = loader._Seen()
    keys = [b"t/\x00\x00\x00\x01k%07d" % i for i in range(3 * loader._EXACT)]
    chunks = [keys[i : i + 500] for i in range(0, len(keys), 500)]
    exact = loader._EXACT // 500
    assert all(all(seen.first(c)) for c in chunks[:exact])  # exact: every new key is new
    assert seen.keys is not None
    for c in chunks[exact:]:
        seen.first(c)
    assert seen.keys is None and len(seen.bits) == loader._SEEN_BITS // 8
    assert not any(any(seen.first(c)) for c in chunks)
    others = [b"other%07d" % i for i in range(10_000)]
    assert sum(seen.first(others)) > 9_900  # few false "maybe"s
    assert not any(seen.first(others))
