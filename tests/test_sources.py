"""dynemu's sources cite what a reader can open: DynamoDB's documentation or docs/ in this
repository, never design notes kept outside it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "dynemu").rglob("*.py"))
# ``docs/<file>.md, "<section>"`` (a section may start a heading, or be the whole heading)
CITATION = re.compile(r'(docs/[\w-]+\.md)(?:,\s+"([^"]+)")?')


def test_no_source_cites_documents_outside_the_repository() -> None:
    outside = re.compile(r"DESIGN\.md|RULES\.md|seeds/")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in SOURCES
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if outside.search(line)
    ]
    assert found == []


def test_cited_docs_and_their_sections_exist() -> None:
    missing = []
    for path in SOURCES:
        text = " ".join(path.read_text(encoding="utf-8").split())  # citations may wrap
        for doc, section in CITATION.findall(text):
            target = ROOT / doc
            if not target.is_file():
                missing.append(f"{path.relative_to(ROOT)}: {doc}")
                continue
            headings = [line.lstrip("#").strip() for line in target.read_text(encoding="utf-8").splitlines()
                        if line.startswith("#")]
            if section and not any(h.startswith(section) for h in headings):
                missing.append(f"{path.relative_to(ROOT)}: {doc}, {section!r}")
    assert missing == []
