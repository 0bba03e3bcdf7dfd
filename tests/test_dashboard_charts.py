"""The charts and figures beside them say what the model does: tick labels, round time
ticks, labelled markers, colour scales, burst as the model keeps it, gac's limits, and a
table's writes refused by its GSI."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynemu.api.admin import charts, dashboard_html
from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.conftest import make_client


def _hist(n: int, **extra: Any) -> list[dict[str, Any]]:
    base = {"read": 0.0, "write": 5.0, "alloc_read": 1.0, "alloc_write": 10.0, "burst_read": 0.0,
            "burst_write": 120000.0, "burst_low_read": 0.0, "burst_low_write": 120000.0, "partitions": 1,
            "throttles": {}, "parts": {"": [0.0, 5.0, 0]}}
    return [{**base, **extra, "t": t} for t in range(n)]


def _part(**extra: Any) -> dict[str, Any]:
    row = {"index": 0, "start": "", "end": None, "item_count": 0, "size_bytes": 0, "allocated_read": 100.0,
           "allocated_write": 2.5, "max_read": 3000.0, "max_write": 400.0, "ceiling_read": 3000.0,
           "ceiling_write": 1000.0, "consumed_read_per_second": 0.0, "consumed_write_per_second": 150.0,
           "bucket_read": 0.0, "bucket_write": 2.5, "burst_read": 0.0, "burst_write": 0.0, "throttles": {}}
    return {**row, **extra}


def _view(model: str, mode: str = "PROVISIONED", **extra: Any) -> dict[str, Any]:
    return {"label": "t", "anchor": "table", "summary": {"model": model, "mode": mode, "throttles": {}},
            "partitions": [_part()], "hot_keys": {}, "history": _hist(30), "splits": [],
            "x_range": (0, 30), "x_label": str, "origin": 0, **extra}


def test_y_ticks_keep_two_decimals() -> None:
    svg = charts.line_chart("t", [("a", "#000", [(0, 0.0), (1, 0.95)])], (0, 1), str)
    labels = re.findall(r'class="ylab">([^<]*)<', svg)
    assert labels == ["0", "0.25", "0.5", "0.75", "1"]


def test_time_ticks_fall_on_round_times() -> None:
    assert charts.time_ticks(0, 390, 0) == [0, 60, 120, 180, 240, 300, 360]  # not 78 s apart
    assert charts.time_ticks(0, 30, 0) == [0, 5, 10, 15, 20, 25, 30]
    assert charts.time_ticks(1000, 1300, 1300) == [1000, 1060, 1120, 1180, 1240, 1300]  # back from "now"


def test_markers_are_labelled_below_the_legend() -> None:
    svg = charts.line_chart("t", [("consumed WCU", "#000", [(0, 1.0), (60, 1.0)])], (0, 60), str,
                            markers=[(30, "phase: second spike")])
    legend_y = float(re.search(r'class="legend"[^>]*>consumed WCU', svg) and re.search(r'<text x="[\d.]+" y="([\d.]+)" class="legend"', svg).group(1))  # type: ignore[union-attr]
    marker_top = float(re.search(r'y1="([\d.]+)"[^>]*class="marker"', svg).group(1))  # type: ignore[union-attr]
    assert legend_y < marker_top  # the marker line starts below the legend
    assert 'class="mlab">second spike</text>' in svg


def test_heat_strips_have_a_colour_scale() -> None:
    svg = charts.heat_strip("throttles", [("#0", {0: 4.0, 1: 2.0})], (0, 10), str, unit=" throttles")
    assert "4 throttles per s" in svg


def test_charts_scale_with_the_window() -> None:
    svg = charts.line_chart("t", [], (0, 1), str)
    assert 'viewBox="0 0 660 210"' in svg and ' width="660"' not in svg
    css = dashboard_html.static_text("dashboard.css")
    assert "grid-template-columns: repeat(auto-fill" in css


def test_burst_chart_shows_what_the_model_keeps() -> None:
    gac = dashboard_html.resource_section(_view("gac"))
    assert "write (table bucket)" in gac and "lowest partition" not in gac
    uniform = dashboard_html.resource_section(_view("uniform"))
    assert "the uniform model keeps no burst" in uniform
    burst = dashboard_html.resource_section(_view("burst"))
    assert "write (lowest partition)" in burst


def test_gac_partition_columns_say_what_limits_them() -> None:
    html = dashboard_html.resource_section(_view("gac"))
    assert "may use RCU/WCU per s (ceiling, table rate)" in html and "allocated RCU/WCU per s" not in html
    assert "Under gac a partition has no share of its own" in html
    assert "<td>3,000 / 400</td>" in html  # what partition 0 may use: its ceiling, the table's rate
    shares = dashboard_html.resource_section(_view("burst"))
    assert "<td>100 / 2.5</td>" in shares and "<td>0 / 2.5</td>" in shares  # balance as exact as allocation


@pytest.fixture(scope="module")
def gsi_throttled() -> Iterator[str]:
    server = DynemuServer(clock="virtual")
    url = server.start()
    try:
        ddb = make_client(url)
        ddb.create_table(
            TableName="ch_gsi",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "g", "AttributeType": "S"}],
            ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 500},
            GlobalSecondaryIndexes=[{
                "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
            }],
        )
        for i in range(600):
            try:
                ddb.put_item(TableName="ch_gsi", Item={"pk": {"S": f"p{i}"}, "g": {"S": f"g{i % 3}"}})
            except ClientError:
                pass
        server.app[NAMESPACES].clock.advance(60)  # a complete minute for CloudWatch's chart
        yield url
    finally:
        server.stop()


def test_table_section_counts_writes_refused_by_its_index(gsi_throttled: str) -> None:
    with urllib.request.urlopen(gsi_throttled + "/_dynemu/tables/ch_gsi", timeout=30) as r:
        body = r.read().decode()
    table = body[body.index('id="table"') : body.index('id="index-byG"')]
    assert 'IndexWriteProvisionedThroughputExceeded (refused by <a href="#index-byG">index byG</a>)' in table
    assert "table bucket" in table  # the default model is gac: its bucket, not a partition's burst
    # CloudWatch per minute: the table's ThrottledRequests count the writes its index refused
    assert "CloudWatch per minute (Sum, complete minutes)" in table and "<title>ThrottledRequests</title>" in table
    index = body[body.index('id="index-byG"') :]
    assert "<title>WriteThrottleEvents</title>" in index and "ThrottledRequests" not in index


def test_cloudwatch_counts_per_minute() -> None:
    from dynemu.api.admin import cloudwatch_view

    hist = [{"t": 120 + s, "read": 1.0, "write": 2.0, "throttles": {"TableWriteKeyRangeThroughputExceeded": 1}}
            for s in range(90)]
    assert cloudwatch_view.per_minute(hist) == {120: [60.0, 120.0, 0.0, 60.0], 180: [30.0, 60.0, 0.0, 30.0]}
    # ThrottledRequests: the requests the executors counted as refused as a whole, per minute
    table = [{"t": 150, "read": 0.0, "write": 0.0, "throttles": {"IndexWriteProvisionedThroughputExceeded": 4},
              "throttled_requests": 3}, {"t": 185, "throttled_requests": 1}, {"t": 190, "throttled_requests": 0}]
    assert cloudwatch_view.throttled_requests(table) == {120: 3, 180: 1}
    assert cloudwatch_view.throttled_requests(table, base=30) == {150: 4}


def test_close_marker_labels_are_moved_down_a_row_not_drawn_over_each_other() -> None:
    """Two events a few seconds apart get labels on two rows (issue 43: burst_spike's
    'second spike' and 'burst exhausted' were drawn over each other)."""
    import re

    from dynemu.api.admin.charts import line_chart

    svg = line_chart(
        "t", [("a", "#000", [(0.0, 1.0), (100.0, 1.0)])], (0.0, 100.0), lambda x: f"{x:.0f}",
        markers=[(50.0, "phase: second spike"), (52.0, "burst exhausted on #0 (write)"), (90.0, "far away")],
    )
    ys = {m.group(2): float(m.group(1)) for m in re.finditer(r'<text x="[\d.]+" y="([\d.]+)" class="mlab[^"]*">([^<]+)<', svg)}
    assert ys["second spike"] != ys["burst exhausted on #0 (write)"]
    assert ys["far away"] == ys["second spike"]  # room on the first row again


def test_a_limit_far_above_the_data_is_drawn_off_the_scale() -> None:
    """4 WCU/s against an on-demand table's 4,000: the axis follows the data, and the limit's
    legend says its value (issue 43: two_region_writes' charts were flat)."""
    from dynemu.api.admin.charts import _fit_to_data

    fitted = _fit_to_data(
        [("allocated WCU", "#999", [(0.0, 4000.0), (1.0, 4000.0)]), ("consumed WCU", "#0a0", [(0.0, 4.0), (1.0, 8.0)])],
        "allocated WCU",
    )
    assert fitted[0][0] == "allocated WCU 4k (off the scale)"
    assert max(y for _, y in fitted[0][2]) == 8.0 * 1.05
    assert fitted[1] == ("consumed WCU", "#0a0", [(0.0, 4.0), (1.0, 8.0)])
    near = [("allocated WCU", "#999", [(0.0, 40.0)]), ("consumed WCU", "#0a0", [(0.0, 8.0)])]
    assert _fit_to_data(near, "allocated WCU") == near  # within ten times: drawn as it is


def test_tick_labels_show_the_utc_clock_time_below_the_relative_time() -> None:
    from dynemu.api.admin.charts import line_chart
    from dynemu.api.admin.dashboard import _relative

    label = _relative(1767225600.0)
    assert label(1767225600.0 - 150) == "-2:30\n23:57:30"
    svg = line_chart("t", [("a", "#000", [(0.0, 1.0)])], (1767225600.0 - 300, 1767225600.0), label)
    assert '<tspan x="' in svg and 'dy="11">00:00:00</tspan>' in svg
