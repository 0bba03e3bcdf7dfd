"""From an incident's evidence to a reproduction, with a GSI: known traffic into dynemu (table
writes, some of them carrying the GSI's key, Queries of the GSI, and a GSI whose write
throughput is too low throttling the table's writes), its table and GSI metrics fetched with
boto3's cloudwatch client as the AWS CLI prints them, ``dynemu scenario from-aws``, and
``dynemu replay --report --check`` comparing the table's and the GSI's minutes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dynemu.replay import scenario
from dynemu.replay.cli import main as replay_main
from dynemu.replay.from_aws import main as from_aws
from tests.conftest import make_client
from tests.test_cloudwatch_api import at, cloudwatch
from tests.test_from_aws import cli_json, record_incident, write_padded

TABLE, INDEX = "orders", "by-customer"
METRICS = ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ProvisionedReadCapacityUnits",
           "ProvisionedWriteCapacityUnits", "ReadThrottleEvents", "WriteThrottleEvents")  # fmt: skip


def _drive(url: str, clock: Any) -> tuple[int, int]:
    """Five minutes from a minute boundary: each second 5 new orders with a customer (they enter
    the GSI), 5 without, 4 Queries of the GSI and 2 GetItems; in minutes 1-3, 35 more new orders
    with a customer a second: the GSI's 10 WCU take them from its burst savings, then refuse
    them (the table, at 50 WCU, would take them). Returns (the first minute, the end)."""
    ddb = make_client(url)
    ddb.create_table(
        TableName=TABLE, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
                              {"AttributeName": "customer", "AttributeType": "S"}],
        ProvisionedThroughput={"ReadCapacityUnits": 20, "WriteCapacityUnits": 50},
        GlobalSecondaryIndexes=[{"IndexName": INDEX, "KeySchema": [{"AttributeName": "customer", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"},
                                 "ProvisionedThroughput": {"ReadCapacityUnits": 20, "WriteCapacityUnits": 10}}],
    )  # fmt: skip
    clock.advance(60 - clock.now() % 60)
    m0 = int(clock.now())
    n = 0
    for second in range(300):
        extra = 35 if 60 <= second < 240 else 0
        items = [{"pk": {"S": f"o{n + i}"}, "sk": {"N": "0"}, "customer": {"S": f"c{(n + i) % 997}"}}
                 for i in range(5 + extra)]  # fmt: skip
        items += [{"pk": {"S": f"p{n + i}"}, "sk": {"N": "0"}} for i in range(5)]
        n += 5 + extra
        write_padded(ddb, TABLE, items)
        for q in range(4):
            ddb.query(TableName=TABLE, IndexName=INDEX, KeyConditionExpression="customer = :c",
                      ExpressionAttributeValues={":c": {"S": f"c{(second * 4 + q) % 997}"}})  # fmt: skip
        ddb.batch_get_item(RequestItems={TABLE: {"Keys": [{"pk": {"S": f"p{n - 1 - i}"}, "sk": {"N": "0"}}
                                                          for i in range(2)]}})  # fmt: skip
        clock.advance(1)
    return m0, int(clock.now())


def _evidence(url: str, m0: int, end: int, d: Path) -> None:
    cw = cloudwatch(url)
    queries = []
    for dims in ([{"Name": "TableName", "Value": TABLE}],
                 [{"Name": "TableName", "Value": TABLE}, {"Name": "GlobalSecondaryIndexName", "Value": INDEX}]):  # fmt: skip
        for name in METRICS:
            queries.append({"Id": f"m{len(queries)}", "MetricStat": {
                "Metric": {"Namespace": "AWS/DynamoDB", "MetricName": name, "Dimensions": dims}, "Period": 60,
                "Stat": "Average" if name.startswith("Provisioned") else "Sum"}})  # fmt: skip
    (d / "queries.json").write_text(json.dumps(queries))
    got = cw.get_metric_data(MetricDataQueries=queries, StartTime=at(m0), EndTime=at(end))
    (d / "metrics.json").write_text(cli_json(got))
    (d / "table.json").write_text(cli_json(make_client(url).describe_table(TableName=TABLE)))


def test_round_trip_with_gsi_queries_and_gsi_back_pressure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record_incident(_drive, _evidence, tmp_path)
    results = json.loads((tmp_path / "metrics.json").read_text())["MetricDataResults"]
    gsi_writes = sum(results[len(METRICS) + 1]["Values"])  # the GSI's ConsumedWriteCapacityUnits
    gsi_refused = results[len(METRICS) + 5]["Values"]
    table_refused = results[5]["Values"]
    assert gsi_writes > 0 and sum(gsi_refused) > 0 and not any(table_refused)  # the GSI refused, not the table
    path = tmp_path / "scenario.json"
    code = from_aws(["from-aws", "--table", str(tmp_path / "table.json"), "--metrics", str(tmp_path / "metrics.json"),
                     "--queries", str(tmp_path / "queries.json"), "--out", str(path)])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    built = json.loads(path.read_text())
    ops = [o for p in built["phases"] for o in p["operations"]]
    assert any(o["op"] == "query" and o["index"] == INDEX for o in ops)
    assert any("customer" in o.get("attributes", {}) for o in ops) and any(
        o["op"] == "write" and "attributes" not in o for o in ops[1:])  # some writes reach the GSI, some do not
    notes = [n for n in built["notes"] if n.startswith(f"GSI {INDEX}:")]
    assert len(notes) >= 4 and all(f"  - {n}" in printed for n in notes)
    assert set(built["evidence"]["gsis"]) == {INDEX}
    code = replay_main([str(path), "--report", str(tmp_path / "report"), "--check"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "check passed: consumed within 10 % per minute, the same throttled minutes (the table and each GSI)" in printed
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    g = summary["gsis"][INDEX]
    assert g["max_consumed_error"] <= 0.10 and g["throttle_minutes_agree"]
    assert g["throttle_minutes"]["evidence"] and summary["throttle_minutes"]["evidence"] == []
    assert all(m["evidence"]["consumed_read"] > 0 for m in g["minutes"])  # the queries' units are compared
    html = (tmp_path / "report" / "evidence.html").read_text()
    assert f"<h2>GSI {INDEX}</h2>" in html


def test_the_query_operation_and_gsi_evidence_are_checked() -> None:
    base: dict[str, Any] = {
        "tables": [{"name": "t", "hash": ["pk", "S"], "read": 5, "write": 5,
                    "gsis": [{"name": "g", "hash": ["c", "S"], "read": 5, "write": 5}]}],
        "phases": [{"duration": 2, "operations": [{"table": "t", "op": "query", "index": "g", "rate": 2,
                                                    "keys": {"distribution": "uniform", "keys": 3, "prefix": "v"}}]}],
        "evidence": {"table": "t", "minutes": [], "gsis": {"g": [{"minute": 0, "consumed_read": 1, "consumed_write": 0,
                                                                  "read_throttle_events": 0, "write_throttle_events": 0}]}},
    }  # fmt: skip
    from dynemu.replay import traffic

    sc = scenario.parse(base)
    sent = traffic.PhaseTraffic(sc, 0, sc.phases[0]).second(0, 0.0)
    assert [(r.op, r.index, list(r.key)) for r in sent] == [("query", "g", ["c"])] * 2
    assert traffic.batches(sent) == [("query", [sent[0]]), ("query", [sent[1]])]
    for where, change, message in (
        ("op", {"index": "nope"}, "phases[0].operations[0].index: 'nope' is not a GSI of 't'"),
        ("op", {"op": "read"}, "phases[0].operations[0].index: only a query reads an index"),
        ("op", {"consistent": True},
         "phases[0].operations[0].consistent: Consistent reads are not supported on global secondary indexes"),
        ("ev", {"gsis": {"h": []}}, "scenario.evidence.gsis: 'h' is not a GSI of 't'"),
        ("ev", {"gsis": {"g": [{"minute": 0}]}}, "scenario.evidence.gsis.g[0]: missing 'consumed_read'"),
    ):  # fmt: skip
        bad = json.loads(json.dumps(base))
        (bad["phases"][0]["operations"][0] if where == "op" else bad["evidence"]).update(change)
        with pytest.raises(scenario.ScenarioError) as info:
            scenario.parse(bad)
        assert str(info.value) == message


INCIDENT = Path(__file__).resolve().parent.parent / "examples" / "incidents" / "gsi-back-pressure"


def test_the_hand_written_gsi_incident(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A GSI at 5 WCU refusing its table's writes while the table is at a quarter of its
    throughput, as the AWS CLI would print the evidence: the table's and the GSI's minutes
    reproduced within 10 %, the same throttled minutes; more GSI write throughput removes them."""
    out = tmp_path / "incident.json"
    assert from_aws(["from-aws", "--table", str(INCIDENT / "table.json"), "--metrics", str(INCIDENT / "metrics.json"),
                     "--queries", str(INCIDENT / "queries.json"), "--out", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    code = replay_main([str(out), "--report", str(tmp_path / "r"), "--check", "--variant", "gsi100=gsi:byStatus:write=100"])
    assert code == 0, capsys.readouterr().out
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    g = s["gsis"]["byStatus"]
    assert g["throttle_minutes"] == {"evidence": [2, 3, 4, 5], "reproduction": [2, 3, 4, 5]}
    assert s["throttle_minutes"] == {"evidence": [], "reproduction": []}  # the table refused nothing itself
    assert g["max_consumed_error"] <= 0.10 and s["max_consumed_error"] <= 0.10
    cols = {v["name"]: v for v in json.loads((tmp_path / "r" / "variants.json").read_text())["variants"]}
    assert cols["as-is"]["throttled"] > 0 and cols["as-is"]["throttled_partitions"] == ["tickets / byStatus #0"]
    assert cols["gsi100"]["throttled"] == 0
    assert replay_main([str(out), "--report", str(tmp_path / "again")]) == 0  # the same bytes on every run
    for name in ("summary.json", "evidence.html", "report.html"):
        assert (tmp_path / "r" / name).read_bytes() == (tmp_path / "again" / name).read_bytes()


def _query(qid: str, metric: str, index: str | None, stat: str = "Sum") -> dict[str, Any]:
    dims = [{"Name": "TableName", "Value": "t"}] + ([{"Name": "GlobalSecondaryIndexName", "Value": index}] if index else [])
    return {"Id": qid, "MetricStat": {"Metric": {"Namespace": "AWS/DynamoDB", "MetricName": metric, "Dimensions": dims},
                                      "Period": 60, "Stat": stat}}  # fmt: skip


def test_two_gsis_a_hot_key_and_an_online_index_metric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each GSI's writes a minute are its consumed WCU / its units per entry (the item's 2 KB for
    ALL, 1 for KEYS_ONLY) + its write throttle events; a write reaches the busier GSI first; the
    hot key's writes reach none, and a minute where the GSI wants more writes than the others
    leaves is named; a GSI's throughput change is an UpdateTable of the GSI; OnlineIndex* metrics
    are named, not reproduced."""
    gsi = lambda name, attr, projection: {  # noqa: E731
        "IndexName": name, "KeySchema": [{"AttributeName": attr, "KeyType": "HASH"}],
        "Projection": {"ProjectionType": projection}, "ItemCount": 50,
        "ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 100}}  # fmt: skip
    table = {"Table": {"TableName": "t", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                       "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "a", "b")],
                       "ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 1000},
                       "ItemCount": 1000, "TableSizeBytes": 2_000_000,
                       "GlobalSecondaryIndexes": [gsi("all", "a", "ALL"), gsi("keys", "b", "KEYS_ONLY")]}}  # fmt: skip
    queries = [_query("w", "ConsumedWriteCapacityUnits", None), _query("aw", "ConsumedWriteCapacityUnits", "all"),
               _query("kw", "ConsumedWriteCapacityUnits", "keys"), _query("kr", "ConsumedReadCapacityUnits", "keys"),
               _query("on", "OnlineIndexPercentageProgress", "keys", "Average"),
               _query("kp", "ProvisionedWriteCapacityUnits", "keys", "Average")]  # fmt: skip
    t = ["2026-03-02T14:00:00+00:00", "2026-03-02T14:01:00+00:00"]
    metrics = {"MetricDataResults": [{"Id": q["Id"], "Label": q["Id"], "Timestamps": t, "Values": v}
                                     for q, v in zip(queries, ([1200.0, 1200.0], [240.0, 1200.0], [60.0, 540.0],
                                                               [30.0, 30.0], [50.0, 100.0], [100.0, 400.0]),
                                                               strict=True)]}  # fmt: skip
    report = {"KeyLabels": ["pk"], "Contributors": [{"Keys": ["hot"], "Datapoints": [
        {"Timestamp": t[0], "ApproximateValue": 60.0}, {"Timestamp": t[1], "ApproximateValue": 60.0}]}]}  # fmt: skip
    files = {}
    for name, data in (("table", table), ("queries", queries), ("metrics", metrics), ("hot", report)):
        files[name] = str(tmp_path / f"{name}.json")
        Path(files[name]).write_text(json.dumps(data))
    out = tmp_path / "s.json"
    assert from_aws(["from-aws", "--table", files["table"], "--metrics", files["metrics"], "--queries", files["queries"],
                     "--insights", files["hot"], "--out", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    built = json.loads(out.read_text())
    minutes = built["phases"][2:]

    def per_minute(m: int, test: Any) -> float:
        return sum(sum(o["series"]) * o["series_period"] for o in minutes[m]["operations"] if test(o))

    reaches = lambda attr: lambda o: o["op"] == "write" and attr in o.get("attributes", {})  # noqa: E731
    # 600 table writes a minute (2 KB items: 2 WCU); "all" 240 / 2 = 120 and 600 in minute 1, "keys" 60 and 540
    assert [per_minute(m, reaches("a")) for m in (0, 1)] == pytest.approx([120, 540])  # minute 1: 600 - 60 hot
    assert [per_minute(m, reaches("b")) for m in (0, 1)] == pytest.approx([60, 540])
    assert [per_minute(m, lambda o: o["op"] == "write") for m in (0, 1)] == pytest.approx([600, 600])
    plain = [o for o in minutes[1]["operations"] if o["op"] == "write" and "attributes" not in o]
    assert plain[0]["keys"]["weights"] == {"hot": 1.0}  # the hot key's 60 writes are all that reach no GSI
    assert per_minute(0, lambda o: o.get("index") == "keys") == pytest.approx(60)  # 30 RCU / 0.5
    notes = built["notes"]
    assert "GSI all: in minutes [1] the GSI's writes are more than the table's writes besides the hot keys': its " \
           "write consumption there is short in the reproduction" in notes
    assert any("OnlineIndexPercentageProgress of GSI 'keys' (an index being built) is not reproduced" in n for n in notes)
    assert minutes[1]["update"] == [{"table": "t", "index": "keys", "read": 100, "write": 400}]  # its throughput changed
    assert set(built["evidence"]["gsis"]) == {"all", "keys"}
    assert [m["consumed_write"] for m in built["evidence"]["gsis"]["all"]] == [240.0, 1200.0]
