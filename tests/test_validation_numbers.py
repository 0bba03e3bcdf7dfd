"""Numbers as the engine stores them (``values.normalize_number``): DynamoDB's canonical
form (no exponent, no leading or trailing zeros, no ``-0``), or its error for a string that
is not a number it accepts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynemu.engine import values
from dynemu.errors import DynamoError

NOT_A_NUMBER = "The parameter cannot be converted to a numeric value"


def _outcome(f: Any, s: Any) -> Any:
    try:
        return f(s)
    except DynamoError as e:
        return e.type_name, e.message


def _canonical(s: Any) -> str:
    """The module's definition of the stored form: ``format_number(parse_number(s))``."""
    return values.format_number(values.parse_number(s))


_numbers = st.one_of(
    st.text(alphabet="0123456789.+-", max_size=40),
    st.text(alphabet="0123456789.+-eE ", max_size=12),
    st.builds(lambda sign, whole, frac: f"{sign}{whole}.{frac}", st.sampled_from(["", "+", "-"]),
              st.text(alphabet="0", max_size=3).map(lambda z: z + "12"), st.text(alphabet="0123456789", max_size=36)),
)


@settings(max_examples=1000, deadline=None)
@given(_numbers)
def test_a_number_is_stored_in_its_canonical_form(s: str) -> None:
    assert _outcome(values.normalize_number, s) == _outcome(_canonical, s)


@pytest.mark.parametrize("s, expected", [
    ("12.340", "12.34"), ("+007", "7"), ("-0.0", "0"), (".5", "0.5"), ("5.", "5"), ("-05.50", "-5.5"),
    ("0.0010", "0.001"), ("000", "0"), ("-.5", "-0.5"), ("+.0", "0"), ("1" * 38, "1" * 38),
    ("0." + "0" * 35 + "1", "0." + "0" * 35 + "1"), ("1.5e3", "1500"),
    (".", ("ValidationException", f"{NOT_A_NUMBER}: .")),
    ("-.", ("ValidationException", f"{NOT_A_NUMBER}: -.")),
    ("", ("ValidationException", f"{NOT_A_NUMBER}: ")),  # the current wording (issue 36)
    ("+", ("ValidationException", f"{NOT_A_NUMBER}: +")),
    ("1" * 39, ("ValidationException", "Attempting to store more than 38 significant digits in a Number")),
    ("١٢", ("ValidationException", f"{NOT_A_NUMBER}: ١٢")),
])
def test_chosen_numbers(s: str, expected: Any) -> None:
    assert _outcome(values.normalize_number, s) == expected
