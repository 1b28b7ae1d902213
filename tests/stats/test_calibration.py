from __future__ import annotations

from dataclasses import dataclass

import pytest

from ratchet.stats.calibration import (
    accepted_at,
    agrees,
    descending_grid,
    fixed_sequence_threshold,
    held_out_check,
    minimum_accepted,
)


@dataclass(frozen=True)
class Judged:
    """A labeled opinion as calibration reads it."""

    verdict: str | None
    confidence: float
    label_regression: bool


def right(confidence: float, count: int, verdict: str = "regression") -> list[Judged]:
    return [Judged(verdict, confidence, verdict == "regression")] * count


def wrong(confidence: float, count: int, verdict: str = "regression") -> list[Judged]:
    return [Judged(verdict, confidence, verdict != "regression")] * count


@pytest.mark.parametrize(
    ("verdict", "label_regression", "expected"),
    [
        ("regression", True, True),
        ("regression", False, False),
        ("pass", False, True),
        ("same", False, True),
        ("pass", True, False),
        ("same", True, False),
        ("unsure", False, False),
        (None, True, False),
    ],
)
def test_agreement_is_regression_against_regression_else_not(
    verdict: str | None, label_regression: bool, expected: bool
) -> None:
    assert agrees(Judged(verdict, 0.9, label_regression)) is expected


def test_all_correct_confident_opinions_reach_the_lowest_threshold() -> None:
    opinions = [o for c in (0.95, 0.9, 0.8, 0.7, 0.6, 0.5) for o in right(c, 30)]
    choice = fixed_sequence_threshold(opinions, alpha=0.1, delta=0.1)
    assert (choice.threshold, choice.rejected, choice.never_accept) == (0.5, True, False)
    assert (choice.accepted, choice.errors) == (180, 0)
    assert [s.threshold for s in choice.steps] == [0.95, 0.9, 0.8, 0.7, 0.6, 0.5]
    # 0 errors in 30: the bound is 1 - delta ** (1 / 30).
    assert choice.steps[0].upper_bound == pytest.approx(1 - 0.1 ** (1 / 30))


def test_errors_below_0_7_stop_the_sequence_at_0_7() -> None:
    opinions = [o for c in (0.9, 0.8, 0.7) for o in right(c, 30)]
    opinions += [o for c in (0.6, 0.5) for o in right(c, 15, "pass") + wrong(c, 15, "pass")]
    choice = fixed_sequence_threshold(opinions, alpha=0.1, delta=0.1)
    assert (choice.threshold, choice.rejected, choice.accepted, choice.errors) == (0.7, True, 90, 0)
    assert [(s.threshold, s.accepted, s.errors, s.rejected) for s in choice.steps] == [
        (0.9, 30, 0, True),
        (0.8, 60, 0, True),
        (0.7, 90, 0, True),
        (0.6, 120, 15, False),
    ]


def test_a_miscalibrated_judge_fails_the_guarantee() -> None:
    opinions = wrong(0.95, 40) + right(0.6, 200)
    choice = fixed_sequence_threshold(opinions, alpha=0.1, delta=0.1)
    assert (choice.rejected, choice.never_accept, choice.threshold, choice.accepted) == (False, True, 1.0, 0)
    assert choice.upper_bound is None
    assert [(s.threshold, s.accepted, s.errors, s.rejected) for s in choice.steps] == [(0.95, 40, 40, False)]


def test_too_few_opinions_cannot_be_trusted() -> None:
    # 21 right answers bound the error rate at 1 - 0.1 ** (1 / 21) = 0.104 > 0.1: no threshold is even tried.
    assert minimum_accepted(0.1, 0.1) == 22
    choice = fixed_sequence_threshold(right(0.9, 21), alpha=0.1, delta=0.1)
    assert (choice.rejected, choice.never_accept, choice.steps) == (False, True, [])
    assert fixed_sequence_threshold(right(0.9, 22), alpha=0.1, delta=0.1).rejected


def test_the_grid_starts_where_a_rejection_is_possible() -> None:
    # A few perfect answers at 0.99 would stop an untrimmed sequence before the solid block at 0.9.
    opinions = right(0.99, 3) + right(0.9, 40) + right(0.8, 40)
    choice = fixed_sequence_threshold(opinions, alpha=0.1, delta=0.1)
    assert [s.threshold for s in choice.steps] == [0.9, 0.8]
    assert (choice.threshold, choice.accepted) == (0.8, 83)
    assert descending_grid(opinions, min_accepted=44) == [0.8]


def test_an_explicit_grid_above_every_confidence_stops_at_once() -> None:
    choice = fixed_sequence_threshold(right(0.8, 50), alpha=0.1, delta=0.1, grid=[0.7, 0.99, 0.8])
    assert [(s.threshold, s.accepted, s.rejected) for s in choice.steps] == [(0.99, 0, False)]
    assert choice.never_accept


def test_unsure_errors_and_escalated_verdicts_are_never_accepted() -> None:
    opinions = [Judged("unsure", 0.99, True), Judged(None, 0.99, True), *right(0.9, 2), *right(0.8, 1, "pass")]
    assert len(accepted_at(opinions, 0.0)) == 3
    assert accepted_at(opinions, 0.0, escalated=("unsure", "regression")) == right(0.8, 1, "pass")
    # Nano in the cascade escalates every regression: its wrong regressions do not count against it.
    nano = wrong(0.97, 40) + right(0.9, 30, "pass")
    choice = fixed_sequence_threshold(nano, alpha=0.1, delta=0.1, escalated=("unsure", "regression"))
    assert (choice.threshold, choice.rejected, choice.accepted) == (0.9, True, 30)


def test_grid_is_distinct_floored_confidences_high_to_low() -> None:
    opinions = [
        Judged("pass", 0.876, False),
        Judged("regression", 0.87, True),
        Judged("same", 0.5, False),
        Judged("unsure", 0.99, False),
        Judged("regression", 1.0, True),
    ]
    assert descending_grid(opinions) == [1.0, 0.87, 0.5]
    assert descending_grid(opinions, escalated=("regression",)) == [0.87, 0.5]


def test_held_out_coverage_and_agreement() -> None:
    calibration = [o for c in (0.9, 0.8) for o in right(c, 30)]
    choice = fixed_sequence_threshold(calibration, alpha=0.1, delta=0.1)
    held_out = right(0.9, 8) + wrong(0.85, 1) + right(0.5, 3) + [Judged("unsure", 0.99, False)]
    check = held_out_check(held_out, choice, alpha=0.1)
    assert (check.opinions, check.accepted, check.agreed) == (13, 9, 8)
    assert (check.coverage, check.agreement, check.meets_target) == (9 / 13, 8 / 9, False)
    assert held_out_check(right(0.9, 9) + wrong(0.9, 1), choice, alpha=0.1).meets_target is True


def test_held_out_of_a_never_accept_tier_settles_nothing() -> None:
    choice = fixed_sequence_threshold(wrong(0.95, 40), alpha=0.1, delta=0.1)
    check = held_out_check(right(1.0, 5), choice, alpha=0.1)
    assert (check.accepted, check.coverage, check.agreement, check.meets_target) == (0, 0.0, None, None)
    assert held_out_check([], choice, alpha=0.1).coverage is None


@pytest.mark.parametrize(("alpha", "delta", "name"), [(0.0, 0.1, "alpha"), (0.1, 1.0, "delta")])
def test_alpha_or_delta_outside_the_unit_interval_is_refused(alpha: float, delta: float, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        fixed_sequence_threshold(right(0.9, 30), alpha=alpha, delta=delta)
