"""The compat suite's one dynemu server: in memory, dynemu's defaults (throttling on)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dynemu.testing import DynemuServer


@pytest.fixture(scope="session")
def dynemu_url() -> Iterator[str]:
    with DynemuServer() as url:
        yield url
