"""Binomial rate intervals: two-sided Wilson score intervals and one-sided Clopper-Pearson bounds.

Wilson is the interval the judge-rate tables show: it stays inside [0, 1] and behaves at small n and
at rates near 0 or 1, where the normal approximation does not. Clopper-Pearson is exact (it inverts
the binomial tail), so it is what a guarantee ("with probability 1 - delta the rate is at most u")
rests on. scipy is imported inside the Clopper-Pearson functions only: importing this module stays
cheap, and Wilson needs nothing beyond the standard library.
"""

from __future__ import annotations

import math
from statistics import NormalDist


def _check_counts(k: int, n: int) -> None:
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")


def _check_open_unit(name: str, value: float) -> None:
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {value}")


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Two-sided Wilson score interval for `successes` out of `n` at `confidence`.

    n == 0 says nothing about the rate, so the interval is the whole of (0.0, 1.0).
    """
    _check_counts(successes, n)
    _check_open_unit("confidence", confidence)
    if n == 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    # The ends are exact at 0 and n; rounding would otherwise leave 1e-17 where 0 is meant.
    lower = 0.0 if successes == 0 else max(0.0, centre - half)
    upper = 1.0 if successes == n else min(1.0, centre + half)
    return (lower, upper)


def clopper_pearson_upper(k: int, n: int, delta: float) -> float:
    """One-sided (1 - delta) Clopper-Pearson upper bound on a binomial rate seen as k of n.

    n == 0 and k == n leave the rate unbounded above, so the bound is 1.0.
    """
    _check_counts(k, n)
    _check_open_unit("delta", delta)
    if n == 0 or k == n:
        return 1.0
    from scipy.stats import beta  # type: ignore[import-untyped]

    return float(beta.ppf(1.0 - delta, k + 1, n - k))


def clopper_pearson_lower(k: int, n: int, delta: float) -> float:
    """One-sided (1 - delta) Clopper-Pearson lower bound on a binomial rate seen as k of n.

    n == 0 and k == 0 leave the rate unbounded below, so the bound is 0.0.
    """
    _check_counts(k, n)
    _check_open_unit("delta", delta)
    if n == 0 or k == 0:
        return 0.0
    from scipy.stats import beta

    return float(beta.ppf(delta, k, n - k + 1))
