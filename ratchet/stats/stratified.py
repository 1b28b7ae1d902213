"""A stratified exact test: several 2x2 tables read as one, each on its own margins (docs/adr/0025).

Each stratum is one 2x2 table, r of k against f of n, as `fisher_greater` reads one (ratchet.stats.binomial):
here, one trigger query's fires at the side whose higher rate is the regression against the other side's. The
null hypothesis: within each stratum both sides share one rate; the rates may differ from stratum to stratum.
Conditional on every stratum's margins (its runs per side, its fires in all), the count r_i is hypergeometric
and the strata are independent, so the statistic T = sum of r_i has, under the null, the convolution of the
hypergeometrics as its exact distribution: no approximation, however few runs. The one-sided p-value is
P(T >= observed): a single stratum gives exactly fisher_greater.

Why a sum: an edit that moves many strata a little, or many a lot at few runs each, is judged on all of them
at once, where one test per stratum (corrected for their number) can miss it: at 5 runs a side a full flip,
5 of 5 against 0 of 5, has p = 1/252 alone, and thirteen of them fail Holm's first step at 0.05 / 13.

Exact arithmetic: the weights are integers (products of binomial coefficients) and the p-value is one
integer ratio, so the result is the correctly rounded float of the exact probability. A stratum with all or
none of its runs firing is a constant (its r_i cannot vary) and only shifts T.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

Stratum = tuple[int, int, int, int]
"""(r, k, f, n): r of k at the side whose higher rate is tested, against f of n, as `fisher_greater` reads it."""


def _checked(stratum: Stratum) -> Stratum:
    r, k, f, n = stratum
    if not (0 <= r <= k and 0 <= f <= n):
        raise ValueError(f"counts out of range: {r} of {k}, {f} of {n}")
    return stratum


def _support(stratum: Stratum) -> tuple[int, list[int]]:
    """The smallest value r can take given the margins, and the hypergeometric weights from there on (each
    C(successes, x) * C(failures, k - x); they sum to C(k + n, k))."""
    r, k, f, n = _checked(stratum)
    successes, failures = r + f, k + n - r - f
    low, high = max(0, k - failures), min(k, successes)
    return low, [comb(successes, x) * comb(failures, k - x) for x in range(low, high + 1)]


def null_weights(strata: Sequence[Stratum]) -> tuple[int, list[int], int]:
    """The null distribution of T = sum of r_i: (offset, weights, total) with P(T = offset + j) =
    weights[j] / total, exactly. A varying stratum widens the support; a fixed one only shifts it."""
    offset, weights, total = 0, [1], 1
    for stratum in strata:
        low, own = _support(stratum)
        offset += low
        if len(own) == 1:
            continue  # fixed by its margins: a constant, P = 1
        spread = [0] * (len(weights) + len(own) - 1)
        for i, a in enumerate(weights):
            for j, b in enumerate(own):
                spread[i + j] += a * b
        weights, total = spread, total * sum(own)
    return offset, weights, total


def stratified_greater(strata: Sequence[Stratum]) -> float:
    """One-sided exact p-value that the r_i, summed over the strata, are this high by luck: P(T >= sum of r_i)
    under the null, conditional on every stratum's margins. One stratum: fisher_greater(r, k, f, n)."""
    offset, weights, total = null_weights(strata)
    observed = sum(r for r, _, _, _ in strata) - offset
    return sum(weights[observed:]) / total


def stratified_min_p(strata: Sequence[Stratum]) -> float:
    """The smallest p-value any split of each stratum's fires could give (Tarone): every r_i at its most, the
    product of the strata's own smallest p-values. Above alpha, the strata can never reject at alpha."""
    _, weights, total = null_weights(strata)
    return weights[-1] / total


def varying(strata: Sequence[Stratum]) -> int:
    """How many strata can vary given their margins (the others are constants of T)."""
    return sum(1 for stratum in strata if len(_support(stratum)[1]) > 1)
