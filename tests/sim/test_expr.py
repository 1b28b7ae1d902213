from __future__ import annotations

import pytest

from ratchet.sim.expr import ExprError, evaluate, previous_business_day


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("round(float($row.amount) * 1.5, 2)", 15.75),
        ('$row["currency"] == "EUR" and not $missing', True),
        ('"b" in lower("ABC")', True),
        ("$missing.deep.key", None),
        ('fmt("{} and {}", 1, $row.currency)', "1 and EUR"),
        ("[1, 2] + [3]", [1, 2, 3]),
        ('{"a": 1}["a"] if weekday("2026-10-10") >= 5 else 0', 1),
        ('re_find(r"#(\\d+)", "dup of #12")', "12"),
    ],
)
def test_allowed_expressions(source: str, expected: object) -> None:
    assert evaluate(source, {"row": {"amount": "10.5", "currency": "EUR"}}) == expected


@pytest.mark.parametrize(
    "source",
    [
        "__import__('os')",
        "open('x')",
        "$row.__class__.__bases__ if False else os",
        "(lambda: 1)()",
        '"x" * 10**9',
        "[x for x in []]",
    ],
)
def test_refused_expressions(source: str) -> None:
    with pytest.raises(ExprError):
        evaluate(source, {"row": {}})


def test_previous_business_day_skips_weekends() -> None:
    assert previous_business_day("2026-10-10") == "2026-10-09"
    assert previous_business_day("2026-10-12") == "2026-10-09"
