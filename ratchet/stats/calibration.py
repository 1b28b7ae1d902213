"""Trust or Escalate: the lowest confidence threshold at which a judge tier's accepted opinions
agree with the human label at least 1 - alpha of the time, with probability 1 - delta.

Fixed sequence testing (Jung et al. 2024, after Bates et al.'s Learn-then-Test): thresholds are
tested from high to low; at each, H0 "the disagreement rate of the opinions accepted at this
threshold exceeds alpha" is rejected when the one-sided Clopper-Pearson upper bound on that rate
is <= alpha. Testing stops at the first threshold not rejected, and the choice is the lowest one
rejected. Because the order is fixed before testing, the family-wise error stays at delta
without a multiplicity correction: to reach a threshold, every higher one had to be rejected.
The grid starts where enough opinions are accepted for a rejection to be possible at all
(descending_grid says why).

An opinion is accepted at threshold t when its verdict is one the tier may settle with (regression,
pass or same, minus what the tier escalates whatever its confidence) and its confidence >= t. It
agrees when regression meets a regression label, or pass/same a label that is not a regression.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from typing import Protocol

from pydantic import BaseModel, Field

from ratchet.stats.intervals import clopper_pearson_upper

SETTLING_VERDICTS = ("regression", "pass", "same")
NEVER_ACCEPT_THRESHOLD = 1.0  # with ThresholdChoice.never_accept: stands for "above every confidence"
GRID_STEP = 0.01


class JudgedPair(Protocol):
    """What calibration reads of a labeled opinion (ratchet.bench.report.labeled.LabeledOpinion has it)."""

    @property
    def verdict(self) -> str | None: ...

    @property
    def confidence(self) -> float: ...

    @property
    def label_regression(self) -> bool: ...


class SequenceStep(BaseModel):
    """One threshold of the sequence and the test at it."""

    threshold: float = Field(description="Opinions at or above this confidence are accepted.")
    accepted: int = Field(description="Calibration opinions accepted at this threshold.")
    errors: int = Field(description="Accepted opinions that disagree with the label.")
    upper_bound: float = Field(description="One-sided (1 - delta) Clopper-Pearson upper bound on errors / accepted.")
    rejected: bool = Field(description="H0 (disagreement rate > alpha) rejected: upper_bound <= alpha.")


class ThresholdChoice(BaseModel):
    """The outcome of fixed sequence testing for one tier."""

    threshold: float = Field(description="The lowest rejected threshold; NEVER_ACCEPT_THRESHOLD when none was.")
    rejected: bool = Field(description="Guarantee met: at least one threshold was rejected.")
    never_accept: bool = Field(
        description="No threshold passed: the tier must never settle a pair "
        "(threshold 1.0 stands for 1.01, above every confidence)."
    )
    accepted: int = Field(description="Calibration opinions accepted at the chosen threshold (0 when never_accept).")
    errors: int = Field(description="Of those, how many disagree with the label.")
    upper_bound: float | None = Field(description="The bound at the chosen threshold; None when never_accept.")
    steps: list[SequenceStep] = Field(description="Every threshold tested, high to low, up to the first not rejected.")


def settles(opinion: JudgedPair, *, escalated: Collection[str] = ()) -> bool:
    """Whether the opinion's verdict is one the tier may settle a pair with (an error opinion never does)."""
    return opinion.verdict in SETTLING_VERDICTS and opinion.verdict not in escalated


def agrees(opinion: JudgedPair) -> bool:
    """Regression against a regression label, or pass/same against any other label."""
    if opinion.verdict == "regression":
        return opinion.label_regression
    return opinion.verdict in ("pass", "same") and not opinion.label_regression


def accepted_at(
    opinions: Iterable[JudgedPair], threshold: float, *, escalated: Collection[str] = (), never_accept: bool = False
) -> list[JudgedPair]:
    """The opinions a tier would settle with at `threshold` (none when never_accept)."""
    if never_accept:
        return []
    return [o for o in opinions if settles(o, escalated=escalated) and o.confidence >= threshold]


def minimum_accepted(alpha: float, delta: float) -> int:
    """The fewest accepted opinions whose bound can reach alpha: with none wrong, 1 - delta ** (1 / n) <= alpha."""
    return max(1, math.ceil(math.log(delta) / math.log(1.0 - alpha) - 1e-9))


def descending_grid(
    opinions: Sequence[JudgedPair], *, escalated: Collection[str] = (), min_accepted: int = 1
) -> list[float]:
    """The thresholds to test: settling opinions' confidences floored to 0.01, distinct, high to low,
    from the highest at which at least `min_accepted` opinions are accepted.

    Why these: a threshold accepting fewer than minimum_accepted(alpha, delta) opinions cannot be
    rejected whatever its errors, so starting above it would stop the sequence at once (a fixed
    0.99..0.50 grid would, for a judge whose answers top out at 0.9). The reference implementation
    of Jung et al. trims its grid the same way (at least 30 accepted). Flooring to 0.01 caps the
    grid at 101 values, gives thresholds a config can quote, and keeps every opinion accepted at
    its own grid value. The grid reads only confidences, never whether an opinion was right.
    """
    settling = [o.confidence for o in opinions if settles(o, escalated=escalated)]
    floors = sorted({math.floor(c / GRID_STEP + 1e-9) for c in settling}, reverse=True)
    grid = [round(step * GRID_STEP, 2) for step in floors]
    return [t for t in grid if sum(1 for c in settling if c >= t) >= min_accepted]


def fixed_sequence_threshold(
    opinions: Sequence[JudgedPair],
    *,
    alpha: float,
    delta: float,
    grid: Sequence[float] | None = None,
    escalated: Collection[str] = (),
) -> ThresholdChoice:
    """Test `grid` (default: descending_grid of the opinions, trimmed to minimum_accepted) from high to low.

    `escalated` are verdicts the tier escalates whatever its confidence (its TierStep.escalate_on):
    they are never accepted, so they are not part of what the guarantee covers.
    """
    for name, value in (("alpha", alpha), ("delta", delta)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"{name} must be strictly between 0 and 1, got {value}")
    if grid is None:
        grid = descending_grid(opinions, escalated=escalated, min_accepted=minimum_accepted(alpha, delta))
    thresholds = sorted(grid, reverse=True)
    steps: list[SequenceStep] = []
    for threshold in thresholds:
        accepted = accepted_at(opinions, threshold, escalated=escalated)
        errors = sum(1 for o in accepted if not agrees(o))
        upper = clopper_pearson_upper(errors, len(accepted), delta)
        steps.append(
            SequenceStep(
                threshold=threshold, accepted=len(accepted), errors=errors, upper_bound=upper, rejected=upper <= alpha
            )
        )
        if not steps[-1].rejected:
            break
    passed = [s for s in steps if s.rejected]
    if not passed:
        return ThresholdChoice(
            threshold=NEVER_ACCEPT_THRESHOLD,
            rejected=False,
            never_accept=True,
            accepted=0,
            errors=0,
            upper_bound=None,
            steps=steps,
        )
    chosen = passed[-1]
    return ThresholdChoice(
        threshold=chosen.threshold,
        rejected=True,
        never_accept=False,
        accepted=chosen.accepted,
        errors=chosen.errors,
        upper_bound=chosen.upper_bound,
        steps=steps,
    )


class HeldOutCheck(BaseModel):
    """A chosen threshold applied to opinions it was not chosen on."""

    opinions: int = Field(description="Held-out opinions of this tier (pairs it was asked about).")
    accepted: int = Field(description="Of those, the ones it settles at the chosen threshold.")
    agreed: int = Field(description="Accepted opinions that agree with the label.")
    coverage: float | None = Field(description="accepted / opinions; None with no opinions.")
    agreement: float | None = Field(description="agreed / accepted; None when nothing was accepted.")
    meets_target: bool | None = Field(description="agreement >= 1 - alpha; None when nothing was accepted.")


def held_out_check(
    opinions: Sequence[JudgedPair], choice: ThresholdChoice, *, alpha: float, escalated: Collection[str] = ()
) -> HeldOutCheck:
    """Coverage and empirical agreement of `choice` on held-out opinions."""
    accepted = accepted_at(opinions, choice.threshold, escalated=escalated, never_accept=choice.never_accept)
    agreed = sum(1 for o in accepted if agrees(o))
    agreement = agreed / len(accepted) if accepted else None
    return HeldOutCheck(
        opinions=len(opinions),
        accepted=len(accepted),
        agreed=agreed,
        coverage=len(accepted) / len(opinions) if opinions else None,
        agreement=agreement,
        # The slack absorbs float rounding (9/10 against 1 - 0.1), never a real shortfall.
        meets_target=None if agreement is None else agreement >= 1.0 - alpha - 1e-12,
    )
