"""The stratified exact test (ratchet.stats.stratified): the convolution of each stratum's hypergeometric is the
exact null distribution of the summed count, checked against brute-force enumeration of every table and, for one
stratum, against Fisher's own test."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratchet.stats.binomial import fisher_greater
from ratchet.stats.stratified import Stratum, null_weights, stratified_greater, stratified_min_p, varying


@st.composite
def stratum(draw: st.DrawFn, most: int = 6) -> Stratum:
    k, n = draw(st.integers(0, most)), draw(st.integers(0, most))
    return draw(st.integers(0, k)), k, draw(st.integers(0, n)), n


def _hypergeometric(s: Stratum) -> dict[int, Fraction]:
    """P(r = x) given the stratum's margins, by counting: which x of the k draws are among the r + f fires."""
    r, k, f, n = s
    fires, runs = r + f, k + n
    return {
        x: Fraction(comb(fires, x) * comb(runs - fires, k - x), comb(runs, k))
        for x in range(0, k + 1)
        if comb(fires, x) * comb(runs - fires, k - x)
    }


def _brute_force(strata: list[Stratum]) -> Fraction:
    """P(sum of r_i >= observed) by enumerating every joint outcome of the strata."""
    observed = sum(s[0] for s in strata)
    tail = Fraction(0)
    for outcome in product(*(_hypergeometric(s).items() for s in strata)):
        chance = Fraction(1)
        for _, p in outcome:
            chance *= p
        if sum(x for x, _ in outcome) >= observed:
            tail += chance
    return tail


@given(st.lists(stratum(), min_size=1, max_size=4))
def test_the_p_value_is_the_exact_tail_of_every_joint_outcome(strata: list[Stratum]) -> None:
    assert stratified_greater(strata) == pytest.approx(float(_brute_force(strata)), rel=1e-12)


@given(stratum(most=40))
def test_one_stratum_is_fishers_exact_test(s: Stratum) -> None:
    assert stratified_greater([s]) == pytest.approx(fisher_greater(*s), rel=1e-12)


@given(st.lists(stratum(), min_size=1, max_size=5))
def test_the_null_distribution_sums_to_one_and_the_smallest_p_is_the_product_of_each_strata_s(
    strata: list[Stratum],
) -> None:
    _, weights, total = null_weights(strata)
    assert sum(weights) == total
    smallest = 1.0
    for r, k, f, n in strata:
        most = min(k, r + f)
        smallest *= fisher_greater(most, k, r + f - most, n)
    assert stratified_min_p(strata) == pytest.approx(smallest, rel=1e-12)
    assert 0.0 < stratified_min_p(strata) <= stratified_greater(strata) <= 1.0


@given(st.lists(stratum(), min_size=1, max_size=4), stratum())
def test_a_stratum_fixed_by_its_margins_changes_nothing(strata: list[Stratum], extra: Stratum) -> None:
    r, k, f, n = extra
    fixed = (k, k, n, n) if (r + f) % 2 else (0, k, 0, n)  # every run fired, or none did
    assert stratified_greater([*strata, fixed]) == pytest.approx(stratified_greater(strata), rel=1e-12)
    assert varying([*strata, fixed]) == varying(strata)


def test_thirteen_full_flips_at_five_runs_are_one_tiny_p_value() -> None:
    """Each 5 of 5 against 0 of 5 is p = 1/252 alone; together, only every one at its extreme is as extreme."""
    p = stratified_greater([(5, 5, 0, 5)] * 13)
    assert p == pytest.approx((1 / 252) ** 13, rel=1e-12)
    assert stratified_min_p([(5, 5, 0, 5)] * 13) == p


def test_counts_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="out of range"):
        stratified_greater([(3, 2, 0, 5)])
