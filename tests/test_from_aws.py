"""From an incident's evidence to a reproduction: the round trip (known traffic with a hot key
into dynemu, its metrics and insight reports fetched with boto3's cloudwatch client and written
as the AWS CLI prints them, ``dynemu scenario from-aws``, ``dynemu replay --report --check``),
and ``from-aws``'s errors (one line naming the file and the field, exit 2)."""

from __future__ import annotations

import json
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
METRICS = ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ProvisionedReadCapacityUnits",
           "ProvisionedWriteCapacityUnits", "ReadThrottleEvents", "WriteThrottleEvents")  # fmt: skip


def cli_json(value: Any) -> str:
    """What the AWS CLI prints for a response: JSON, timestamps in ISO 8601."""

    def default(v: Any) -> Any:
        if isinstance(v, datetime):
            return v.astimezone(UTC).isoformat()
        raise TypeError(v)

    value = {k: v for k, v in value.items() if k != "ResponseMetadata"}
    return json.dumps(value, default=default, indent=4)


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
        for i in range(0, len(items), 25):
            puts = [{"PutRequest": {"Item": {**it, "pad": {"S": "x" * 300}}}} for it in items[i : i + 25]]
            try:  # refused items come back unprocessed, or the whole batch is refused: not retried
                ddb.batch_write_item(RequestItems={TABLE: puts})
            except ddb.exceptions.ProvisionedThroughputExceededException:
                pass
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
    server = DynemuServer(clock="virtual", throttling=True)
    url = server.start()
    try:
        m0, end = _drive(url, server.app[NAMESPACES].clock)
        _evidence(url, m0, end, tmp_path)
    finally:
        server.stop()
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
    assert "hot" in summary["throttled_keys"]["reproduction"]
