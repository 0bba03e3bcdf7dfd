"""README.md works as written: its examples run, its flag table is the parser's, one of each section."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from dynemu.config import README_TABLE_END, README_TABLE_START, flag_actions, markdown_flag_table
from tests.test_pytest_plugin import _project, _pytest
from tests.test_server_process import Process

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_setup_commands_come_first() -> None:
    first = re.search(r"```(\w+)\n(.*?)```", README, flags=re.S)
    assert first is not None and first.group(1) == "sh"
    lines = [line.split("#")[0].strip() for line in first.group(2).strip().splitlines()]
    assert lines == ["pip install . && dynemu", "pip install -c constraints.txt -e '.[test]' && pytest"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "test" in project["optional-dependencies"]
    assert any(dep.startswith("boto3") for dep in project["dependencies"])  # the example imports it
    assert project["scripts"]["dynemu"] == "dynemu.cli:main"


def test_flag_table_is_the_parsers() -> None:
    table = README.split(README_TABLE_START + "\n", 1)[1].split("\n" + README_TABLE_END, 1)[0].strip()
    assert table == markdown_flag_table(), "regenerate it: python -m dynemu.config README.md"
    for flag in ("--ttl-interval", "--eventual-lag-ms", "--stale-read-probability", "--seed", "--item-collection-limit"):
        assert f"`{flag}" in table
    assert len(flag_actions()) == table.count("\n") - 1


def test_one_of_each_section_and_nothing_outside_the_repository() -> None:
    headings = re.findall(r"^#+ (.+)$", README, flags=re.M)
    assert len(headings) == len(set(headings)), headings
    assert headings.count("Capacity, partitions and throttling") == 1
    assert "../shared" not in README
    works = README.split("## What works", 1)[1].split("\n## ", 1)[0]
    assert "Secondary indexes" in works and "Streams" in works and "Time to Live" in works


def test_documents_each_way_to_use_it() -> None:
    for text in (
        "?index=", "?access_key=", "AWS_ENDPOINT_URL_DYNAMODB", "aws dynamodb", "@aws-sdk/client-dynamodb",
        "docker run", "dynemu_url", "`dynamodb`", "pytest-xdist", "--host 0.0.0.0",
    ):
        assert text in README, text


def test_python_example_runs_as_is(tmp_path: Path) -> None:
    """After the first set-up command (a server on disk), twice: the second run finds its table."""
    example = blocks("python")[0]
    assert "http://127.0.0.1:8000" in example
    server = Process("--data-dir", str(tmp_path / "dynemu-data"))
    try:
        script = tmp_path / "example.py"
        script.write_text(example.replace("http://127.0.0.1:8000", server.url))
        for _ in range(2):
            result = subprocess.run(
                [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120
            )
            assert result.returncode == 0, result.stderr
            assert result.stdout.strip() == "{'pk': {'S': 'hello'}, 'to': {'S': 'world'}}"
    finally:
        assert server.stop() == 0


def test_pytest_example_runs(tmp_path: Path) -> None:
    example = next(b for b in blocks("python") if b.startswith("# test_orders.py"))
    project, env = _project(tmp_path, "gac")
    (project / "test_app.py").unlink()
    (project / "test_orders.py").write_text(example)
    result = _pytest(project, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_relative_links_exist() -> None:
    for target in re.findall(r"\]\(([^)#:]+)\)", README):
        assert (ROOT / target).exists(), target
