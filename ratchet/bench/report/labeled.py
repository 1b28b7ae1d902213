"""Judge opinions paired with the label of the pair they judged: what judge rates and calibration read.

A labeled opinion is one tier's non-error, non-swapped opinion on a pair whose task the edit's label
names. The label is binary: the pair is labeled `regression` (positive) or it is not (negative:
same, pass, drift). A pair labeled `unsure` or `error` (only a reviewer's `--pair` can say so) is
left out: it is not ground truth in either direction.

The E6 noise run's replays of the unchanged skills are negatives by construction (nothing changed,
so no difference is a regression): they are the only pairs labeled not-regression that reach the
judges in a bench whose edits are scored by Level 0 first (an unchanged pair is `same` and never
judged). They are included unless `unchanged=False`, marked origin "unchanged".

Labels come from one of two places. Given the labels file (and its reviews), a current disagreeing
review's corrected pairs win (ratchet.bench.build.labels.effective_labels), so a review written after
the run counts. Given none, each scored edit's own `expected_pairs` are used: the effective labels
the run was scored against. `ratchet review` adds no third source: a verdict page is read only, and
the store keeps no reviewed pair outcomes (only the bench's labels/reviews.json carries them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from pydantic import BaseModel, Field

from ratchet.bench.build.labels import effective_labels
from ratchet.bench.data.models import BENCH_SCHEMA_VERSION, Label, Review
from ratchet.bench.data.results import BenchConfigRun, BenchResults
from ratchet.config.gate import JudgeVerdict
from ratchet.gate.models import Opinion, Outcome

JUDGE_TIERS: tuple[str, ...] = ("nano", "super", "ultra")
SINGLE_TIER_RUNS: dict[str, str] = {"nano": "nano_only", "super": "super_only", "ultra": "ultra_only"}
FALLBACK_RUN = "cascade"
NOT_GROUND_TRUTH: tuple[Outcome, ...] = ("unsure", "error")
UNCHANGED_EDIT = "unchanged#"


class LabeledOpinion(BaseModel):
    """One tier's opinion on one labeled pair, with the label it is scored against."""

    schema_version: int = BENCH_SCHEMA_VERSION
    config: str = Field(description="The configuration (run) whose verdict holds the opinion.")
    edit_id: str = Field(description="The labeled edit; for an unchanged-skill replay unchanged#<replay index>.")
    task_id: str
    tier: str
    label_regression: bool = Field(description="True: the pair is labeled regression; False: same, pass or drift.")
    verdict: JudgeVerdict
    confidence: float = Field(ge=0.0, le=1.0)
    origin: Literal["label", "unchanged"] = Field(
        default="label", description="label: the edit's pair label; unchanged: an E6 replay of the unchanged skill."
    )


def _scored_labels(run: BenchConfigRun) -> dict[str, dict[str, Outcome]]:
    return {edit_id: edit.expected_pairs for edit_id, edit in run.edits.items()}


def _judged(opinions: Iterable[Opinion]) -> list[Opinion]:
    # The swapped-order second look checks position bias; counting it would count the pair twice.
    return [o for o in opinions if o.verdict is not None and not getattr(o, "swapped", False)]


def _unchanged_opinions(run: BenchConfigRun) -> list[LabeledOpinion]:
    found: list[LabeledOpinion] = []
    for task_id in sorted(run.noise):
        for index, pair in enumerate(run.noise[task_id].outcomes):
            found += [
                LabeledOpinion(
                    config=run.config,
                    edit_id=f"{UNCHANGED_EDIT}{index}",
                    task_id=task_id,
                    tier=o.tier,
                    label_regression=False,
                    verdict=o.verdict,
                    confidence=o.confidence,
                    origin="unchanged",
                )
                for o in _judged(pair.opinions)
                if o.verdict is not None
            ]
    return found


def _run_opinions(run: BenchConfigRun, pair_labels: Mapping[str, Mapping[str, Outcome]]) -> list[LabeledOpinion]:
    found: list[LabeledOpinion] = []
    for edit_id in sorted(run.edits):
        expected = pair_labels.get(edit_id)
        if expected is None:
            continue
        for pair in run.edits[edit_id].verdict.pairs:
            outcome = expected.get(pair.task_id)
            if outcome is None or outcome in NOT_GROUND_TRUTH:
                continue
            found += [
                LabeledOpinion(
                    config=run.config,
                    edit_id=edit_id,
                    task_id=pair.task_id,
                    tier=o.tier,
                    label_regression=outcome == "regression",
                    verdict=o.verdict,
                    confidence=o.confidence,
                )
                for o in _judged(pair.opinions)
                if o.verdict is not None
            ]
    return found


def labeled_opinions(
    results: BenchResults,
    labels: Mapping[str, Label] | None = None,
    reviews: Iterable[Review] = (),
    *,
    configs: Iterable[str] | None = None,
    unchanged: bool = True,
) -> list[LabeledOpinion]:
    """Every labeled opinion of every run (or of `configs`), sorted by config, edit, task, then tier.

    labels: edit id -> construction label, with `reviews` applied over it; None: the labels each
    scored edit carries (reviews are then already in them). unchanged: also the opinions on the
    runs' unchanged-skill (E6) replays, as negatives.
    """
    given = (
        None
        if labels is None
        else {edit_id: label.expected_pairs for edit_id, label in effective_labels(labels.values(), reviews).items()}
    )
    names = sorted(results.runs) if configs is None else sorted(c for c in set(configs) if c in results.runs)
    found: list[LabeledOpinion] = []
    for name in names:
        run = results.runs[name]
        found += _run_opinions(run, given if given is not None else _scored_labels(run))
        if unchanged:
            found += _unchanged_opinions(run)
    # Stable: opinions of one tier on one pair keep their escalation order.
    return sorted(found, key=lambda o: (o.config, o.edit_id, o.task_id, o.tier))


def tier_sources(results: BenchResults, *, unchanged: bool = True) -> dict[str, list[str]]:
    """Tier -> the runs its opinions are read from: its single-tier run when present, else the cascade run;
    then (unchanged) every run holding unchanged-skill replays.

    A single-tier run judges every pair that reaches the judges; the cascade's later tiers see only
    what an earlier tier escalated, a sample biased towards the hard pairs.
    """
    noise = [name for name in sorted(results.runs) if results.runs[name].noise] if unchanged else []
    sources: dict[str, list[str]] = {}
    for tier in JUDGE_TIERS:
        own = SINGLE_TIER_RUNS[tier]
        primary = own if own in results.runs else FALLBACK_RUN if FALLBACK_RUN in results.runs else None
        runs = ([primary] if primary is not None else []) + [n for n in noise if n != primary]
        if runs:
            sources[tier] = runs
    return sources


def labeled_opinions_by_tier(
    results: BenchResults,
    labels: Mapping[str, Label] | None = None,
    reviews: Iterable[Review] = (),
    *,
    unchanged: bool = True,
) -> dict[str, list[LabeledOpinion]]:
    """Tier -> its labeled opinions from the runs tier_sources names; tiers in nano, super, ultra order.

    A tier with no run to read from, or no labeled opinion in them, is left out.
    """
    reviews = list(reviews)
    by_tier: dict[str, list[LabeledOpinion]] = {}
    for tier, runs in tier_sources(results, unchanged=unchanged).items():
        mine = [
            o for o in labeled_opinions(results, labels, reviews, configs=runs, unchanged=unchanged) if o.tier == tier
        ]
        if mine:
            by_tier[tier] = mine
    return by_tier
