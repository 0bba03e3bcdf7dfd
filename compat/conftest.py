"""The compat suite's one dynemu server: in memory, dynemu's defaults (throttling on)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dynemu.testing import DynemuServer


@pytest.fixture(scope="session")
def compat_dynemu_url() -> Iterator[str]:
    """Not the dynemu pytest plugin's ``dynemu_url``, which points AWS_ENDPOINT_URL_DYNAMODB at
    its server: moto's clients must keep talking to moto."""
    with DynemuServer() as url:
        yield url
