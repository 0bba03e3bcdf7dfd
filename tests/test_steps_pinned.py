"""Work that runs in steps on the event loop (engine/steps.py: an import, an export, an index's
backfill) keeps its namespace open: with ``--max-open-namespaces 1``, requests in another
region meanwhile pass the bound instead of evicting it (evicted, its store closed under the
work: the import FAILED, the backfill stopped), and once the work ends the next open evicts
it again."""

from __future__ import annotations

import gzip
import time
from pathlib import Path
from typing import Any

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.conftest import make_client

KEY = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}
ITEMS = 20_000  # about 40 steps of the import
# 20 steps of the backfill: a request answered while steps run waits for the step under way
# (the answers of a turn are written at its end, http.Outbox), so each of the test's requests
# spans about two steps
BACKFILLED = 20_000


def _interleave(server: DynemuServer, name: str, other: Any, ended: Any) -> list[bool]:
    """Requests in ``other``'s region until ``ended()``; for each, whether namespace ``name``
    had work running in steps right after it was answered (the namespace object is kept while
    open: evicted, it is gone from ``databases``)."""
    namespaces = server.app[NAMESPACES]
    working = namespaces.databases[name]
    seen = []
    deadline = time.monotonic() + 120
    while not ended():
        assert time.monotonic() < deadline, "the work never ended"
        other.list_tables()
        db = namespaces.databases.get(name)
        seen.append(db is not None and db.steps_running > 0)
    assert namespaces.databases.get(name) is working  # never evicted (and opened again) meanwhile
    return seen


def test_an_import_keeps_its_namespace_open_until_it_ends(tmp_path: Path) -> None:
    s3 = tmp_path / "s3" / "bkt" / "in"
    s3.mkdir(parents=True)
    with gzip.open(s3 / "a.json.gz", "wb", compresslevel=1) as f:
        f.write(b"".join(b'{"Item":{"pk":{"S":"k%d"},"v":{"S":"%s"}}}\n' % (i, b"x" * 100) for i in range(ITEMS)))
    server = DynemuServer(data_dir=str(tmp_path / "data"), s3_dir=str(tmp_path / "s3"), max_open_namespaces=1,
                          import_export_seconds=0)  # fmt: skip
    url = server.start()
    try:
        a, b = make_client(url, region="region-a"), make_client(url, region="region-b")
        b.list_tables()
        arn = a.import_table(
            S3BucketSource={"S3Bucket": "bkt", "S3KeyPrefix": "in/"}, InputFormat="DYNAMODB_JSON",
            InputCompressionType="GZIP", TableCreationParameters={
                "TableName": "imported", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], **KEY},
        )["ImportTableDescription"]["ImportArn"]  # fmt: skip
        name = next(n for n in server.app[NAMESPACES].databases if "region-a" in n)

        def ended() -> bool:
            return a.describe_import(ImportArn=arn)["ImportTableDescription"]["ImportStatus"] != "IN_PROGRESS"

        seen = _interleave(server, name, b, ended)
        assert any(seen), "no request came between two steps: the test checked nothing"
        d = a.describe_import(ImportArn=arn)["ImportTableDescription"]
        assert (d["ImportStatus"], d["ImportedItemCount"], d["ErrorCount"]) == ("COMPLETED", ITEMS, 0)
        assert a.describe_table(TableName="imported")["Table"]["ItemCount"] == ITEMS
        make_client(url, region="region-c").list_tables()  # an open: the import over, region-a is evicted
        assert name not in server.app[NAMESPACES].databases
    finally:
        server.stop()


def test_a_backfill_keeps_its_namespace_open_until_it_ends(tmp_path: Path) -> None:
    server = DynemuServer(data_dir=str(tmp_path / "data"), max_open_namespaces=1)
    url = server.start()
    try:
        a, b = make_client(url, region="region-a"), make_client(url, region="region-b")
        a.create_table(TableName="tab", AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], **KEY)
        for start in range(0, BACKFILLED, 25):  # BACKFILLED / 1,000 steps (indexes.BACKFILL_STEP)
            batch = {"tab": [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "g": {"S": f"g{i % 3}"}}}}
                             for i in range(start, start + 25)]}  # fmt: skip
            while batch:  # a new on-demand table's throughput: what it leaves unprocessed is sent again
                batch = a.batch_write_item(RequestItems=batch)["UnprocessedItems"]
        a.update_table(TableName="tab", AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
                       GlobalSecondaryIndexUpdates=[{"Create": {
                           "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                           "Projection": {"ProjectionType": "KEYS_ONLY"}}}])  # fmt: skip
        name = next(n for n in server.app[NAMESPACES].databases if "region-a" in n)

        def ended() -> bool:
            gsi = a.describe_table(TableName="tab")["Table"]["GlobalSecondaryIndexes"][0]
            return gsi["IndexStatus"] == "ACTIVE" and not gsi.get("Backfilling", False)

        seen = _interleave(server, name, b, ended)
        assert any(seen), "no request came between two steps: the test checked nothing"
        counts = [a.query(TableName="tab", IndexName="by-g", KeyConditionExpression="g = :g",
                          ExpressionAttributeValues={":g": {"S": f"g{n}"}}, Select="COUNT")["Count"] for n in range(3)]
        assert counts == [BACKFILLED // 3 + (n < BACKFILLED % 3) for n in range(3)]
    finally:
        server.stop()
