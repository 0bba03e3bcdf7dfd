"""The short cuts of ``engine/values.py`` give exactly what its general rules give: plain
decimals normalised without Decimal (``normalize_number``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynemu.engine import values
from dynemu.errors import DynamoError


def _outcome(f: Any, s: Any) -> Any:
    try:
        return f(s)
    except DynamoError as e:
        return e.type_name, e.message


def _reference(s: Any) -> str:
    return values.format_number(values.parse_number(s))


_numbers = st.one_of(
    st.text(alphabet="0123456789.+-", max_size=40),
    st.text(alphabet="0123456789.+-eE ", max_size=12),
    st.builds(lambda sign, whole, frac: f"{sign}{whole}.{frac}", st.sampled_from(["", "+", "-"]),
              st.text(alphabet="0", max_size=3).map(lambda z: z + "12"), st.text(alphabet="0123456789", max_size=36)),
)


@settings(max_examples=1000, deadline=None)
@given(_numbers)
def test_plain_decimals_normalise_as_the_general_rule_does(s: str) -> None:
    assert _outcome(values.normalize_number, s) == _outcome(_reference, s)


@pytest.mark.parametrize("s", ["12.340", "+007", "-0.0", ".5", "5.", "-05.50", "0.0010", "000", "-.5", "+.0", ".", "-.",
                               "", "+", "1" * 38, "0." + "0" * 35 + "1", "1" * 39, "1.5e3", "١٢"])
def test_plain_decimals_on_chosen_strings(s: str) -> None:
    assert _outcome(values.normalize_number, s) == _outcome(_reference, s)
