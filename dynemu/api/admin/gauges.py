"""Prometheus gauges of the capacity model, next to the consumption counters of
``/_dynemu/metrics``: allocated capacity and bucket balances per partition, so Grafana can
plot ``rate(dynemu_consumed_capacity_units_total[1m])`` against capacity.
"""

from __future__ import annotations

from dynemu.engine.capacity.history import allocated
from dynemu.engine.namespaces import Namespaces

GAUGES = (
    ("dynemu_allocated_capacity_units", "Capacity units per second a table or GSI may consume."),
    ("dynemu_partition_allocated_capacity_units", "Capacity units per second allocated to a partition."),
    (
        "dynemu_partition_ceiling_capacity_units",
        "A partition's hard limit (3,000 RCU / 1,000 WCU per second).",
    ),
    ("dynemu_partition_bucket_balance_units", "Units in a partition's token bucket (negative: in debt)."),
    (
        "dynemu_partition_burst_balance_units",
        "Burst capacity a partition has saved up, above its allocated rate.",
    ),
    ("dynemu_partition_count", "Partitions of a table or GSI."),
)


def partition_gauges(namespaces: Namespaces) -> list[str]:
    """The gauges' lines for every table and GSI of every namespace."""
    values: dict[str, list[str]] = {name: [] for name, _ in GAUGES}
    for ns_name, db in sorted(namespaces.databases.items()):
        now = db.now()
        for name, table in sorted(db.tables.items()):
            cap = table.capacity
            for index, state in [(None, cap.state), *sorted(cap.index_states.items())]:
                base = f'namespace="{ns_name}",table="{name}",index="{index or ""}"'
                values["dynemu_partition_count"].append(f"dynemu_partition_count{{{base}}} {len(state.pmap)}")
                for op, units in zip(("read", "write"), allocated(state), strict=True):
                    values["dynemu_allocated_capacity_units"].append(
                        f'dynemu_allocated_capacity_units{{{base},operation="{op}"}} {units}'
                    )
                for p in state.describe_partitions(now):
                    for op in ("read", "write"):
                        labels = f'{base},partition="{p["index"]}",operation="{op}"'
                        for gauge, field in (
                            ("dynemu_partition_allocated_capacity_units", "allocated"),
                            ("dynemu_partition_ceiling_capacity_units", "ceiling"),
                            ("dynemu_partition_bucket_balance_units", "bucket"),
                            ("dynemu_partition_burst_balance_units", "burst"),
                        ):
                            values[gauge].append(f"{gauge}{{{labels}}} {p[f'{field}_{op}']:.3f}")
    lines: list[str] = []
    for name, help_text in GAUGES:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} gauge")
        lines.extend(values[name])
    return lines
