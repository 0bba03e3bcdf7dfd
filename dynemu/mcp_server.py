"""``dynemu mcp``: a Model Context Protocol server over stdio, for coding agents that work
against a local DynamoDB: its tables and items, what the capacity model sees (partitions, hot
keys, throttles by reason, Contributor Insights), the virtual clock, scenarios, reset and
snapshots.

    dynemu mcp                                   # a private in-memory dynemu on a virtual clock
    dynemu mcp --endpoint http://127.0.0.1:8000  # a running dynemu

Built on the maintained ``mcp`` SDK (``pip install 'dynemu[mcp]'``), imported by this command
only. Every tool has a JSON schema (from its signature) and a description; a DynamoDB error
comes back as a tool error whose text starts with DynamoDB's error type, then its message.
Results are JSON; item lists are cut at ``MAX_ITEMS`` (the answer says so).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

MAX_ITEMS = 100  # items a tool returns at most
DEFAULT_ITEMS = 25


class Backend:
    """The dynemu an MCP server talks to: its DynamoDB API (boto3) and admin API (HTTP)."""

    def __init__(self, endpoint: str, region: str, admin_token: str | None = None) -> None:
        import boto3
        from botocore.config import Config

        self.endpoint = endpoint.rstrip("/")
        self.region = region
        self.admin_token = admin_token  # the server's --admin-token, for reset and snapshots
        self.ddb = boto3.client(
            "dynamodb", endpoint_url=self.endpoint, region_name=region, aws_access_key_id="mcp",
            aws_secret_access_key="mcp", config=Config(retries={"total_max_attempts": 1}),
        )

    def call(self, operation: str, **params: Any) -> dict[str, Any]:
        """A DynamoDB call; its error as ``ToolError("<Type>: <message>")``."""
        from botocore.exceptions import ClientError, ParamValidationError
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            out = getattr(self.ddb, operation)(**{k: v for k, v in params.items() if v is not None})
        except ClientError as e:
            err = e.response.get("Error", {})
            raise ToolError(f"{err.get('Code', 'Error')}: {err.get('Message', '')}") from None
        except ParamValidationError as e:
            raise ToolError(f"ValidationException: {e}") from None
        out.pop("ResponseMetadata", None)
        return out

    def admin(self, path: str, body: dict[str, Any] | None = None, method: str | None = None) -> Any:
        """An admin API call (``/_dynemu/...``) in this region; its error as a ToolError."""
        from mcp.server.mcpserver.exceptions import ToolError

        sep = "&" if "?" in path else "?"
        url = f"{self.endpoint}{path}{sep}region={urllib.parse.quote(self.region)}"
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"}
        if self.admin_token is not None:
            headers["Authorization"] = f"Bearer {self.admin_token}"
        req = urllib.request.Request(url, data=data, method=method or ("POST" if data is not None else "GET"),
                                     headers=headers)  # fmt: skip
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                text = r.read()
        except urllib.error.HTTPError as e:
            detail = e.read().decode(errors="replace")
            try:
                detail = json.loads(detail).get("error", detail)
            except ValueError:
                pass
            raise ToolError(f"HTTP {e.code}: {detail}") from None
        except urllib.error.URLError as e:
            raise ToolError(f"cannot reach {self.endpoint}: {e.reason}") from None
        return json.loads(text) if text else {}


def _limit(limit: int) -> int:
    """A tool's ``limit`` of items, from 1 to ``MAX_ITEMS``."""
    return max(1, min(limit, MAX_ITEMS))


def build(backend: Backend) -> Any:
    """The MCP server with dynemu's tools, each a thin call of ``backend``."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(
        "dynemu",
        instructions="A local Amazon DynamoDB (dynemu) with DynamoDB's capacity model. Items and keys are "
        'DynamoDB JSON ({"pk": {"S": "a"}}). Errors start with DynamoDB\'s error type.',
    )
    for tool in _tools(backend):
        server.add_tool(tool, description=(tool.__doc__ or "").strip())
    return server


def _tools(b: Backend) -> list[Callable[..., Any]]:
    """Every tool, in the order list_tools shows them."""
    return [*_data_tools(b), *_model_tools(b), *_state_tools(b)]


def _data_tools(b: Backend) -> list[Callable[..., Any]]:
    """Tables and items: the DynamoDB API."""

    def list_tables() -> dict[str, Any]:
        """List the tables of this region (ListTables, every page)."""
        names: list[str] = []
        start = None
        while True:
            page = b.call("list_tables", ExclusiveStartTableName=start)
            names += page["TableNames"]
            start = page.get("LastEvaluatedTableName")
            if start is None:
                return {"TableNames": names}

    def describe_table(table: str) -> dict[str, Any]:
        """Describe a table: key schema, billing mode, throughput, indexes, item count (DescribeTable)."""
        return json.loads(json.dumps(b.call("describe_table", TableName=table), default=str))

    def get_item(table: str, key: dict[str, Any], consistent_read: bool = False) -> dict[str, Any]:
        """Read one item by its full primary key, given as DynamoDB JSON such as {"pk": {"S": "a"}} (GetItem)."""
        return b.call("get_item", TableName=table, Key=key, ConsistentRead=consistent_read)

    def put_item(table: str, item: dict[str, Any], condition_expression: str | None = None,
                 expression_attribute_values: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
        """Write one item (DynamoDB JSON), replacing any item with its key; an optional condition (PutItem)."""
        return b.call("put_item", TableName=table, Item=item, ConditionExpression=condition_expression,
                      ExpressionAttributeValues=expression_attribute_values)  # fmt: skip

    def query(table: str, key_condition_expression: str, expression_attribute_values: dict[str, Any],
              expression_attribute_names: dict[str, str] | None = None, index_name: str | None = None,
              limit: int = DEFAULT_ITEMS, scan_index_forward: bool = True) -> dict[str, Any]:  # fmt: skip
        """Query a table or index by a key condition such as "pk = :p" with {":p": {"S": "a"}};
        returns at most `limit` items (100 at most) and LastEvaluatedKey to go on (Query)."""
        n = _limit(limit)
        out = b.call("query", TableName=table, KeyConditionExpression=key_condition_expression,
                     ExpressionAttributeValues=expression_attribute_values,
                     ExpressionAttributeNames=expression_attribute_names, IndexName=index_name, Limit=n,
                     ScanIndexForward=scan_index_forward)  # fmt: skip
        return {k: out[k] for k in ("Items", "Count", "ScannedCount", "LastEvaluatedKey") if k in out}

    return [list_tables, describe_table, get_item, put_item, query]


def _model_tools(b: Backend) -> list[Callable[..., Any]]:
    """What the capacity model sees, the virtual clock and scenarios: the admin API."""

    def partitions(table: str, index: str | None = None) -> dict[str, Any]:
        """A table's (or GSI's) partitions as the capacity model sees them: key ranges, items, size,
        consumption, throttles by reason, and the hottest keys of the last 5 minutes."""
        q = f"?index={urllib.parse.quote(index)}" if index else ""
        return b.admin(f"/_dynemu/tables/{urllib.parse.quote(table)}/partitions{q}")

    def throttles(table: str) -> dict[str, Any]:
        """Requests refused with a throttling error, by ThrottlingReasons reason, for a table and its GSIs."""
        view = partitions(table)
        by_partition = {str(p["index"]): p.get("throttles", {}) for p in view["partitions"] if p.get("throttles")}
        return {"table": table, "by_reason": view["summary"].get("throttles", {}), "by_partition": by_partition,
                "most_throttled_keys": view["hot_keys"].get("by_throttles", [])[:10]}  # fmt: skip

    def contributor_insights(table: str, index: str | None = None) -> dict[str, Any]:
        """Contributor Insights' reports (most accessed and most throttled keys per minute) of a table or GSI."""
        q = f"?index={urllib.parse.quote(index)}" if index else ""
        return b.admin(f"/_dynemu/tables/{urllib.parse.quote(table)}/contributor-insights{q}")

    def advance_clock(seconds: float) -> dict[str, Any]:
        """Move a virtual clock forward (dynemu --clock virtual): TTL, refills and replication run."""
        return b.admin("/_dynemu/clock", {"advance": seconds})

    def replay_scenario(path: str, model: str | None = None) -> dict[str, Any]:
        """Replay a traffic scenario file (dynemu's JSON format, see examples/scenarios) on a private
        virtual-clock server and return its per-partition summary and throttle counts."""
        from mcp.server.mcpserver.exceptions import ToolError

        from dynemu.replay import report, runner, scenario
        from dynemu.replay.cli import replay

        try:
            out = replay(path, model=model)
        except (scenario.ScenarioError, runner.ReplayError, OSError) as e:
            raise ToolError(f"ScenarioError: {e}") from None
        return {"summary": report.summary_text(out), "sent": sum(out.sent.values()),
                "throttled": sum(out.throttled.values()), "by_reason": out.reasons()}  # fmt: skip

    return [partitions, throttles, contributor_insights, advance_clock, replay_scenario]


def _state_tools(b: Backend) -> list[Callable[..., Any]]:
    """Reset and snapshots of this region's namespace (engine/state.py, over the admin API)."""

    def reset() -> dict[str, Any]:
        """Drop every table, backup, stream and setting of this region's namespace at once."""
        return b.admin("/_dynemu/reset", {})

    def snapshot(name: str) -> dict[str, Any]:
        """Save the whole state of this region's namespace under `name`, to restore before each test."""
        return b.admin("/_dynemu/snapshots", {"name": name})

    def restore_snapshot(name: str) -> dict[str, Any]:
        """Put back the state saved by snapshot(name): later writes leave no trace."""
        return b.admin(f"/_dynemu/snapshots/{urllib.parse.quote(name)}/restore", {})

    def list_snapshots() -> dict[str, Any]:
        """The snapshots saved, with their namespaces."""
        return b.admin("/_dynemu/snapshots")

    return [reset, snapshot, restore_snapshot, list_snapshots]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="dynemu mcp", description=__doc__.split("\n\n")[0])
    p.add_argument("--endpoint", help="a running dynemu (default: a private in-memory one on a virtual clock)")
    p.add_argument("--region", default="us-east-1", help="the region (namespace) the tools act in (default us-east-1)")
    p.add_argument("--clock", choices=("real", "virtual"), default="virtual", help="the private server's clock")
    p.add_argument("--admin-token", help="the --admin-token of the server at --endpoint (reset and snapshots need it)")
    args = p.parse_args(argv)
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        print("dynemu mcp: the mcp SDK is not installed: pip install 'dynemu[mcp]'", file=sys.stderr)
        return 2
    if args.endpoint:
        if not args.endpoint.startswith(("http://", "https://")):
            print(f"dynemu mcp: --endpoint {args.endpoint}: give the scheme, as in http://{args.endpoint}", file=sys.stderr)
            return 2
        build(Backend(args.endpoint, args.region, args.admin_token)).run("stdio")
        return 0
    from dynemu.testing import DynemuServer

    with DynemuServer(clock=args.clock) as url:
        build(Backend(url, args.region)).run("stdio")
    return 0
