"""`ratchet noise` and `ratchet bless --repeats N`: measure blessed goldens' noise into files beside them.

Runs under the working tree's skills and world (the same ones `ratchet record` runs), through
the configured upstream and harness, with every call in the ledger (purpose `bless`). Each
record is written atomically to goldens/<skill>/<task>.noise.json; a golden that cannot be
measured is named and left without a new record (an old one, pinned to the golden, stays).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

from pydantic import BaseModel, Field

from ratchet.config.harness import timed_out
from ratchet.config.project import Project, refuse_world_at_nothing
from ratchet.core.errors import InputError
from ratchet.gate.noise import MAX_REPEATS, measure_noise
from ratchet.goldens.noise import noise_path, write_noise_record
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import load_golden_files
from ratchet.llm.gateway import Gateway
from ratchet.llm.preflight import preflight_config
from ratchet.sim.models import SIMULATOR
from ratchet.skills.sets import load_skills
from ratchet.store.db import open_store

NOISE_TIERS = ("agent",)  # a noise measurement replays goldens under the agent; no judge is asked


class NoiseResult(BaseModel):
    written: list[Path] = Field(default_factory=list)
    lines: list[str] = Field(default_factory=list, description="One line per measured golden.")
    refused: list[str] = Field(default_factory=list, description="Goldens the user must fix first (one line each).")
    failed: list[str] = Field(
        default_factory=list,
        description="Goldens none of whose repeats ran (one line each, naming the first failure): infrastructure.",
    )
    timed_out: int = Field(default=0, description="How many of `failed` failed at a harness timeout.")
    cost_usd: float = 0.0


def preflight_noise(project: Project) -> None:
    """What record_noise checks before its first replay, for a caller with work of its own to do first
    (`ratchet bless --repeats` checks it before it blesses anything)."""
    preflight_config(project.config, NOISE_TIERS)


def record_noise(project: Project, task_ids: Sequence[str] = (), *, repeats: int) -> NoiseResult:
    """Measure the goldens of `task_ids` (default: every golden) `repeats` times each; write their records."""
    if not 2 <= repeats <= MAX_REPEATS:
        raise InputError(f"--repeats must be between 2 and {MAX_REPEATS}, got {repeats}")
    refuse_world_at_nothing(project)
    files = load_golden_files(project.path("goldens"))
    by_task = {golden.task_id: path for path, golden in files.items()}
    missing = [tid for tid in task_ids if tid not in by_task]
    if missing:
        raise InputError(f"no golden for: {', '.join(missing)} (ratchet record, then ratchet bless)")
    wanted = set(task_ids or by_task)
    tasks = [task for task in load_tasks(project.path("tasks")) if task.id in wanted]
    goldens = {golden.task_id: golden for golden in files.values() if golden.task_id in wanted}
    with (
        closing(open_store(project.home)) as store,
        Gateway(project, store, simulator=SIMULATOR, run_id=f"noise-{uuid.uuid4().hex[:12]}") as gateway,
    ):
        agent = gateway.model("agent", "bless")
        # Before the first replay: a missing key or an upstream that does not answer is one line, not one per repeat.
        gateway.preflight(NOISE_TIERS)
        run = measure_noise(
            project,
            tasks=tasks,
            goldens=goldens,
            skills=load_skills(project.path("skills")),
            agent=agent,
            repeats=repeats,
            tree=project.root,
        )
    timeouts = sum(1 for task_id, error in run.first_errors.items() if timed_out(error) and task_id not in run.records)
    result = NoiseResult(refused=run.refused, failed=run.failed, timed_out=timeouts, cost_usd=run.cost_usd)
    for task_id, record in run.records.items():
        path = noise_path(by_task[task_id])
        write_noise_record(path, record)
        result.written.append(path)
        failed = f", {record.errors} failed (first: {run.first_errors[task_id]})" if record.errors else ""
        result.lines.append(
            f"{task_id}: {record.differed} of {record.repeats} repeats differed from the golden"
            f"{failed}; {len(record.varying)} part(s) varied"
        )
    return result
