"""Run every scenario (or those matching argv) on both targets and print the differences as
differences.toml stubs, marking whether each is new, changed or as listed:
``python -m compat.observe [substring ...]``."""

from __future__ import annotations

import sys

from compat import differences
from compat.harness import all_scenarios, canonical, run_dynemu, run_moto
from dynemu.testing import DynemuServer


def main(argv: list[str]) -> None:
    listed = differences.load()
    with DynemuServer() as url:
        for sid, sc in sorted(all_scenarios().items()):
            if argv and not any(a in sid for a in argv):
                continue
            moto, dyn = canonical(run_moto(sc)), canonical(run_dynemu(sc, url))
            old = listed.get(sid)
            if moto == dyn:
                print(f"# SAME {sid}" + ("  (listed: remove it)" if old else ""))
                continue
            state = "NEW" if old is None else "LISTED" if (canonical(old.moto), canonical(old.dynemu)) == (moto, dyn) else "CHANGED"
            print(f"# {state} {sid}")
            if state != "LISTED":
                print(differences.stub(sid, moto, dyn))


if __name__ == "__main__":
    main(sys.argv[1:])
