"""`dynemu mcp`, driven over stdio by the mcp SDK's own client: the tools, their schemas and
descriptions, DynamoDB's errors as tool errors, against a private server and an --endpoint."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="dynemu[mcp] (the test extra installs it)")
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from dynemu.testing import DynemuServer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TOOLS = {"list_tables", "describe_table", "get_item", "put_item", "query", "partitions", "throttles",
         "contributor_insights", "advance_clock", "replay_scenario", "reset", "snapshot", "restore_snapshot",
         "list_snapshots"}  # fmt: skip


def _session(args: list[str], steps: Any) -> Any:
    async def run() -> Any:
        params = StdioServerParameters(command=sys.executable, args=["-m", "dynemu", "mcp", *args],
                                       env={"PYTHONPATH": str(ROOT)}, cwd=str(ROOT))  # fmt: skip
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            return await steps(s)

    return anyio.run(run)


async def call(s: ClientSession, tool: str, **args: Any) -> tuple[bool, Any]:
    res = await s.call_tool(tool, args)
    text = res.content[0].text if res.content else ""
    if res.is_error:
        return True, text
    return False, json.loads(text)


def test_tools_items_errors_and_the_capacity_model() -> None:
    async def steps(s: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        tools = (await s.list_tools()).tools
        out["tools"] = {t.name: t for t in tools}
        out["missing"] = await call(s, "get_item", table="nope", key={"pk": {"S": "a"}})
        out["bad_key"] = await call(s, "put_item", table="nope", item={"pk": {"N": "x"}})
        out["tables0"] = await call(s, "list_tables")
        out["scenario"] = await call(s, "replay_scenario",
                                     path=str(ROOT / "examples" / "scenarios" / "hot_key_uniform_split.json"))
        out["bad_scenario"] = await call(s, "replay_scenario", path="/nonexistent.json")
        out["clock"] = await call(s, "advance_clock", seconds=60)
        return out

    out = _session([], steps)
    assert set(out["tools"]) == TOOLS
    for t in out["tools"].values():  # a schema and a description an agent can act on
        assert t.description and len(t.description) > 20, t.name
        schema = getattr(t, "input_schema", None) or t.inputSchema
        assert schema["type"] == "object"
    assert out["tools"]["get_item"].description.startswith("Read one item by its full primary key")
    schema = getattr(out["tools"]["query"], "input_schema", None) or out["tools"]["query"].inputSchema
    assert set(schema["required"]) == {"table", "key_condition_expression", "expression_attribute_values"}
    assert out["missing"] == (True, "Error executing tool get_item: ResourceNotFoundException: Requested resource not found")
    # validation comes before the table is looked up, as on DynamoDB
    assert out["bad_key"][0] and out["bad_key"][1].startswith("Error executing tool put_item: ValidationException: ")
    assert out["bad_key"][1].endswith("The parameter cannot be converted to a numeric value: x")
    assert out["tables0"] == (False, {"TableNames": []})
    failed, summary = out["scenario"]
    assert not failed and summary["throttled"] > 0
    assert summary["by_reason"] == {"TableWriteKeyRangeThroughputExceeded": summary["throttled"]}
    assert out["bad_scenario"][0] and "ScenarioError" in out["bad_scenario"][1]
    assert out["clock"][0] is False and out["clock"][1]["mode"] == "virtual"


def test_against_an_endpoint() -> None:
    with DynemuServer(clock="virtual", capacity_model="uniform") as url:
        import boto3

        ddb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                           aws_access_key_id="x", aws_secret_access_key="x")
        ddb.create_table(TableName="mcp_t", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                                        {"AttributeName": "sk", "KeyType": "RANGE"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                               {"AttributeName": "sk", "AttributeType": "N"}],
                         ProvisionedThroughput={"ReadCapacityUnits": 50, "WriteCapacityUnits": 500})
        ddb.create_table(TableName="mcp_hot", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})

        async def steps(s: ClientSession) -> dict[str, Any]:
            out: dict[str, Any] = {}
            out["tables"] = await call(s, "list_tables")
            for i in range(120):
                res = await call(s, "put_item", table="mcp_t", item={"pk": {"S": "hot"}, "sk": {"N": str(i)}})
                assert res[0] is False, res
            for _ in range(3):  # 1 WCU under the uniform model: the second write in a second throttles
                res = await call(s, "put_item", table="mcp_hot", item={"pk": {"S": "hot"}, "pad": {"S": "x" * 900}})
                if res[0]:
                    out.setdefault("throttled", res[1])
            out["get"] = await call(s, "get_item", table="mcp_t", key={"pk": {"S": "hot"}, "sk": {"N": "0"}})
            out["query"] = await call(s, "query", table="mcp_t", key_condition_expression="pk = :p",
                                      expression_attribute_values={":p": {"S": "hot"}}, limit=500)
            out["partitions"] = await call(s, "partitions", table="mcp_t")
            out["throttles"] = await call(s, "throttles", table="mcp_hot")
            out["describe"] = await call(s, "describe_table", table="mcp_t")
            return out

        out = _session(["--endpoint", url], steps)
    assert out["tables"] == (False, {"TableNames": ["mcp_hot", "mcp_t"]})
    assert out["throttled"].startswith("Error executing tool put_item: ProvisionedThroughputExceededException: ")
    assert out["get"][1]["Item"]["sk"] == {"N": "0"}
    items = out["query"][1]["Items"]
    assert len(items) <= 100 and "LastEvaluatedKey" in out["query"][1]  # capped at 100
    assert out["partitions"][1]["table"] == "mcp_t" and out["partitions"][1]["partitions"]
    assert sum(out["throttles"][1]["by_reason"].values()) > 0
    assert out["describe"][1]["Table"]["TableName"] == "mcp_t"


def test_a_bad_endpoint_is_one_line() -> None:
    import subprocess

    done = subprocess.run([sys.executable, "-m", "dynemu", "mcp", "--endpoint", "127.0.0.1:1"],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (
        2, "dynemu mcp: --endpoint 127.0.0.1:1: give the scheme, as in http://127.0.0.1:1\n")


def test_reset_and_snapshots() -> None:
    with DynemuServer(admin_token="tok") as url:
        import boto3

        ddb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                           aws_access_key_id="x", aws_secret_access_key="x")
        ddb.create_table(TableName="mcp_s", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        ddb.put_item(TableName="mcp_s", Item={"pk": {"S": "kept"}})

        async def steps(s: ClientSession) -> dict[str, Any]:
            out: dict[str, Any] = {}
            out["snapshot"] = await call(s, "snapshot", name="base")
            await call(s, "put_item", table="mcp_s", item={"pk": {"S": "later"}})
            out["list"] = await call(s, "list_snapshots")
            out["restore"] = await call(s, "restore_snapshot", name="base")
            out["later"] = await call(s, "get_item", table="mcp_s", key={"pk": {"S": "later"}})
            out["kept"] = await call(s, "get_item", table="mcp_s", key={"pk": {"S": "kept"}})
            out["reset"] = await call(s, "reset")
            out["empty"] = await call(s, "list_tables")
            out["missing"] = await call(s, "restore_snapshot", name="nope")
            out["bad_name"] = await call(s, "snapshot", name="../x")
            await call(s, "restore_snapshot", name="base")
            out["back"] = await call(s, "list_tables")
            return out

        out = _session(["--endpoint", url, "--admin-token", "tok"], steps)

        async def refused(s: ClientSession) -> Any:
            return await call(s, "reset")

        out["no_token"] = _session(["--endpoint", url], refused)
    assert out["no_token"] == (True, "Error executing tool reset: HTTP 401: the admin API needs the token given by "
                                     "--admin-token (Authorization: Bearer ... or X-Dynemu-Admin-Token)")
    assert out["snapshot"][1]["namespaces"] == ["us-east-1"] and out["snapshot"][1]["scope"] == "us-east-1"
    assert [i["name"] for i in out["list"][1]["snapshots"]] == ["base"]
    assert out["later"] == (False, {})
    assert out["kept"][1]["Item"] == {"pk": {"S": "kept"}}
    assert out["reset"] == (False, {"reset": ["us-east-1"]})
    assert out["empty"] == (False, {"TableNames": []})
    assert out["missing"] == (True, "Error executing tool restore_snapshot: HTTP 404: snapshot not found: nope")
    assert out["bad_name"][0] and out["bad_name"][1].endswith("not starting with '.'")
    assert out["back"] == (False, {"TableNames": ["mcp_s"]})
