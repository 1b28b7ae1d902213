"""Properties of the exact test behind a statistical BLOCK (ratchet.stats.binomial).

What it promises: fisher_greater is Fisher's one-sided exact p-value of r of k against f of n (the
chance of r or more of k by luck, given the margins); plan_test fixes c, the fewest regressions of K
that reject at alpha, before the first replay; curtailing (stopping once settled) gives the decision
all K replays would give.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from scipy.stats import fisher_exact, hypergeom  # type: ignore[import-untyped]

from ratchet.stats.binomial import fisher_greater, plan_test


@st.composite
def counts(draw: st.DrawFn, most: int = 60) -> tuple[int, int, int, int]:
    """(r, k, f, n): r regressions of k replays, f flips of n noise repeats."""
    k, n = draw(st.integers(0, most)), draw(st.integers(0, most))
    return draw(st.integers(0, k)), k, draw(st.integers(0, n)), n


ALPHAS = st.sampled_from([0.001, 0.01, 0.05, 0.1, 0.2])


@given(counts())
@example((0, 0, 0, 0))
@example((60, 60, 0, 60))
def test_the_p_value_is_a_probability_and_one_at_no_regressions(case: tuple[int, int, int, int]) -> None:
    r, k, f, n = case
    p = fisher_greater(r, k, f, n)
    assert 0.0 <= p <= 1.0
    if r == 0:
        assert p == 1.0  # "r or more" of k, for r = 0, is certain


@given(counts())
def test_more_regressions_never_raise_the_p_value(case: tuple[int, int, int, int]) -> None:
    r, k, f, n = case
    assume(r < k)
    assert fisher_greater(r + 1, k, f, n) <= fisher_greater(r, k, f, n)


@given(counts())
def test_a_noisier_golden_never_lowers_the_p_value(case: tuple[int, int, int, int]) -> None:
    # More flips in the same repeats, or the same flips in fewer repeats: the edit's rate beats less.
    r, k, f, n = case
    if f < n:
        assert fisher_greater(r, k, f + 1, n) >= fisher_greater(r, k, f, n)
    assert fisher_greater(r, k, f, n + 1) <= fisher_greater(r, k, f, n)


@given(counts())
@example((1, 1, 0, 20))
@example((30, 30, 0, 60))  # p = 1 / C(90, 30): far below any float scipy rounds to zero
def test_the_p_value_is_scipys_one_sided_fisher_test(case: tuple[int, int, int, int]) -> None:
    r, k, f, n = case
    expected = fisher_exact([[r, k - r], [f, n - f]], alternative="greater").pvalue
    assert fisher_greater(r, k, f, n) == pytest.approx(expected, rel=1e-9, abs=0)
    if k + n:  # (scipy's hypergeometric has no urn of 0 balls)
        tail = hypergeom.sf(r - 1, k + n, r + f, k)  # P(X >= r) for the regressions among k drawn, margins fixed
        assert fisher_greater(r, k, f, n) == pytest.approx(tail, rel=1e-9, abs=0)


@given(counts(), st.integers(-3, 3).filter(bool))
def test_counts_out_of_range_are_refused(case: tuple[int, int, int, int], shift: int) -> None:
    r, k, f, n = case
    # more regressions than replays (or flips than repeats), or a negative count
    r_bad, f_bad = (k + shift, n + shift) if shift > 0 else (shift, shift)
    for args in ((r_bad, k, f, n), (r, k, f_bad, n)):
        with pytest.raises(ValueError, match="counts out of range"):
            fisher_greater(*args)


@given(st.integers(0, 40), st.integers(1, 40), st.integers(1, 8), ALPHAS)
def test_the_plan_blocks_exactly_at_the_fewest_regressions_that_reject(
    flips: int, repeats: int, max_replays: int, alpha: float
) -> None:
    assume(flips <= repeats)
    test = plan_test(flips=flips, repeats=repeats, max_replays=max_replays, alpha=alpha)
    rejects = [r for r in range(max_replays + 1) if fisher_greater(r, max_replays, flips, repeats) <= alpha]
    assert test.needed == (min(rejects) if rejects else None)
    for r in range(max_replays + 1):
        assert test.blocks(r) == (r in rejects)  # monotone: every count past c rejects too
        assert test.p_value(r) == fisher_greater(r, max_replays, flips, repeats)


@given(st.integers(0, 30), st.integers(1, 30), st.lists(st.booleans(), min_size=1, max_size=8), ALPHAS)
def test_curtailing_gives_the_decision_of_all_replays(
    flips: int, repeats: int, outcomes: list[bool], alpha: float
) -> None:
    assume(flips <= repeats)
    test = plan_test(flips=flips, repeats=repeats, max_replays=len(outcomes), alpha=alpha)
    ran = 0
    while not test.settled(sum(outcomes[:ran]), ran):
        ran += 1
    assert ran <= len(outcomes)
    assert test.blocks(sum(outcomes[:ran])) == test.blocks(sum(outcomes))
