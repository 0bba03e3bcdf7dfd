"""An AWS CLI round trip of execute-statement, when the CLI is installed (it is not among the
test extras: skipped otherwise)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any

import pytest

AWS = shutil.which("aws")


@pytest.mark.skipif(AWS is None, reason="the AWS CLI is not installed")
def test_cli_execute_statement_round_trip(table: str, server_url: str) -> None:
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret",
           "AWS_DEFAULT_REGION": "us-east-1", "AWS_PAGER": ""}

    def cli(*args: str) -> Any:
        done = subprocess.run([AWS, "dynamodb", "execute-statement", "--endpoint-url", server_url, "--output", "json",
                               *args], env=env, capture_output=True, text=True, timeout=120)  # type: ignore[list-item]
        return done.returncode, json.loads(done.stdout) if done.stdout.strip() else done.stderr

    code, out = cli("--statement", f"INSERT INTO \"{table}\" VALUE {{'pk': 'cli', 'n': 1}}")
    assert code == 0 and out == {"Items": []}
    code, out = cli("--statement", f"SELECT n FROM \"{table}\" WHERE pk = ?", "--parameters", '[{"S": "cli"}]')
    assert code == 0 and out["Items"] == [{"n": {"N": "1"}}]
    code, err = cli("--statement", f"INSERT INTO \"{table}\" VALUE {{'pk': 'cli'}}")
    assert code != 0 and "DuplicateItemException" in err
