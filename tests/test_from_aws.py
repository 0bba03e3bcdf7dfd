"""From an incident's evidence to a reproduction: the round trip (known traffic with a hot key
into dynemu, its metrics and insight reports fetched with boto3's cloudwatch client and written
as the AWS CLI prints them, ``dynemu scenario from-aws``, ``dynemu replay --report --check``),
and ``from-aws``'s errors (one line naming the file and the field, exit 2)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dynemu.api.admin.app import NAMESPACES
from dynemu.replay.cli import main as replay_main
from dynemu.replay.from_aws import main as from_aws
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.test_cloudwatch_api import at, cloudwatch

TABLE = "orders"
REASONS = tuple(f"{kind}{limit}ThrottleEvents" for kind in ("Read", "Write")
                for limit in ("KeyRangeThroughput", "ProvisionedThroughput", "MaxOnDemandThroughput", "AccountLimit"))
METRICS = ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ProvisionedReadCapacityUnits",
           "ProvisionedWriteCapacityUnits", "ReadThrottleEvents", "WriteThrottleEvents", *REASONS)  # fmt: skip


def cli_json(value: Any) -> str:
    """What the AWS CLI prints for a response: JSON, timestamps in ISO 8601."""

    def default(v: Any) -> Any:
        if isinstance(v, datetime):
            return v.astimezone(UTC).isoformat()
        raise TypeError(v)

    value = {k: v for k, v in value.items() if k != "ResponseMetadata"}
    return json.dumps(value, default=default, indent=4)


def record_incident(drive: Callable[[str, Any], tuple[int, int]], evidence: Callable[[str, int, int, Path], None],
                    d: Path) -> None:  # fmt: skip
    """Run ``drive`` (url, clock -> the first minute, the end) on a server with a virtual clock,
    then write its evidence into ``d`` with ``evidence``, as the AWS CLI would have."""
    server = DynemuServer(clock="virtual", throttling=True)
    url = server.start()
    try:
        m0, end = drive(url, server.app[NAMESPACES].clock)
        evidence(url, m0, end, d)
    finally:
        server.stop()


def write_padded(ddb: Any, table: str, items: list[dict[str, Any]]) -> None:
    """``items`` with 300 bytes of padding each, in batches of 25; what is refused (items come
    back unprocessed, or the whole batch is refused) is not sent again, as in the incident."""
    for i in range(0, len(items), 25):
        puts = [{"PutRequest": {"Item": {**it, "pad": {"S": "x" * 300}}}} for it in items[i : i + 25]]
        try:
            ddb.batch_write_item(RequestItems={table: puts})
        except ddb.exceptions.ProvisionedThroughputExceededException:
            pass


def _drive(url: str, clock: Any) -> tuple[int, int]:
    """Five minutes from a minute boundary: 5 items a second on uniform keys and 4 reads, then
    for three minutes 40 more a second on one partition key ("hot"), over the table's
    throughput. Returns (the first minute, the end)."""
    ddb = make_client(url)
    ddb.create_table(
        TableName=TABLE, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
        ProvisionedThroughput={"ReadCapacityUnits": 20, "WriteCapacityUnits": 10},
    )  # fmt: skip
    ddb.update_contributor_insights(TableName=TABLE, ContributorInsightsAction="ENABLE")
    clock.advance(60 - clock.now() % 60)
    m0 = int(clock.now())
    n = 0
    for second in range(300):
        items = [{"pk": {"S": f"u{n + i}"}, "sk": {"N": "0"}} for i in range(5)]
        n += 5
        if 60 <= second < 240:
            items += [{"pk": {"S": "hot"}, "sk": {"N": str(second * 100 + i)}} for i in range(40)]
        write_padded(ddb, TABLE, items)
        keys = [{"pk": {"S": f"u{n - 1 - i}"}, "sk": {"N": "0"}} for i in range(4)]
        try:
            ddb.batch_get_item(RequestItems={TABLE: {"Keys": keys}})
        except ddb.exceptions.ProvisionedThroughputExceededException:
            pass
        clock.advance(1)
    return m0, int(clock.now())


def _evidence(url: str, m0: int, end: int, d: Path) -> None:
    cw = cloudwatch(url)
    queries = [
        {"Id": f"m{i}", "MetricStat": {"Metric": {"Namespace": "AWS/DynamoDB", "MetricName": name,
         "Dimensions": [{"Name": "TableName", "Value": TABLE}]}, "Period": 60,
         "Stat": "Average" if name.startswith("Provisioned") else "Sum"}}
        for i, name in enumerate(METRICS)
    ]  # fmt: skip
    (d / "queries.json").write_text(json.dumps(queries))
    got = cw.get_metric_data(MetricDataQueries=queries, StartTime=at(m0), EndTime=at(end))
    (d / "metrics.json").write_text(cli_json(got))
    (d / "table.json").write_text(cli_json(make_client(url).describe_table(TableName=TABLE)))
    rules = {r["Name"].split("-")[1]: r["Name"] for r in cw.describe_insight_rules()["InsightRules"]}
    for kind, file in (("PKC", "accessed.json"), ("PKT", "throttled.json")):
        report = cw.get_insight_rule_report(RuleName=rules[kind], StartTime=at(m0), EndTime=at(end), Period=60,
                                            MaxContributorCount=10)  # fmt: skip
        (d / file).write_text(cli_json(report))


def test_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record_incident(_drive, _evidence, tmp_path)
    scenario = tmp_path / "scenario.json"
    code = from_aws(["from-aws", "--table", str(tmp_path / "table.json"), "--metrics", str(tmp_path / "metrics.json"),
                     "--queries", str(tmp_path / "queries.json"), "--insights", str(tmp_path / "accessed.json"),
                     "--throttled-insights", str(tmp_path / "throttled.json"), "--out", str(scenario)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    built = json.loads(scenario.read_text())
    assert built["tables"][0]["write"] == 10 and built["notes"]
    code = replay_main([str(scenario), "--report", str(tmp_path / "report"), "--check"])
    printed = capsys.readouterr().out
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert code == 0, printed
    assert summary["throttle_minutes"]["evidence"] and summary["throttle_minutes_agree"]
    assert summary["max_consumed_error"] <= 0.10
    keys = summary["throttled_keys"]
    assert set(keys["reproduction"]) == set(keys["evidence"]) == {str(m) for m in summary["throttle_minutes"]["evidence"]}
    assert all("hot" in keys["reproduction"][m] and "hot" in keys["evidence"][m] for m in keys["evidence"])
    # the reasons: a table of 10 WCU written at 45 items a second is short of throughput, on
    # both sides; every reason metric the evidence had is set beside the reproduction's
    reasons = summary["throttle_reasons"]
    assert set(reasons["evidence"]) == set(reasons["reproduction"]) == set(REASONS)
    for side in ("evidence", "reproduction"):
        assert {name for name, n in reasons[side].items() if n} == {"WriteProvisionedThroughputThrottleEvents"}
    assert reasons["evidence"]["WriteProvisionedThroughputThrottleEvents"] == sum(
        row["evidence"]["write_throttle_events"] for row in summary["minutes"])
    assert "throttle events by reason, production / reproduction: " in printed


# --- errors: one line naming the file and the field, exit 2 ------------------------------------------------


TABLE_JSON = {"Table": {"TableName": TABLE, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                        "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
                        "ItemCount": 10, "TableSizeBytes": 1000}}  # fmt: skip
T0 = "2026-03-02T14:00:00+00:00"


def _files(d: Path, **files: Any) -> dict[str, str]:
    out = {}
    for name, content in files.items():
        path = d / f"{name}.json"
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        out[name] = str(path)
    return out


def _metric(label: str, times: list[str], values: list[float], qid: str = "m0") -> dict[str, Any]:
    return {"Id": qid, "Label": label, "Timestamps": times, "Values": values, "StatusCode": "Complete"}


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = from_aws(["from-aws", *args])
    err = capsys.readouterr().err
    return code, err


def test_errors_name_the_file_and_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = {"MetricDataResults": [_metric("ConsumedWriteCapacityUnits", [T0], [60.0])]}
    f = _files(tmp_path, table=TABLE_JSON, metrics=good, notjson="{", five_min={"MetricDataResults": [
        _metric("ConsumedWriteCapacityUnits", [T0, "2026-03-02T14:05:00+00:00"], [1.0, 2.0])]},
        other=[{"Id": "m0", "MetricStat": {"Metric": {"Namespace": "AWS/DynamoDB", "MetricName":
                "ConsumedWriteCapacityUnits", "Dimensions": [{"Name": "TableName", "Value": "payments"}]},
                "Period": 60, "Stat": "Sum"}}],
        label={"MetricDataResults": [_metric("cwu", [T0], [1.0])]})  # fmt: skip
    out = str(tmp_path / "s.json")
    cases = [
        (["--table", str(tmp_path / "missing.json"), "--metrics", f["metrics"]],
         f"dynemu scenario from-aws: {tmp_path / 'missing.json'}: no such file (describe-table output)\n"),
        (["--table", f["metrics"], "--metrics", f["metrics"]],
         f"dynemu scenario from-aws: {f['metrics']}: Table: missing: this is get-metric-data output, "
         "not describe-table's\n"),
        (["--table", f["table"], "--metrics", f["table"]],
         f"dynemu scenario from-aws: {f['table']}: MetricDataResults: missing: this is describe-table output, "
         "not get-metric-data's\n"),
        (["--table", f["table"], "--metrics", f["notjson"]],
         f"dynemu scenario from-aws: {f['notjson']}: not valid JSON (unexpected end of data: line 1 column 2 "
         "(char 1))\n"),
        (["--table", f["table"], "--metrics", f["metrics"], "--queries", f["other"]],
         f"dynemu scenario from-aws: {f['other']}: [0]: Dimensions: metrics of table 'payments', not of "
         f"'{TABLE}' (the --table file's)\n"),
        (["--table", f["table"], "--metrics", f["five_min"]],
         f"dynemu scenario from-aws: {f['five_min']}: MetricDataResults[0]: a period of 300 s cannot be used: "
         "give the metrics at 60 s or finer (1, 5, 10, 20, 30, 60 s)\n"),
        (["--table", f["table"], "--metrics", f["label"]],
         f"dynemu scenario from-aws: {f['label']}: MetricDataResults[0].Label: 'cwu' names no AWS/DynamoDB "
         "metric: give the --metric-data-queries file with --queries, or label each query with its metric\n"),
        (["--table", f["table"], "--metrics", f["metrics"], "--insights", f["metrics"]],
         f"dynemu scenario from-aws: {f['metrics']}: Contributors: missing: this is get-metric-data output, "
         "not get-insight-rule-report's\n"),
    ]  # fmt: skip
    for args, message in cases:
        assert _run(capsys, *args, "--out", out) == (2, message)
    assert not Path(out).exists()


def test_get_metric_statistics_output_and_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stats = {"Label": "ConsumedWriteCapacityUnits", "Datapoints": [
        {"Timestamp": "2026-03-02T14:01:00+00:00", "Sum": 120.0, "Unit": "Count"},
        {"Timestamp": T0, "Sum": 60.0, "Unit": "Count"}]}  # fmt: skip
    f = _files(tmp_path, table=TABLE_JSON, stats=stats)
    out = tmp_path / "s.json"
    assert from_aws(["from-aws", "--table", f["table"], "--metrics", f["stats"], "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    built = json.loads(out.read_text())
    preload, settle, *minutes = built["phases"]
    assert (preload["name"], settle["name"]) == ("preload (before the evidence)", "settle (before the evidence)")
    assert preload["operations"][0]["keys"] == {"distribution": "sequential", "keys": 10}  # ItemCount 10
    assert built["evidence"]["offset"] == preload["duration"] + settle["duration"] == 5 + 355  # 2 items a second; minute 0 on a clock minute
    assert [p["operations"][0]["series"] for p in minutes] == [[1.0], [2.0]]  # 100-byte items: 1 WCU
    assert [m["consumed_write"] for m in built["evidence"]["minutes"]] == [60.0, 120.0]
    assert built["notes"] and all(f"  - {n}" in printed for n in built["notes"])
    assert "item size: 100 bytes (TableSizeBytes / ItemCount), every item the same size" in built["notes"]


def test_check_fails_and_says_which_minutes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Evidence the reproduction cannot match (a throttle event on an idle table) fails --check."""
    metrics = {"MetricDataResults": [
        _metric("ConsumedWriteCapacityUnits", [T0, "2026-03-02T14:01:00+00:00"], [60.0, 60.0]),
        _metric("WriteThrottleEvents", ["2026-03-02T14:01:00+00:00"], [5.0], "m1")]}  # fmt: skip
    f = _files(tmp_path, table=TABLE_JSON, metrics=metrics)
    scenario = tmp_path / "s.json"
    assert from_aws(["from-aws", "--table", f["table"], "--metrics", f["metrics"], "--out", str(scenario)]) == 0
    built = json.loads(scenario.read_text())
    built["evidence"]["minutes"][0]["consumed_write"] = 80.0  # the reproduction will send 60
    built["evidence"]["throttle_reasons"] = {"WriteKeyRangeThroughputThrottleEvents": 5.0,
                                             "WriteProvisionedThroughputThrottleEvents": 0.0}  # a hot partition
    scenario.write_text(json.dumps(built))
    code = replay_main([str(scenario), "--report", str(tmp_path / "r"), "--check"])
    printed = capsys.readouterr().out
    assert code == 1
    assert "check failed: consumed units off by 25.0% (over 10%) in minutes [0]" in printed
    assert "check failed: throttled minutes differ: only in production [1], only in the reproduction []" in printed
    assert ("check failed: throttle reasons differ: production ['WriteKeyRangeThroughputThrottleEvents'], "
            "reproduction none") in printed  # fmt: skip
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["max_consumed_error"] == 0.25 and summary["throttle_minutes_agree"] is False


def test_the_scenario_fields_evidence_needs() -> None:
    """series, weighted keys, warm throughput, notes and evidence: parsed and checked."""
    from dynemu.replay import scenario, traffic

    base: dict[str, Any] = {
        "tables": [{"name": "tbl", "hash": ["pk", "S"], "read": 5, "write": 5, "warm": {"read": 100, "write": 50}}],
        "phases": [{"duration": 4, "operations": [{"table": "tbl", "op": "write", "series": [1, 3], "series_period": 2,
                    "keys": {"distribution": "weighted", "keys": 5, "weights": {"hot": 1.0}}}]}],
        "notes": ["an assumption"],
        "evidence": {"table": "tbl", "period": 60, "minutes": [{"minute": 0, "consumed_read": 0, "consumed_write": 8,
                     "read_throttle_events": 0, "write_throttle_events": 0}]},
    }  # fmt: skip
    sc = scenario.parse(base)
    assert sc.tables[0].warm == (100, 50) and sc.notes == ["an assumption"]
    phase = traffic.PhaseTraffic(sc, 0, sc.phases[0])
    sent = [phase.second(i, 0.0) for i in range(4)]
    assert [len(s) for s in sent] == [1, 1, 3, 3]
    assert {r.key["pk"]["S"] for s in sent for r in s} == {"hot"}
    for change, message in (
        ({"weights": {"hot": 0.7, "warm": 0.6}}, "phases[0].operations[0].keys.weights: the shares add up to more than 1"),
        ({"weights": {"hot": -1}}, "phases[0].operations[0].keys.weights: expected {key: share} with shares >= 0"),
    ):  # fmt: skip
        bad = json.loads(json.dumps(base))
        bad["phases"][0]["operations"][0]["keys"].update(change)
        with pytest.raises(scenario.ScenarioError) as info:
            scenario.parse(bad)
        assert str(info.value) == message
    bad = json.loads(json.dumps(base))
    bad["evidence"]["minutes"][0].pop("consumed_write")
    with pytest.raises(scenario.ScenarioError) as info:
        scenario.parse(bad)
    assert str(info.value) == "scenario.evidence.minutes[0]: missing 'consumed_write'"
    bad = json.loads(json.dumps(base))
    bad["evidence"]["throttle_reasons"] = {"WriteHotKeyThrottleEvents": 3}
    with pytest.raises(scenario.ScenarioError) as info:
        scenario.parse(bad)
    assert str(info.value) == "scenario.evidence.throttle_reasons: 'WriteHotKeyThrottleEvents' is not a throttle metric by reason"
    good = json.loads(json.dumps(base))
    good["evidence"]["throttle_reasons"] = {"ReadKeyRangeThroughputThrottleEvents": 3}
    assert scenario.parse(good).evidence["throttle_reasons"] == {"ReadKeyRangeThroughputThrottleEvents": 3}


def test_throughput_changes_become_updates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t1 = "2026-03-02T14:01:00+00:00"
    metrics = {"MetricDataResults": [
        _metric("ConsumedWriteCapacityUnits", [t1, T0], [60.0, 60.0]),
        _metric("ProvisionedWriteCapacityUnits", [t1, T0], [50.0, 5.0], "m1"),
        _metric("ProvisionedReadCapacityUnits", [t1, T0], [5.0, 5.0], "m2")]}  # fmt: skip
    gsi_query = [{"Id": "m0", "MetricStat": {"Metric": {"Namespace": "AWS/DynamoDB", "MetricName":
                  "ConsumedWriteCapacityUnits", "Dimensions": [{"Name": "TableName", "Value": TABLE},
                  {"Name": "GlobalSecondaryIndexName", "Value": "by-x"}]}, "Period": 60, "Stat": "Sum"}}]  # fmt: skip
    f = _files(tmp_path, table=TABLE_JSON, metrics=metrics, gsi=gsi_query)
    out = tmp_path / "s.json"
    assert from_aws(["from-aws", "--table", f["table"], "--metrics", f["metrics"], "--out", str(out)]) == 0
    built = json.loads(out.read_text())
    assert (built["tables"][0]["read"], built["tables"][0]["write"]) == (5, 5)  # minute 0's
    minutes = built["phases"][2:]
    assert "update" not in minutes[0]
    assert minutes[1]["update"] == [{"table": TABLE, "read": 5, "write": 50}]
    code, err = _run(capsys, "--table", f["table"], "--metrics", f["metrics"], "--queries", f["gsi"],
                     "--out", str(out))  # fmt: skip
    assert (code, err) == (2, f"dynemu scenario from-aws: {f['metrics']}: MetricDataResults[0]: "
                              f"GlobalSecondaryIndexName: 'by-x' is not a GSI of '{TABLE}'\n")  # fmt: skip


def test_item_size_from_an_items_file_or_an_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import gzip

    metrics = {"MetricDataResults": [_metric("ConsumedWriteCapacityUnits", [T0], [60.0])]}
    f = _files(tmp_path, table=TABLE_JSON, metrics=metrics)
    lines = [{"Item": {"pk": {"S": "a" * 98}}}, {"Item": {"pk": {"S": "b" * 298}}}]  # 100 and 300 bytes
    (tmp_path / "items.json").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    export = tmp_path / "export" / "data"
    export.mkdir(parents=True)
    with gzip.open(export / "part-0001.json.gz", "wt") as fh:
        fh.write("\n".join(json.dumps(x) for x in lines) + "\n")
    for given in (tmp_path / "items.json", tmp_path / "export"):
        out = tmp_path / "s.json"
        assert from_aws(["from-aws", "--table", f["table"], "--metrics", f["metrics"], "--items", str(given),
                         "--out", str(out)]) == 0  # fmt: skip
        built = json.loads(out.read_text())
        assert f"item size: 200 bytes, the average of 2 items of {given}" in built["notes"]
        assert built["phases"][2]["operations"][0]["item_size"] == 200
    (tmp_path / "bad.json").write_text("{not json\n")
    code, err = _run(capsys, "--table", f["table"], "--metrics", f["metrics"], "--items", str(tmp_path / "bad.json"),
                     "--out", str(tmp_path / "s.json"))  # fmt: skip
    assert (code, err) == (2, f"dynemu scenario from-aws: {tmp_path / 'bad.json'}: line 1: not a DynamoDB JSON item\n")
