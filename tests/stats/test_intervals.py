"""Known values and defining properties of the binomial intervals in ratchet.stats.intervals."""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Callable

import pytest

from ratchet.stats.intervals import clopper_pearson_lower, clopper_pearson_upper, wilson_interval


def _binom_cdf(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def test_wilson_eight_of_ten_at_95() -> None:
    lower, upper = wilson_interval(8, 10)
    assert lower == pytest.approx(0.4902, abs=5e-4)
    assert upper == pytest.approx(0.9433, abs=5e-4)


def test_wilson_narrows_with_confidence_and_n() -> None:
    lo95, hi95 = wilson_interval(8, 10, 0.95)
    lo80, hi80 = wilson_interval(8, 10, 0.80)
    assert lo95 < lo80 < 0.8 < hi80 < hi95
    lo_big, hi_big = wilson_interval(80, 100)
    assert hi_big - lo_big < hi95 - lo95


def test_wilson_ends_are_exact() -> None:
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 10)[1] == pytest.approx(0.2775, abs=5e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_clopper_pearson_zero_of_ten_has_closed_form() -> None:
    assert clopper_pearson_upper(0, 10, 0.05) == pytest.approx(1 - 0.05 ** (1 / 10), abs=1e-12)
    assert clopper_pearson_upper(0, 10, 0.05) == pytest.approx(0.2589, abs=1e-4)
    assert clopper_pearson_lower(10, 10, 0.05) == pytest.approx(0.05 ** (1 / 10), abs=1e-12)


@pytest.mark.parametrize(("k", "n", "delta"), [(3, 20, 0.05), (7, 12, 0.1), (1, 50, 0.01)])
def test_clopper_pearson_bounds_invert_the_binomial_tail(k: int, n: int, delta: float) -> None:
    upper = clopper_pearson_upper(k, n, delta)
    lower = clopper_pearson_lower(k, n, delta)
    assert _binom_cdf(k, n, upper) == pytest.approx(delta, abs=1e-9)
    assert 1 - _binom_cdf(k - 1, n, lower) == pytest.approx(delta, abs=1e-9)
    assert lower < k / n < upper


def test_clopper_pearson_degenerate_counts() -> None:
    assert clopper_pearson_upper(0, 0, 0.05) == 1.0
    assert clopper_pearson_upper(5, 5, 0.05) == 1.0
    assert clopper_pearson_lower(0, 0, 0.05) == 0.0
    assert clopper_pearson_lower(0, 5, 0.05) == 0.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: wilson_interval(11, 10),
        lambda: wilson_interval(-1, 10),
        lambda: wilson_interval(1, 10, 1.0),
        lambda: clopper_pearson_upper(1, 10, 0.0),
        lambda: clopper_pearson_lower(1, 10, 1.0),
        lambda: clopper_pearson_lower(3, 2, 0.05),
    ],
)
def test_bad_arguments_raise(call: Callable[[], object]) -> None:
    with pytest.raises(ValueError):
        call()


def test_importing_the_module_does_not_import_scipy() -> None:
    code = "import sys, ratchet.stats.intervals; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
