"""The exact test behind a statistical BLOCK: values against scipy, and curtailment changes no decision."""

from __future__ import annotations

import itertools

import pytest
from scipy.stats import fisher_exact  # type: ignore[import-untyped]

from ratchet.stats.binomial import fisher_greater, plan_test


@pytest.mark.parametrize(
    ("r", "k", "f", "n"), [(1, 1, 0, 20), (3, 3, 4, 20), (2, 5, 6, 30), (5, 5, 10, 30), (0, 4, 3, 10), (4, 6, 1, 8)]
)
def test_fisher_greater_is_scipys_one_sided_fisher_test(r: int, k: int, f: int, n: int) -> None:
    expected = fisher_exact([[r, k - r], [f, n - f]], alternative="greater").pvalue
    assert fisher_greater(r, k, f, n) == pytest.approx(expected, rel=1e-9)


def test_no_flips_in_twenty_makes_one_regression_of_one_significant() -> None:
    assert fisher_greater(1, 1, 0, 20) == pytest.approx(1 / 21)
    assert fisher_greater(1, 1, 0, 5) == pytest.approx(1 / 6)


def test_counts_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError):
        fisher_greater(3, 2, 0, 10)


def test_the_plan_needs_fewer_regressions_when_the_golden_flips_less() -> None:
    quiet, noisy = (
        plan_test(flips=1, repeats=30, max_replays=5, alpha=0.05),
        plan_test(flips=9, repeats=30, max_replays=5, alpha=0.05),
    )
    assert quiet.needed is not None and noisy.needed is not None and quiet.needed < noisy.needed
    assert plan_test(flips=12, repeats=20, max_replays=3, alpha=0.05).needed is None  # 60% flips: nothing can block


@pytest.mark.parametrize(("flips", "repeats", "k"), [(2, 20, 5), (6, 30, 5), (0, 10, 4), (5, 12, 6)])
def test_curtailing_gives_the_decision_of_all_k_replays(flips: int, repeats: int, k: int) -> None:
    test = plan_test(flips=flips, repeats=repeats, max_replays=k, alpha=0.05)
    for sequence in itertools.product((0, 1), repeat=k):
        full = test.blocks(sum(sequence))
        ran = 0
        while not test.settled(sum(sequence[:ran]), ran):
            ran += 1
        assert test.blocks(sum(sequence[:ran])) == full, sequence
        assert test.p_value(sum(sequence[:ran])) >= test.p_value(sum(sequence))


def test_the_decision_never_blocks_more_often_than_alpha_under_the_null() -> None:
    """Exact type I error of the curtailed test when the edit regresses exactly as often as the golden flips."""
    flips, repeats, k, alpha = 6, 30, 5, 0.05
    test = plan_test(flips=flips, repeats=repeats, max_replays=k, alpha=alpha)
    assert test.needed is not None
    rate = flips / repeats
    blocked = sum(
        rate ** sum(s) * (1 - rate) ** (k - sum(s)) for s in itertools.product((0, 1), repeat=k) if test.blocks(sum(s))
    )
    assert blocked <= alpha
