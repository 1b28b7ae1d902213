"""Bench results judged by scripted tiers with a known error pattern, so judge rates are known exactly.

Each edit has one pair; the first `positives` edits are R1 edits whose pair is labeled regression,
the next `negatives` are N0 edits whose pair is labeled same. A tier's script answers the i-th
positive (negative) pair with its `on_regression[i % len]` (`on_clean[i % len]`) verdict, so with
20 of each and the patterns below the counts are:

    NANO   positives 14 regression, 4 pass, 2 unsure; negatives 2 regression, 18 pass
    SUPER  positives 18 regression, 2 unsure;         negatives 20 pass
    ULTRA  positives 19 regression, 1 pass;           negatives 1 regression, 19 pass
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ratchet.bench.data.models import Label
from ratchet.bench.data.results import BenchConfigRun, BenchResults, NoiseGolden, ScoredEdit
from ratchet.config.gate import JudgeVerdict
from ratchet.gate.models import Opinion, PairOutcome, Verdict


@dataclass(frozen=True)
class TierScript:
    """One tier's scripted answers: cycled over the positive pairs and over the negative pairs."""

    tier: str
    on_regression: Sequence[JudgeVerdict]
    on_clean: Sequence[JudgeVerdict]

    def opinion(self, label_regression: bool, index: int) -> Opinion:
        script = self.on_regression if label_regression else self.on_clean
        verdict = script[index % len(script)]
        right = (verdict == "regression") == label_regression
        return Opinion(
            tier=self.tier,
            model=f"scripted/{self.tier}",
            prompt_version="t",
            verdict=verdict,
            confidence=0.9 if right else 0.55,
        )


REG: list[JudgeVerdict] = ["regression"]
PASS: list[JudgeVerdict] = ["pass"]
UNSURE: list[JudgeVerdict] = ["unsure"]

NANO = TierScript("nano", REG * 7 + PASS * 2 + UNSURE, REG + PASS * 9)
SUPER = TierScript("super", REG * 9 + UNSURE, PASS)
ULTRA = TierScript("ultra", REG * 19 + PASS, REG + PASS * 19)
ORACLE = {t: TierScript(t, REG, PASS) for t in ("nano", "super", "ultra")}

SIM_MODELS = {"agent": "sim/agent-1", "nano": "sim/judge-nano", "super": "sim/judge-super", "ultra": "sim/judge-ultra"}


def edit_id(index: int) -> str:
    return f"skill.E.{index:03d}"


def task_id(index: int) -> str:
    return f"task-{index:03d}"


def labels_for(positives: int = 20, negatives: int = 20) -> dict[str, Label]:
    """The labels of the scripted edits, by edit id (edit_hash "hash-<edit id>")."""
    labels: dict[str, Label] = {}
    for i in range(positives + negatives):
        regression = i < positives
        labels[edit_id(i)] = Label(
            edit_id=edit_id(i),
            type="R1" if regression else "N0",
            skill="skill",
            affected_goldens=[task_id(i)] if regression else [],
            expected_decision="BLOCK" if regression else "PASS",
            expected_pairs={task_id(i): "regression" if regression else "same"},
            edit_hash=f"hash-{edit_id(i)}",
        )
    return labels


def scripted_run(
    config: str,
    scripts: Sequence[TierScript],
    *,
    positives: int = 20,
    negatives: int = 20,
    models: Mapping[str, str] = SIM_MODELS,
    simulated: bool = True,
) -> BenchConfigRun:
    """One configuration's run: every pair judged by every script, in the order given."""
    edits: dict[str, ScoredEdit] = {}
    for label in labels_for(positives, negatives).values():
        i = int(label.edit_id.rsplit(".", 1)[1])
        regression = label.expected_decision == "BLOCK"
        index = i if regression else i - positives
        opinions = [s.opinion(regression, index) for s in scripts]
        outcome = (opinions[-1].verdict or "error") if opinions else "same"  # no script: Level 0 decided
        pair = PairOutcome(
            task_id=task_id(i),
            golden_skill="skill",
            selected_because="routed",
            outcome=outcome,
            decided_by=scripts[-1].tier if scripts else "level0",
            reason="scripted",
            opinions=opinions,
        )
        verdict = Verdict(
            base="b",
            head="h",
            skills_changed=["skill"],
            decision=label.expected_decision,
            summary="",
            pairs=[pair],
            simulated=simulated,
        )
        edits[label.edit_id] = ScoredEdit(
            edit_id=label.edit_id,
            type=label.type,
            verdict=verdict,
            expected_decision=label.expected_decision,
            skill="skill",
            affected_goldens=label.affected_goldens,
            expected_pairs=label.expected_pairs,
        )
    return BenchConfigRun(config=config, command=f"cmd {config}", simulated=simulated, models=dict(models), edits=edits)


def noise_run(
    scripts: Sequence[TierScript],
    *,
    goldens: int = 2,
    replays: int = 3,
    models: Mapping[str, str] = SIM_MODELS,
    simulated: bool = True,
) -> BenchConfigRun:
    """The E6 run: `goldens` x `replays` unchanged-skill replays, each judged by every script as a clean pair."""
    noise: dict[str, NoiseGolden] = {}
    for g in range(goldens):
        outcomes = []
        for r in range(replays):
            opinions = [s.opinion(False, g * replays + r) for s in scripts]
            outcomes.append(
                PairOutcome(
                    task_id=task_id(g),
                    golden_skill="skill",
                    selected_because="routed",
                    outcome="pass",
                    decided_by=scripts[-1].tier,
                    reason="scripted",
                    opinions=opinions,
                )
            )
        noise[task_id(g)] = NoiseGolden(task_id=task_id(g), skill="skill", outcomes=outcomes)
    return BenchConfigRun(
        config="noise", command="cmd noise", simulated=simulated, models=dict(models), mode="noise", noise=noise
    )


def scripted_results(
    *, models: Mapping[str, str] = SIM_MODELS, simulated: bool = True, with_noise: bool = False
) -> BenchResults:
    """nano_only (NANO), super_only (SUPER), and a cascade whose nano and super are perfect and whose ultra is ULTRA.

    No ultra_only run: ultra's rates must come from the cascade.
    """
    runs = {
        "nano_only": scripted_run("nano_only", [NANO], models=models, simulated=simulated),
        "super_only": scripted_run("super_only", [SUPER], models=models, simulated=simulated),
        "cascade": scripted_run(
            "cascade", [ORACLE["nano"], ORACLE["super"], ULTRA], models=models, simulated=simulated
        ),
    }
    if with_noise:
        runs["noise"] = noise_run([NANO, SUPER], models=models, simulated=simulated)
    return BenchResults(runs=runs)
