"""differences.toml: the listed differences between moto and dynemu, and their checks."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
TOML = HERE / "differences.toml"
VERDICTS = ("moto wrong", "dynemu wrong", "both wrong", "either acceptable")


@dataclass(frozen=True)
class Difference:
    id: str
    moto: Any
    dynemu: Any
    verdict: str
    rule: str
    source: str
    note: str = ""


def load(path: Path = TOML) -> dict[str, Difference]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Difference] = {}
    for entry in data.get("difference", []):
        sid = entry["id"]
        if sid in out:
            raise ValueError(f"{path.name}: {sid} listed twice")
        if entry["verdict"] not in VERDICTS:
            raise ValueError(f"{path.name}: {sid}: verdict must be one of {VERDICTS}")
        out[sid] = Difference(
            id=sid,
            moto=json.loads(entry["moto"]),
            dynemu=json.loads(entry["dynemu"]),
            verdict=entry["verdict"],
            rule=entry["rule"].strip(),
            source=entry["source"].strip(),
            note=entry.get("note", "").strip(),
        )
    return out


def stub(sid: str, moto: str, dynemu: str) -> str:
    """The TOML entry to paste for a new difference (the rule is written by hand)."""
    return (
        f"[[difference]]\nid = \"{sid}\"\nmoto = '''{moto}'''\ndynemu = '''{dynemu}'''\n"
        "verdict = \"?\"\nrule = \"\"\"?\"\"\"\nsource = \"?\"\n"
    )
