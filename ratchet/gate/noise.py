"""Noise: replay blessed goldens under their unchanged skills N times and record what varied.

What `ratchet bless --repeats N` and `ratchet noise` run, and what a noisy bench run measures
before it gates anything. Each repeat replays the golden's task with a seed from (task id,
repeat number), through the same replay path a check uses (minimal runner or the configured
harness), and is compared with the golden as Level 0 compares it: `differed` counts repeats
with any difference, `varying` names the parts (ratchet.gate.variation). A golden whose skill
changed since it was recorded is refused: its repeats would measure the change, not the noise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from ratchet.config.project import Project
from ratchet.core.chat import ChatModel
from ratchet.core.ids import derived_seed
from ratchet.core.pool import WorkPool
from ratchet.gate.level0 import level0_findings
from ratchet.gate.replay import Replayer
from ratchet.gate.variation import variation_parts
from ratchet.goldens.noise import NoiseRecord, golden_hash
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.skills.skill import Skill

MAX_REPEATS = 200


class NoiseRun(BaseModel):
    """Records measured, and the goldens that could not be measured (one line each)."""

    records: dict[str, NoiseRecord] = Field(default_factory=dict)
    refused: list[str] = Field(
        default_factory=list,
        description="Goldens that cannot be measured as they are (their skill changed or is gone): the user's to fix.",
    )
    failed: list[str] = Field(
        default_factory=list,
        description="Goldens none of whose repeats ran (a harness "
        "timeout, a crash, a failed model call), naming the first failure: infrastructure.",
    )
    first_errors: dict[str, str] = Field(
        default_factory=dict,
        description="Task id -> the first failed repeat's "
        "error, for every golden with a failed repeat (measured or not).",
    )
    cost_usd: float = 0.0


def noise_seed(task_id: str, repeat: int) -> int:
    return derived_seed("noise-record", task_id, repeat)


def stale_skill(golden: Trace, skills: Mapping[str, Skill]) -> str | None:
    """Why `golden` cannot be measured under `skills` (its fired skill changed or is gone), or None."""
    for ref in golden.skills_fired:
        skill = skills.get(ref.name)
        if skill is None:
            return f"skill {ref.name!r} the golden fired is not in the skills folder"
        if skill.content_hash != ref.content_hash:
            return f"skill {ref.name!r} changed since the golden was recorded: re-record and bless it first"
    return None


def differing_parts(golden: Trace, replay: Trace) -> list[str]:
    """The parts in which `replay` differed from `golden`, as a noise record counts a repeat (anything Level 0
    compares); empty when it did not differ. `ratchet watch` counts its replays with it too."""
    parts = variation_parts(golden, replay)
    if parts or any(f.severity in ("hard", "diff") for f in level0_findings(golden, replay)):
        return parts or ["output whitespace"]
    return []


class Measured(BaseModel):
    """One golden's record, what its repeats cost, and the first failed repeat's error (None: none failed)."""

    record: NoiseRecord
    cost_usd: float
    first_error: str | None = None


def measure_golden(task: Task, golden: Trace, replays: Replayer, *, repeats: int) -> Measured:
    """One golden's record over `repeats` replays under `replays`' skills, what they cost and why the first
    failed repeat failed."""
    differed = errors = 0
    first_error: str | None = None
    varying: dict[str, int] = {}
    runs: list[list[str]] = []
    cost = 0.0
    for repeat in range(repeats):
        reseeded = golden.model_copy(update={"seed": noise_seed(task.id, repeat)})
        replay = replays.run(task, reseeded, replays.head_skills, purpose="bless")
        cost += replay.cost_usd
        if replay.status != "ok":
            errors += 1
            first_error = first_error or replay.error or "the replay ended in error"
            continue
        parts = differing_parts(golden, replay)
        if parts:
            differed += 1
        for part in parts:
            varying[part] = varying.get(part, 0) + 1
        runs.append(parts)
    record = NoiseRecord(
        task_id=task.id,
        golden_hash=golden_hash(golden),
        agent=replays.model.model_id,
        simulated=replays.simulated,
        repeats=max(len(runs), 1),
        differed=differed,
        errors=errors,
        varying=dict(sorted(varying.items())),
        runs=runs,
    )
    return Measured(record=record, cost_usd=cost, first_error=first_error)


def measure_noise(
    project: Project,
    *,
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    skills: Mapping[str, Skill],
    agent: ChatModel,
    repeats: int,
    tree: Path,
    pool: WorkPool | None = None,
) -> NoiseRun:
    """Records for every golden of `tasks` (in task order); a golden that cannot be measured is refused.

    Every repeat replays over the world of `tree`, read once for all of them (a Replayer)."""
    run = NoiseRun()
    replays = Replayer(project, tree=tree, head_skills=skills, base_skills=skills, agent=agent)
    measurable: list[Task] = []
    for task in (task for task in tasks if task.id in goldens):
        why = stale_skill(goldens[task.id], skills)
        if why is None:
            measurable.append(task)
        else:
            run.refused.append(f"{task.id}: {why}")

    def one(task: Task) -> Measured:
        return measure_golden(task, goldens[task.id], replays, repeats=repeats)

    results = pool.map_ordered(one, measurable) if pool is not None else [one(task) for task in measurable]
    for task, measured in zip(measurable, results, strict=True):
        run.cost_usd += measured.cost_usd  # paid whether or not the repeats could be used
        if measured.first_error is not None:
            run.first_errors[task.id] = measured.first_error
        if measured.record.errors == repeats:
            # Not the golden's fault: what failed is named, so a harness timeout reads as one.
            run.failed.append(
                f"{task.id}: every one of {repeats} repeats failed, first: {measured.first_error}; nothing was measured"
            )
            continue
        run.records[task.id] = measured.record
    return run
