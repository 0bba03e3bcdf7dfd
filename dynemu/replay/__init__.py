"""``dynemu replay SCENARIO --report DIR``: replay a described traffic scenario on a virtual
clock and write a report with charts (scenario, traffic, runner, report)."""
