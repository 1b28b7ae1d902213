"""Record and bless: run tasks into pending traces, then promote reviewed ones to goldens."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

from pydantic import BaseModel

from ratchet.agent.runner import run_task
from ratchet.config import Project
from ratchet.errors import InputError
from ratchet.llm.cache import CacheMode
from ratchet.llm.gateway import Gateway
from ratchet.llm.types import USD
from ratchet.skills import load_skills
from ratchet.store import open_store
from ratchet.tasks import Task, load_tasks, task_seed
from ratchet.trace import Trace, golden_relpath, read_trace, write_trace
from ratchet.world.state import load_world


class RecordResult(BaseModel):
    """What `ratchet record` wrote."""

    written: list[str]
    errors: list[str]
    cost_usd: USD


def _pick(tasks: Sequence[Task], task_ids: Sequence[str]) -> list[Task]:
    if not task_ids:
        return list(tasks)
    by_id = {task.id: task for task in tasks}
    unknown = [tid for tid in task_ids if tid not in by_id]
    if unknown:
        raise InputError(f"unknown task id(s): {', '.join(unknown)}")
    return [by_id[tid] for tid in task_ids]


def record_tasks(project: Project, task_ids: Sequence[str] = (), *, purpose: str = "bless") -> RecordResult:
    """Run tasks under the working tree's skills and world; write pending traces.

    Recording always calls the model afresh (cache mode `all`), so recording twice gives
    byte-identical traces on a deterministic upstream.
    """
    tasks = _pick(load_tasks(project.path("tasks")), task_ids)
    skills = load_skills(project.path("skills"))
    written: list[str] = []
    errors: list[str] = []
    cost = 0.0
    with closing(open_store(project.home)) as store, Gateway(
        project, store, run_id=f"record-{uuid.uuid4().hex[:12]}", cache_mode=CacheMode.ALL
    ) as gateway:
        model = gateway.model("agent", purpose)
        for task in tasks:
            world = load_world(
                project.path("world"),
                workspaces_dir=project.path("workspaces"),
                workspace=task.workspace,
                frozen_time=project.config.clock,
            )
            trace = run_task(
                task, skills, world, model,
                seed=task_seed(task.id), frozen_time=project.config.clock,
                models={"agent": model.model_id}, upstream=project.config.upstream,
                max_turns=project.config.max_agent_turns, max_tokens=project.agent_max_tokens(), purpose=purpose,
            )
            cost += trace.cost_usd
            if trace.status == "error":
                errors.append(f"{task.id}: {trace.error}")
                continue
            write_trace(project.pending_dir / f"{task.id}.json", trace)
            written.append(task.id)
    return RecordResult(written=written, errors=errors, cost_usd=cost)


def pending_traces(project: Project) -> dict[str, Path]:
    return {path.stem: path for path in sorted(project.pending_dir.glob("*.json"))}


def bless(project: Project, task_ids: Sequence[str] = ()) -> list[Path]:
    """Move pending traces into goldens/<skill>/<task>.json (all of them, or the ids given)."""
    pending = pending_traces(project)
    chosen = list(task_ids) or list(pending)
    missing = [tid for tid in chosen if tid not in pending]
    if missing:
        raise InputError(f"no pending trace for: {', '.join(missing)} (run `ratchet record` first)")
    goldens_dir = project.path("goldens")
    traces: list[tuple[Path, Trace]] = [(pending[tid], read_trace(pending[tid])) for tid in chosen]
    blessed: list[Path] = []
    for source, trace in traces:
        target = goldens_dir / golden_relpath(trace)
        for stale in goldens_dir.glob(f"*/{trace.task_id}.json"):
            if stale != target:
                stale.unlink()
        write_trace(target, trace)
        source.unlink()
        blessed.append(target)
    return blessed
