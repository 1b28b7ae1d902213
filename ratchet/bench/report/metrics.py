"""The benchmark's metrics, one function each, over scored edits (see the seed's metric table).

Every rate is None when its denominator is empty (the report prints "n/a"), never 0.
Recall counts BLOCK or WARN; block recall counts BLOCK only. Costs are catalog-priced
(cache hits included), so they do not depend on what the response cache served.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field
from sklearn.metrics import cohen_kappa_score, recall_score

from ratchet.bench.data.models import CONTROL_TYPES, REGRESSION_TYPES
from ratchet.bench.data.results import BenchConfigRun, NoiseGolden, ScoredEdit

DETECTED = ("BLOCK", "WARN")
JUDGE_TIERS = ("nano", "super", "ultra")
PASSING = ("same", "pass")


class Stat(BaseModel):
    """Mean and 95th percentile of a sample; None when the sample is empty."""

    n: int = 0
    mean: float | None = None
    p95: float | None = None


def _stat(values: Sequence[float]) -> Stat:
    if not values:
        return Stat()
    return Stat(
        n=len(values),
        mean=round(float(np.mean(values)), 9),
        p95=round(float(np.percentile(values, 95, method="linear")), 9),
    )


def _recall(flags: Sequence[bool]) -> float | None:
    if not flags:
        return None
    return round(float(recall_score([1] * len(flags), [int(f) for f in flags], zero_division=0)), 6)


def _share(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 6) if flags else None


def _by_type(edits: Iterable[ScoredEdit], types: Sequence[str]) -> dict[str, list[ScoredEdit]]:
    groups: dict[str, list[ScoredEdit]] = {t: [] for t in types}
    for edit in edits:
        if edit.type in groups:
            groups[edit.type].append(edit)
    return groups


def _regressions(edits: Iterable[ScoredEdit]) -> list[ScoredEdit]:
    """Edits whose effective label says BLOCK (a reviewer's override included)."""
    return [e for e in edits if e.expected_decision == "BLOCK"]


def detection_recall(edits: Sequence[ScoredEdit]) -> dict[str, float | None]:
    """Share of regression edits decided BLOCK or WARN, per R type and overall."""
    out = {
        t: _recall([e.verdict.decision in DETECTED for e in group])
        for t, group in _by_type(_regressions(edits), REGRESSION_TYPES).items()
    }
    out["overall"] = _recall([e.verdict.decision in DETECTED for e in _regressions(edits)])
    return out


def block_recall(edits: Sequence[ScoredEdit]) -> dict[str, float | None]:
    """Share of regression edits decided BLOCK, per R type and overall."""
    out = {
        t: _recall([e.verdict.decision == "BLOCK" for e in group])
        for t, group in _by_type(_regressions(edits), REGRESSION_TYPES).items()
    }
    out["overall"] = _recall([e.verdict.decision == "BLOCK" for e in _regressions(edits)])
    return out


def false_block_rate(edits: Sequence[ScoredEdit]) -> dict[str, float | None]:
    """Share of harmless edits (effective label PASS) decided BLOCK: N0, D1, F0 and all controls."""
    harmless = [e for e in edits if e.expected_decision == "PASS"]
    out = {
        t: _share([e.verdict.decision == "BLOCK" for e in group])
        for t, group in _by_type(harmless, CONTROL_TYPES).items()
    }
    out["controls"] = _share([e.verdict.decision == "BLOCK" for e in harmless if e.type in CONTROL_TYPES])
    return out


def false_warn_rate(edits: Sequence[ScoredEdit]) -> float | None:
    """Share of N0 edits (effective label PASS) decided WARN."""
    return _share([e.verdict.decision == "WARN" for e in edits if e.type == "N0" and e.expected_decision == "PASS"])


def drift_accuracy(edits: Sequence[ScoredEdit]) -> float | None:
    """Share of D1 edits that passed with every labeled drift pair that differed judged drift.

    A labeled pair whose replay happened not to differ (`same`) is not a miss.
    """
    flags: list[bool] = []
    for edit in edits:
        if edit.type != "D1":
            continue
        outcomes = {p.task_id: p.outcome for p in edit.verdict.pairs}
        labeled = [t for t, o in edit.expected_pairs.items() if o == "drift"]
        ok = edit.verdict.decision == "PASS" and all(outcomes.get(t) in ("drift", "same") for t in labeled)
        flags.append(ok)
    return _share(flags)


def cost_per_verdict(edits: Sequence[ScoredEdit]) -> dict[str, Stat]:
    """USD per verdict at catalog prices, by tier (agent, nano, super, ultra) and in total."""
    tiers = sorted({t for e in edits for t in e.usage})
    out = {t: _stat([e.usage[t].usd if t in e.usage else 0.0 for e in edits]) for t in tiers}
    out["total"] = _stat([sum(u.usd for u in e.usage.values()) for e in edits])
    return out


def all_ultra_cost(edits: Sequence[ScoredEdit], prices: Mapping[str, Sequence[float]]) -> Stat:
    """USD per verdict had Ultra alone judged every judged pair once (the agent's replays as they were)."""
    unit = prices.get("ultra", [0.0, 0.0])
    values = []
    for edit in edits:
        total = edit.usage["agent"].usd if "agent" in edit.usage else 0.0
        for pair in edit.verdict.pairs:
            # Once per replay judged: a swapped-order ask (swap_check) is the second call of the same judgement.
            opinions = [o for o in pair.opinions if not o.swapped]
            asked = [o for o in opinions if o.tier == "ultra"] or opinions[:1]
            total += sum(o.tokens_in * unit[0] + o.tokens_out * unit[1] for o in asked)
        values.append(total)
    return _stat(values)


def latency(wall_ms: Mapping[str, float]) -> Stat:
    """Edit-to-verdict wall time (ms): mean and p95, from timings.json (never results.json)."""
    return _stat(sorted(wall_ms.values()))


def _human(outcome: str) -> str:
    return "regression" if outcome == "regression" else "ok"


def judge_kappa(edits: Sequence[ScoredEdit]) -> dict[str, float | None]:
    """Cohen's kappa between each tier's opinions and the human (effective) pair labels.

    Labels: regression vs ok (same, pass, drift); an unsure opinion is its own category and
    an error opinion is left out. None when a tier gave no opinion on a labeled pair, or
    when both sides use a single category (kappa is undefined).
    """
    out: dict[str, float | None] = {}
    for tier in JUDGE_TIERS:
        truth: list[str] = []
        said: list[str] = []
        for edit in edits:
            for pair in edit.verdict.pairs:
                expected = edit.expected_pairs.get(pair.task_id)
                if expected is None:
                    continue
                for opinion in pair.opinions:
                    if opinion.tier == tier and opinion.verdict is not None and not opinion.swapped:
                        truth.append(_human(expected))
                        said.append("ok" if opinion.verdict in PASSING else opinion.verdict)
        if not truth or len(set(truth) | set(said)) < 2:
            out[tier] = None
            continue
        out[tier] = round(float(cohen_kappa_score(truth, said, labels=["ok", "regression", "unsure"])), 6)
    return out


def noise_floor(goldens: Iterable[NoiseGolden]) -> float | None:
    """E6: share of unchanged-skill replays judged pass (identical, or judged a pass)."""
    return _share([o.outcome in PASSING for g in goldens for o in g.outcomes])


class NoiseStats(BaseModel):
    """A run with noise records: what repeats cost and, for A/A checks, how often the gate cried wolf."""

    sim_noise: float
    bless_repeats: int
    goldens: int = Field(description="Goldens with a noise record.")
    goldens_varying: int = Field(description="Goldens whose own replays differed from them at least once.")
    flip_rate: Stat = Field(description="Per golden: repeats that differed / repeats.")
    pairs: int = Field(description="Pairs gated (A/A checks for the noise configuration).")
    repeated: int = Field(description="Pairs replayed more than once.")
    replays_per_pair: float | None
    cost_per_pair: float | None = Field(description="Mean catalog cost of a pair, every replay and judge included.")
    aa_checks: int = 0
    aa_false_block: float | None = Field(default=None, description="A/A checks that BLOCK (every one is false).")
    aa_warn: float | None = None


def noise_stats(run: BenchConfigRun) -> NoiseStats | None:
    """What the noise did in this run; None for a quiet run without noise records."""
    if not run.bless_repeats and not run.sim_noise:
        return None
    flips = [differed / repeats for differed, repeats in run.flips.values() if repeats]
    pairs = [p for e in run.edits.values() for p in e.verdict.pairs] + [
        o for g in run.noise.values() for o in g.outcomes
    ]
    replays = [p.repeats.replays if p.repeats is not None else 1 for p in pairs]
    decisions = [d for g in run.noise.values() for d in g.decisions]
    edit_costs = [
        sum(u.usd for u in e.usage.values()) / len(e.verdict.pairs) for e in run.edits.values() if e.verdict.pairs
    ]
    golden_costs = [sum(u.usd for u in g.usage.values()) / len(g.outcomes) for g in run.noise.values() if g.outcomes]
    costs = edit_costs + golden_costs
    return NoiseStats(
        sim_noise=run.sim_noise,
        bless_repeats=run.bless_repeats,
        goldens=len(run.flips),
        goldens_varying=sum(1 for differed, _ in run.flips.values() if differed),
        flip_rate=_stat(flips),
        pairs=len(pairs),
        repeated=sum(1 for r in replays if r > 1),
        replays_per_pair=round(sum(replays) / len(replays), 6) if replays else None,
        cost_per_pair=round(sum(costs) / len(costs), 9) if costs else None,
        aa_checks=len(decisions),
        aa_false_block=_share([d == "BLOCK" for d in decisions]),
        aa_warn=_share([d == "WARN" for d in decisions]),
    )


def prompt_cache_share(edits: Sequence[ScoredEdit]) -> dict[str, float | None]:
    """Share of prompt tokens the provider served from its prompt cache, overall and per tier."""
    totals: dict[str, list[int]] = {}
    for edit in edits:
        for tier, usage in edit.usage.items():
            row = totals.setdefault(tier, [0, 0])
            row[0] += usage.tokens_cached
            row[1] += usage.tokens_in
    out = {t: (round(c / n, 6) if n else None) for t, (c, n) in sorted(totals.items())}
    cached, prompt = sum(r[0] for r in totals.values()), sum(r[1] for r in totals.values())
    out["overall"] = round(cached / prompt, 6) if prompt else None
    return out


class PairLevel(BaseModel):
    """Pair outcomes against the labeled pair outcomes."""

    labeled_regressions: int = 0
    caught: int = Field(
        default=0, description="Labeled regression pairs judged regression (or unsure/inconclusive/error: flagged)."
    )
    labeled_clean: int = 0
    false_alarms: int = Field(default=0, description="Labeled same/pass/drift pairs judged regression.")
    recall: float | None = None
    false_alarm_rate: float | None = None


def pair_level(edits: Sequence[ScoredEdit]) -> PairLevel:
    """Pair-level recall and false-alarm rate against the labels' expected pair outcomes."""
    caught: list[bool] = []
    alarms: list[bool] = []
    for edit in edits:
        for pair in edit.verdict.pairs:
            expected = edit.expected_pairs.get(pair.task_id)
            if expected is None:
                continue
            if expected == "regression":
                caught.append(pair.outcome in ("regression", "unsure", "inconclusive", "error"))
            else:
                alarms.append(pair.outcome == "regression")
    return PairLevel(
        labeled_regressions=len(caught),
        caught=sum(caught),
        labeled_clean=len(alarms),
        false_alarms=sum(alarms),
        recall=_recall(caught),
        false_alarm_rate=_share(alarms),
    )


def decisions_by_type(edits: Sequence[ScoredEdit]) -> dict[str, dict[str, int]]:
    """How many edits of each type were decided PASS, WARN and BLOCK."""
    out: dict[str, dict[str, int]] = {}
    for edit in edits:
        row = out.setdefault(edit.type, {"PASS": 0, "WARN": 0, "BLOCK": 0})
        row[edit.verdict.decision] += 1
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class MetricFns:
    """The metric functions a summary uses; selftest swaps one out to prove it would notice."""

    detection_recall: Callable[[Sequence[ScoredEdit]], dict[str, float | None]] = detection_recall
    block_recall: Callable[[Sequence[ScoredEdit]], dict[str, float | None]] = block_recall
    false_block_rate: Callable[[Sequence[ScoredEdit]], dict[str, float | None]] = false_block_rate
    false_warn_rate: Callable[[Sequence[ScoredEdit]], float | None] = false_warn_rate
    drift_accuracy: Callable[[Sequence[ScoredEdit]], float | None] = drift_accuracy


DEFAULT_FNS = MetricFns()


class ConfigMetrics(BaseModel):
    """Every metric of one configuration's run."""

    config: str
    edits: int
    detection_recall: dict[str, float | None]
    block_recall: dict[str, float | None]
    false_block_rate: dict[str, float | None]
    false_warn_rate: float | None
    drift_accuracy: float | None
    cost: dict[str, Stat]
    all_ultra: Stat
    judge_kappa: dict[str, float | None]
    prompt_cache_share: dict[str, float | None]
    pair_level: PairLevel
    decisions: dict[str, dict[str, int]]
    noise_floor: float | None
    noise: NoiseStats | None = None


def summarize(
    run: BenchConfigRun, prices: Mapping[str, Sequence[float]], fns: MetricFns = DEFAULT_FNS
) -> ConfigMetrics:
    """All metrics of one configuration, in one object (what the report and compare print)."""
    edits = [run.edits[k] for k in sorted(run.edits)]
    return ConfigMetrics(
        config=run.config,
        edits=len(edits),
        detection_recall=fns.detection_recall(edits),
        block_recall=fns.block_recall(edits),
        false_block_rate=fns.false_block_rate(edits),
        false_warn_rate=fns.false_warn_rate(edits),
        drift_accuracy=fns.drift_accuracy(edits),
        cost=cost_per_verdict(edits),
        all_ultra=all_ultra_cost(edits, prices),
        judge_kappa=judge_kappa(edits),
        prompt_cache_share=prompt_cache_share(edits),
        pair_level=pair_level(edits),
        decisions=decisions_by_type(edits),
        noise_floor=noise_floor(run.noise.values()),
        noise=noise_stats(run),
    )
