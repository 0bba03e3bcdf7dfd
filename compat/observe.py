"""Run every scenario (or those whose id contains one of the arguments) on both targets and
print each difference as a differences.toml stub, marked NEW, CHANGED or LISTED; scenarios
answering the same are marked SAME (and "listed: remove it" when differences.toml has them).

    python -m compat.observe [--update] [substring ...]

--update rewrites the moto and dynemu answers of CHANGED entries in differences.toml, keeping
their verdict and rule: read the rule again afterwards, it may no longer fit.
"""

from __future__ import annotations

import re
import sys

from compat import differences
from compat.harness import all_scenarios, canonical, run_dynemu, run_moto
from dynemu.testing import DynemuServer


def update_answers(sid: str, moto: str, dyn: str) -> None:
    """Replace the answers of entry ``sid`` in differences.toml, leaving the rest as written."""
    text = differences.TOML.read_text(encoding="utf-8")
    head = 'id = "' + re.escape(sid) + '"'
    entry = re.compile("(" + head + r"\nmoto = ''').*?(''')\n(dynemu = ''').*?(''')", re.S)
    text, n = entry.subn(lambda m: m.group(1) + moto + m.group(2) + "\n" + m.group(3) + dyn + m.group(4), text)
    if n != 1:
        raise SystemExit(f"{sid}: its entry is not laid out as id, moto, dynemu; edit it by hand")
    differences.TOML.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> None:
    update = "--update" in argv
    wanted = [a for a in argv if a != "--update"]
    listed = differences.load()
    with DynemuServer() as url:
        for sid, sc in sorted(all_scenarios().items()):
            if wanted and not any(a in sid for a in wanted):
                continue
            moto, dyn = canonical(run_moto(sc)), canonical(run_dynemu(sc, url))
            old = listed.get(sid)
            if moto == dyn:
                print(f"# SAME {sid}" + ("  (listed: remove it)" if old else ""))
                continue
            if old is None:
                state = "NEW"
            elif (canonical(old.moto), canonical(old.dynemu)) == (moto, dyn):
                state = "LISTED"
            else:
                state = "CHANGED"
            print(f"# {state} {sid}")
            if state == "CHANGED" and update:
                update_answers(sid, moto, dyn)
                print(f"#   answers updated; check its rule: {old.verdict}: {old.rule[:100]}")
            elif state != "LISTED":
                print(differences.stub(sid, moto, dyn))


if __name__ == "__main__":
    main(sys.argv[1:])
