"""`ratchet bench calibrate`: each judge tier's confidence threshold, chosen on labeled pairs (Trust or Escalate).

The order of operations, once:
1. Read the results directory (results.json, else summary.json: the reader `bench report` uses) and
   each tier's labeled opinions (ratchet.bench.report.labeled: a tier's single-tier run when there is one).
2. Split the labeled pairs, seeded and stratified by label, into train / calibration / held-out
   (0.2 / 0.4 / 0.4). A pair is keyed by edit and task, so every tier's opinion of it lands on the
   same side. Train is set aside unread, for confidence estimators fitted on it later.
3. Per tier of the base gate config: fixed sequence testing on the calibration split
   (ratchet.stats.calibration), then coverage and agreement of the chosen threshold on held-out.
4. Write calibration.json and calibration.md next to the results, and with `write` a gate config:
   the base with each tier's threshold replaced.

Everything written is a function of the results, the base config, alpha, delta and the seed.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from ratchet.bench.data.results import BenchResults
from ratchet.bench.data.summary import read_report_source
from ratchet.bench.report.labeled import LabeledOpinion, labeled_opinions_by_tier, tier_sources
from ratchet.config.gate import GateConfig, parse_gate_config, resolve_gate_config
from ratchet.core.errors import InputError
from ratchet.core.jsonio import atomic_write_text, canonical_dumps
from ratchet.stats.calibration import (
    HeldOutCheck,
    ThresholdChoice,
    fixed_sequence_threshold,
    held_out_check,
)

CALIBRATION_SCHEMA_VERSION = 1
CALIBRATION_FILE = "calibration.json"
CALIBRATION_REPORT = "calibration.md"
SPLIT_FRACTIONS: dict[str, float] = {"train": 0.2, "calibration": 0.4, "held_out": 0.4}
SIMULATED_LINE = "SIMULATED MODELS: this proves the calibration machinery, not the judges."
# Every verdict: a tier that may never settle a pair escalates whatever it says.
EVERY_VERDICT = ["same", "pass", "regression", "unsure"]


class PairSplit(BaseModel):
    """Which labeled pairs (edit_id/task_id) went where; each list sorted."""

    seed: int
    fractions: dict[str, float] = Field(description="Share of each label stratum per split, rounded per stratum.")
    train: list[str]
    calibration: list[str]
    held_out: list[str]


class TierCalibration(BaseModel):
    """One tier: the threshold chosen on the calibration split and how it fared on held-out."""

    tier: str
    sources: list[str] = Field(
        description="The runs its opinions were read from (ratchet.bench.report.labeled.tier_sources)."
    )
    base_threshold: float = Field(description="The threshold in the base gate config.")
    escalated: list[str] = Field(description="Verdicts the tier escalates whatever its confidence: never accepted.")
    last_tier: bool = Field(description="The cascade's last tier always decides: its threshold changes nothing there.")
    calibration_opinions: int = Field(description="This tier's opinions in the calibration split.")
    choice: ThresholdChoice
    held_out: HeldOutCheck


class Calibration(BaseModel):
    """calibration.json: the thresholds, the guarantee per tier and the split they came from."""

    schema_version: int = CALIBRATION_SCHEMA_VERSION
    simulated: bool
    dataset_digest: str
    base_config: str
    alpha: float = Field(description="Accepted opinions must disagree with the label at most this often.")
    delta: float = Field(description="... with probability at least 1 - delta over the calibration split.")
    labeled_pairs: int
    split: PairSplit
    tiers: list[TierCalibration] = Field(description="In the base config's escalation order.")


def pair_key(edit_id: str, task_id: str) -> str:
    return f"{edit_id}/{task_id}"


def _key(opinion: LabeledOpinion) -> str:
    return pair_key(opinion.edit_id, opinion.task_id)


def _rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def split_pairs(labels: dict[str, bool], seed: int) -> PairSplit:
    """Seeded, stratified split: within each label, pairs ordered by sha256(seed, key), then cut 0.2/0.4/0.4."""
    parts: dict[str, list[str]] = {name: [] for name in SPLIT_FRACTIONS}
    for stratum in (True, False):
        keys = sorted((k for k, regression in labels.items() if regression is stratum), key=lambda k: _rank(seed, k))
        n = len(keys)
        # Cut points rounded half up, in tenths: integer arithmetic, no float edge at .5.
        train_end, calibration_end = (2 * n + 5) // 10, (6 * n + 5) // 10
        parts["train"] += keys[:train_end]
        parts["calibration"] += keys[train_end:calibration_end]
        parts["held_out"] += keys[calibration_end:]
    return PairSplit(
        seed=seed,
        fractions=dict(SPLIT_FRACTIONS),
        train=sorted(parts["train"]),
        calibration=sorted(parts["calibration"]),
        held_out=sorted(parts["held_out"]),
    )


def _pair_labels(by_tier: dict[str, list[LabeledOpinion]], where: Path) -> dict[str, bool]:
    labels: dict[str, bool] = {}
    for opinions in by_tier.values():
        for opinion in opinions:
            seen = labels.setdefault(_key(opinion), opinion.label_regression)
            if seen != opinion.label_regression:
                raise InputError(
                    f"pair {_key(opinion)} is labeled differently in two runs: re-run them against the same labels",
                    path=where,
                )
    return labels


def _check_unit(name: str, value: float) -> None:
    if not 0.0 < value < 1.0:
        raise InputError(f"--{name} must be strictly between 0 and 1, got {value}")


def calibrate(
    results_dir: Path,
    base: GateConfig,
    *,
    alpha: float,
    delta: float,
    seed: int,
    results: BenchResults | None = None,
) -> Calibration:
    """Thresholds for every tier of `base` from the labeled opinions in `results_dir` (`results`: its results as
    the caller holds them; None: read)."""
    _check_unit("alpha", alpha)
    _check_unit("delta", delta)
    results = read_report_source(results_dir) if results is None else results
    by_tier = labeled_opinions_by_tier(results)
    if not by_tier:
        raise InputError(
            "no labeled judge opinions here: run the judge configurations first "
            "(ratchet bench run --config nano_only, super_only, ultra_only or cascade)",
            path=results_dir,
        )
    everything = [o for opinions in by_tier.values() for o in opinions]
    if all(o.confidence == 0.0 for o in everything):
        raise InputError(
            "every judge opinion has confidence 0 (a summary.json cut before confidences were kept): "
            "regenerate it with ratchet bench report on the full results.json",
            path=results_dir,
        )
    labels = _pair_labels(by_tier, results_dir)
    split = split_pairs(labels, seed)
    calibration_keys, held_out_keys = set(split.calibration), set(split.held_out)
    sources = tier_sources(results)
    tiers = []
    for index, step in enumerate(base.tiers):
        mine = by_tier.get(step.tier, [])
        on_calibration = [o for o in mine if _key(o) in calibration_keys]
        on_held_out = [o for o in mine if _key(o) in held_out_keys]
        choice = fixed_sequence_threshold(on_calibration, alpha=alpha, delta=delta, escalated=step.escalate_on)
        tiers.append(
            TierCalibration(
                tier=step.tier,
                sources=sources.get(step.tier, []),
                base_threshold=step.threshold,
                escalated=list(step.escalate_on),
                last_tier=index == len(base.tiers) - 1,
                calibration_opinions=len(on_calibration),
                choice=choice,
                held_out=held_out_check(on_held_out, choice, alpha=alpha, escalated=step.escalate_on),
            )
        )
    return Calibration(
        simulated=results.simulated,
        dataset_digest=results.dataset_digest,
        base_config=base.name,
        alpha=alpha,
        delta=delta,
        labeled_pairs=len(labels),
        split=split,
        tiers=tiers,
    )


# The report -------------------------------------------------------------------------------------


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _guarantee(tier: TierCalibration) -> str:
    return "met" if tier.choice.rejected else "not met"


def _threshold(tier: TierCalibration) -> str:
    return "never accept (1.0)" if tier.choice.never_accept else f"{tier.choice.threshold:.2f}"


def _held_out_target(check: HeldOutCheck) -> str:
    return "n/a" if check.meets_target is None else "yes" if check.meets_target else "no"


def render_calibration(calibration: Calibration) -> str:
    """calibration.md: the table per tier, what the guarantee says, and every threshold tested."""
    c = calibration
    target = f"{100 * (1 - c.alpha):.1f}%"
    lines = [SIMULATED_LINE, ""] if c.simulated else []
    lines += [
        "# Judge calibration (Trust or Escalate)",
        "",
        f"Base gate config `{c.base_config}`; alpha {c.alpha:g}, delta {c.delta:g}, seed {c.split.seed}; "
        f"dataset digest `{c.dataset_digest or 'unknown'}`.",
        f"{c.labeled_pairs} labeled pairs split by label: train {len(c.split.train)} (set aside), "
        f"calibration {len(c.split.calibration)}, held-out {len(c.split.held_out)}; the ids are in {CALIBRATION_FILE}.",
        "",
        f"Guarantee: with probability at least {1 - c.delta:g}, the opinions a tier accepts (verdict regression, "
        f"pass or same at or above its threshold) agree with the human label at least {target} of the time. "
        "Thresholds are tested from high to low (fixed sequence testing, one-sided Clopper-Pearson upper bound "
        "on the disagreement rate); the lowest threshold whose bound is at most alpha is kept.",
        "",
        "| tier | from runs | threshold | guarantee | calibration n | accepted | errors | upper bound "
        f"| held-out coverage | held-out agreement | >= {target} |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in c.tiers:
        bound = "n/a" if t.choice.upper_bound is None else f"{t.choice.upper_bound:.3f}"
        lines.append(
            f"| {t.tier} | {', '.join(t.sources) or 'none'} | {_threshold(t)} | {_guarantee(t)} | {t.calibration_opinions} "
            f"| {t.choice.accepted} | {t.choice.errors} | {bound} | {_share(t.held_out.coverage)} "
            f"| {_share(t.held_out.agreement)} | {_held_out_target(t.held_out)} |"
        )
    lines += ["", "Notes:", ""]
    lines.append(
        "- Coverage is the share of the held-out pairs a tier was asked about that it settles; agreement "
        "is over the opinions it settles."
    )
    for t in c.tiers:
        if t.escalated:
            lines.append(
                f"- {t.tier} escalates {', '.join(t.escalated)} whatever its confidence: those verdicts "
                "are never accepted and the guarantee does not cover them."
            )
    for t in c.tiers:
        if t.choice.never_accept:
            lines.append(
                f"- {t.tier}: no threshold passed, so it must never settle a pair. Threshold 1.0 stands "
                "for 1.01 (above every confidence); a written config also makes it escalate every verdict."
            )
    for t in c.tiers:
        if t.last_tier:
            lines.append(
                f"- {t.tier} is the last tier: the cascade takes its opinion whatever the threshold, so its "
                "threshold says how far it can be trusted, not what it decides."
            )
    lines += ["", "## Thresholds tested", ""]
    for t in c.tiers:
        tested = ", ".join(
            f"{s.threshold:.2f} ({s.errors}/{s.accepted}, bound {s.upper_bound:.3f}, "
            f"{'rejected' if s.rejected else 'stop'})"
            for s in t.choice.steps
        )
        lines.append(f"- {t.tier}: {tested or 'none (no calibration opinion it could settle)'}")
    return "\n".join(lines) + "\n"


def write_calibration(results_dir: Path, calibration: Calibration) -> tuple[Path, Path]:
    """calibration.json (canonical JSON) and calibration.md in the results directory."""
    data, report = results_dir / CALIBRATION_FILE, results_dir / CALIBRATION_REPORT
    atomic_write_text(data, canonical_dumps(calibration.model_dump(mode="json")))
    atomic_write_text(report, render_calibration(calibration))
    return data, report


# The calibrated gate config ---------------------------------------------------------------------


def _calibrated_step(raw: dict[str, Any], tier: TierCalibration | None) -> dict[str, Any]:
    if tier is None:
        return raw
    updated = {**raw, "threshold": tier.choice.threshold}
    if tier.choice.never_accept:
        updated["escalate_on"] = list(EVERY_VERDICT)
    settle = updated.get("settle_regression_at")
    if settle is not None and (tier.choice.never_accept or settle < tier.choice.threshold):
        # Calibration did not trust this tier at that confidence: it no longer settles a regression either.
        del updated["settle_regression_at"]
    return updated


def calibrated_config_text(base: GateConfig, calibration: Calibration, path: Path) -> str:
    """The YAML of `base` with calibrated thresholds, named after `path`, validated before it is written."""
    raw = base.model_dump(mode="json", exclude_unset=True)
    by_tier = {t.tier: t for t in calibration.tiers}
    raw["tiers"] = [
        _calibrated_step(r, by_tier.get(s.tier)) for r, s in zip(raw.get("tiers", []), base.tiers, strict=True)
    ]
    raw["schema_version"] = base.schema_version
    raw["name"] = path.stem
    never = [t.tier for t in calibration.tiers if t.choice.never_accept]
    raw["description"] = (
        f"{base.name} with thresholds from ratchet bench calibrate (alpha {calibration.alpha:g}, "
        f"delta {calibration.delta:g}, seed {calibration.split.seed}; fixed sequence testing, Clopper-Pearson)"
        + (f"; never accept: {', '.join(never)}" if never else "")
        + "."
    )
    if base.judge_prompt is not None:
        raw["judge_prompt"] = Path(os.path.relpath(base.prompt_path().resolve(), path.resolve().parent)).as_posix()
    parse_gate_config(raw, source=str(path))
    head = (
        f"# Written by ratchet bench calibrate from gate config {base.name!r}"
        + (" on SIMULATED judges" if calibration.simulated else "")
        + "; see calibration.md.\n"
    )
    return head + yaml.safe_dump(raw, sort_keys=False, allow_unicode=True, default_flow_style=False)


@dataclass(frozen=True)
class CalibrationRun:
    """What calibrate_results computed and where it wrote it."""

    calibration: Calibration
    written: list[Path]


def calibrate_results(
    results_dir: Path,
    *,
    config: str,
    alpha: float,
    delta: float,
    seed: int,
    write: Path | None = None,
    project_root: Path | None = None,
    results: BenchResults | None = None,
) -> CalibrationRun:
    """Calibrate the tiers of gate config `config` on `results_dir`; write the report and, with `write`, a config.
    `results`: results_dir's results as the caller holds them (the smoke's); None: read them there.

    Everything is computed (and the config validated) before the first file is written.
    """
    if not results_dir.is_dir():
        raise InputError("no such results directory: run ratchet bench run --out it first", path=results_dir)
    base = resolve_gate_config(config, project_root=project_root)
    calibration = calibrate(results_dir, base, alpha=alpha, delta=delta, seed=seed, results=results)
    config_text = calibrated_config_text(base, calibration, write) if write is not None else None
    written = list(write_calibration(results_dir, calibration))
    if write is not None and config_text is not None:
        atomic_write_text(write, config_text)
        written.append(write)
    return CalibrationRun(calibration=calibration, written=written)


def summary_lines(calibration: Calibration) -> Sequence[str]:
    """What the command prints: the simulated line when it applies, then one line per tier."""
    return ([SIMULATED_LINE] if calibration.simulated else []) + [
        f"{t.tier}: threshold {_threshold(t)}, guarantee {_guarantee(t)}, calibration n {t.calibration_opinions}, "
        f"held-out coverage {_share(t.held_out.coverage)}, agreement {_share(t.held_out.agreement)}"
        for t in calibration.tiers
    ]
