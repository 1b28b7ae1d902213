"""Record and bless: run tasks into pending traces, then promote reviewed ones to goldens."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

from pydantic import BaseModel

from ratchet.agent.runner import run_task
from ratchet.config import Project
from ratchet.errors import GoldenError, InputError
from ratchet.ids import IdKind, check_id, inside
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


def _check_pending_dir(pending: Path) -> None:
    """InputError naming pending/ when something that is not a folder stands in its place."""
    if (pending.exists() or pending.is_symlink()) and not pending.is_dir():
        raise InputError(
            "this is a file, but Ratchet keeps pending traces in this folder; move the file away",
            path=pending,
        )


def record_tasks(project: Project, task_ids: Sequence[str] = (), *, purpose: str = "bless") -> RecordResult:
    """Run tasks under the working tree's skills and world; write pending traces.

    Recording always calls the model afresh (cache mode `all`), so recording twice gives
    byte-identical traces on a deterministic upstream.
    """
    tasks = _pick(load_tasks(project.path("tasks")), task_ids)
    skills = load_skills(project.path("skills"))
    # Every input is checked before the first run: a bad workspace for the last task must not
    # leave the earlier tasks' pending traces behind.
    worlds = [
        load_world(
            project.path("world"),
            workspaces_dir=project.path("workspaces"),
            workspace=task.workspace,
            frozen_time=project.config.clock,
        )
        for task in tasks
    ]
    _check_pending_dir(project.pending_dir)
    written: list[str] = []
    errors: list[str] = []
    cost = 0.0
    with closing(open_store(project.home)) as store, Gateway(
        project, store, run_id=f"record-{uuid.uuid4().hex[:12]}", cache_mode=CacheMode.ALL
    ) as gateway:
        model = gateway.model("agent", purpose)
        for task, world in zip(tasks, worlds, strict=True):
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
            write_trace(inside(project.pending_dir, f"{task.id}.json"), trace)
            written.append(task.id)
    return RecordResult(written=written, errors=errors, cost_usd=cost)


def pending_traces(project: Project) -> dict[str, Path]:
    return {path.stem: path for path in sorted(project.pending_dir.glob("*.json"))}


class BlessResult(BaseModel):
    """What `ratchet bless` promoted, and the pending traces it refused (one line each)."""

    blessed: list[Path]
    refused: list[str]


class _Promotion(BaseModel):
    source: Path
    trace: Trace
    target: Path
    stale: list[Path]


def _promotion(source: Path, known_tasks: set[str], tasks_file: Path, goldens_dir: Path) -> _Promotion:
    """Check one pending trace before anything is touched; InputError naming the file if it cannot be blessed.

    A pending trace is user-writable data: its task id and fired skill become paths (and the
    task id a glob), so neither is trusted until it matches its pattern, its file name and tasks.yaml.
    """
    task_id = check_id(IdKind.TASK, source.stem, path=source)
    trace = read_trace(source)
    if trace.task_id != task_id:
        raise GoldenError(
            f"pending trace holds task id {trace.task_id!r}, not the file's name {task_id!r}: "
            f"re-record it with `ratchet record {task_id}`", path=source,
        )
    if task_id not in known_tasks:
        raise GoldenError(f"task {task_id!r} is not in {tasks_file}: delete the pending trace or add the task", path=source)
    if trace.status == "error":
        raise GoldenError(
            f"task {task_id} ended in error ({trace.error or 'no message'}): fix the cause and re-record it, "
            "a failed run is never a golden", path=source,
        )
    if trace.fired_skill is not None:
        check_id(IdKind.SKILL, trace.fired_skill, path=source, error=GoldenError)
    relpath = golden_relpath(trace)
    target = inside(goldens_dir, *relpath.parts)
    stale = [inside(goldens_dir, old.parent.name, old.name) for old in sorted(goldens_dir.glob(f"*/{task_id}.json"))]
    return _Promotion(source=source, trace=trace, target=target, stale=[old for old in stale if old != target])


def bless_pending(project: Project, task_ids: Sequence[str] = ()) -> BlessResult:
    """Move pending traces into goldens/<skill>/<task>.json (all of them, or the ids given).

    Each pending trace is checked on its own: one that cannot be blessed (an id that is not
    a plain name, a file name that is not its task id, a task missing from tasks.yaml, a run
    that ended in error) is refused and left in pending/, and the others are still blessed.
    """
    pending = pending_traces(project)
    chosen = list(task_ids) or list(pending)
    missing = [tid for tid in chosen if tid not in pending]
    if missing:
        raise InputError(f"no pending trace for: {', '.join(missing)} (run `ratchet record` first)")
    tasks_file = project.path("tasks")
    known_tasks = {task.id for task in load_tasks(tasks_file)}
    goldens_dir = project.path("goldens")
    blessed: list[Path] = []
    refused: list[str] = []
    for tid in chosen:
        try:
            promotion = _promotion(pending[tid], known_tasks, tasks_file, goldens_dir)
        except InputError as exc:
            refused.append(exc.one_line())
            continue
        for stale in promotion.stale:
            stale.unlink()
        write_trace(promotion.target, promotion.trace)
        promotion.source.unlink()
        blessed.append(promotion.target)
    return BlessResult(blessed=blessed, refused=refused)


def bless(project: Project, task_ids: Sequence[str] = ()) -> list[Path]:
    """bless_pending, for callers that need every trace blessed: InputError after the rest if any was refused."""
    result = bless_pending(project, task_ids)
    if result.refused:
        raise InputError(f"{len(result.refused)} pending trace(s) refused: {result.refused[0]}")
    return result.blessed
