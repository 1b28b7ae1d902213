"""Properties of the rate intervals (ratchet.stats.intervals) and the sample size calibration derives from them.

What they promise: Wilson's interval stays inside [0, 1], exact at 0 and n, (0, 1) for n == 0;
Clopper-Pearson's one-sided bounds invert the binomial tail exactly (1.0 above at k == n, 0.0 below
at k == 0); minimum_accepted is the fewest opinions whose bound, with none wrong, can reach alpha.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from scipy.stats import binom, binomtest  # type: ignore[import-untyped]

from ratchet.stats.calibration import minimum_accepted
from ratchet.stats.intervals import clopper_pearson_lower, clopper_pearson_upper, wilson_interval


@st.composite
def seen(draw: st.DrawFn, most: int = 500) -> tuple[int, int]:
    """(k, n): k of n."""
    n = draw(st.integers(0, most))
    return draw(st.integers(0, n)), n


LEVELS = st.floats(min_value=0.5, max_value=0.999)
DELTAS = st.floats(min_value=0.001, max_value=0.5)


@given(seen(), LEVELS)
@example((0, 0), 0.95)
@example((0, 1), 0.95)
@example((7, 7), 0.99)
def test_wilson_holds_the_rate_inside_zero_one(case: tuple[int, int], confidence: float) -> None:
    k, n = case
    lower, upper = wilson_interval(k, n, confidence)
    assert 0.0 <= lower <= upper <= 1.0
    if n == 0:
        assert (lower, upper) == (0.0, 1.0)
    else:
        assert lower <= k / n <= upper
        assert (lower == 0.0) == (k == 0) and (upper == 1.0) == (k == n)  # exact at the ends, and only there


@given(seen(), LEVELS, st.floats(min_value=0.0, max_value=0.4))
def test_wilson_moves_up_with_successes_and_widens_with_confidence(
    case: tuple[int, int], confidence: float, more: float
) -> None:
    k, n = case
    lower, upper = wilson_interval(k, n, confidence)
    if k < n:
        next_lower, next_upper = wilson_interval(k + 1, n, confidence)
        assert next_lower >= lower and next_upper >= upper
    wider = min(confidence + more, 0.9999)
    wide_lower, wide_upper = wilson_interval(k, n, wider)
    assert wide_lower <= lower + 1e-12 and wide_upper >= upper - 1e-12


@given(seen(), LEVELS)
def test_wilson_is_scipys_wilson_interval(case: tuple[int, int], confidence: float) -> None:
    k, n = case
    assume(n > 0)
    expected = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert wilson_interval(k, n, confidence) == pytest.approx((expected.low, expected.high), abs=1e-9)


@given(seen(), DELTAS)
@example((0, 0), 0.05)
@example((10, 10), 0.05)
@example((0, 30), 0.05)
def test_clopper_pearson_bounds_invert_the_binomial_tail(case: tuple[int, int], delta: float) -> None:
    k, n = case
    upper, lower = clopper_pearson_upper(k, n, delta), clopper_pearson_lower(k, n, delta)
    assert 0.0 <= lower <= upper <= 1.0
    if n == 0:
        assert (lower, upper) == (0.0, 1.0)
        return
    assert lower <= k / n <= upper
    if k < n:  # the largest rate under which k or fewer of n is still as likely as delta
        assert binom.cdf(k, n, upper) == pytest.approx(delta, rel=1e-6)
    else:
        assert upper == 1.0
    if k > 0:  # the smallest rate under which k or more of n is still as likely as delta
        assert binom.sf(k - 1, n, lower) == pytest.approx(delta, rel=1e-6)
    else:
        assert lower == 0.0


@given(seen(), DELTAS)
def test_clopper_pearson_is_scipys_one_sided_exact_interval(case: tuple[int, int], delta: float) -> None:
    k, n = case
    assume(n > 0)
    upper = binomtest(k, n, alternative="less").proportion_ci(confidence_level=1 - delta, method="exact").high
    lower = binomtest(k, n, alternative="greater").proportion_ci(confidence_level=1 - delta, method="exact").low
    assert clopper_pearson_upper(k, n, delta) == pytest.approx(upper, rel=1e-6, abs=1e-12)
    assert clopper_pearson_lower(k, n, delta) == pytest.approx(lower, rel=1e-6, abs=1e-12)


@given(seen(), DELTAS, st.floats(min_value=0.0, max_value=0.3))
def test_clopper_pearson_bounds_move_with_the_count_and_loosen_with_smaller_delta(
    case: tuple[int, int], delta: float, less: float
) -> None:
    k, n = case
    if k < n:
        assert clopper_pearson_upper(k + 1, n, delta) >= clopper_pearson_upper(k, n, delta)
        assert clopper_pearson_lower(k + 1, n, delta) >= clopper_pearson_lower(k, n, delta)
    stricter = max(delta - less, 0.0005)
    assert clopper_pearson_upper(k, n, stricter) >= clopper_pearson_upper(k, n, delta)
    assert clopper_pearson_lower(k, n, stricter) <= clopper_pearson_lower(k, n, delta)


@given(st.floats(min_value=0.01, max_value=0.5), DELTAS)
@example(0.1, 0.05)
def test_minimum_accepted_is_the_fewest_opinions_whose_bound_can_reach_alpha(alpha: float, delta: float) -> None:
    fewest = minimum_accepted(alpha, delta)
    assert clopper_pearson_upper(0, fewest, delta) <= alpha + 1e-12
    if fewest > 1:
        assert clopper_pearson_upper(0, fewest - 1, delta) > alpha - 1e-12
