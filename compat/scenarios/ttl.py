"""Time to Live: UpdateTimeToLive and DescribeTimeToLive."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario


def _enable(c: Ctx, name: str, attr: str = "expires", enabled: bool = True) -> Any:
    return c.call("update_time_to_live", TableName=name,
                  TimeToLiveSpecification={"AttributeName": attr, "Enabled": enabled})


@scenario("ttl")
def describe_default(c: Ctx) -> Any:
    """DescribeTimeToLive of a new table."""
    return c.ddb.describe_time_to_live(TableName=c.table())


@scenario("ttl")
def enable(c: Ctx) -> Any:
    """UpdateTimeToLive enabling TTL, then DescribeTimeToLive."""
    name = c.table()
    return {"update": _enable(c, name), "describe": c.ddb.describe_time_to_live(TableName=name)}


@scenario("ttl")
def enable_twice(c: Ctx) -> Any:
    """Enabling TTL on a table where it is already enabled."""
    name = c.table()
    _enable(c, name)
    return _enable(c, name)


@scenario("ttl")
def change_attribute(c: Ctx) -> Any:
    """Enabling TTL on another attribute while it is enabled."""
    name = c.table()
    _enable(c, name)
    return _enable(c, name, "other")


@scenario("ttl")
def disable(c: Ctx) -> Any:
    """Enable then disable TTL."""
    name = c.table()
    _enable(c, name)
    return {"update": _enable(c, name, enabled=False), "describe": c.ddb.describe_time_to_live(TableName=name)}


@scenario("ttl")
def disable_when_disabled(c: Ctx) -> Any:
    """Disabling TTL that was never enabled."""
    return _enable(c, c.table(), enabled=False)


@scenario("ttl")
def missing_table(c: Ctx) -> Any:
    """DescribeTimeToLive and UpdateTimeToLive of a table that does not exist."""
    name = c.name("missing")
    return [c.call("describe_time_to_live", TableName=name), _enable(c, name)]


@scenario("ttl")
def future_expiry_is_kept(c: Ctx) -> Any:
    """An item whose TTL is far in the future stays readable."""
    name = c.table()
    _enable(c, name)
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "expires": {"N": "4102444800"}})
    return c.ddb.get_item(TableName=name, Key={"pk": {"S": "k"}})


@scenario("ttl")
def disable_other_attribute(c: Ctx) -> Any:
    """Disabling TTL naming another attribute than the enabled one."""
    name = c.table()
    _enable(c, name)
    return _enable(c, name, "other", enabled=False)


@scenario("ttl")
def enable_on_key_attribute(c: Ctx) -> Any:
    """Enabling TTL on the partition key attribute, then describing it."""
    name = c.table()
    return {"update": _enable(c, name, "pk"), "describe": c.ddb.describe_time_to_live(TableName=name)}
