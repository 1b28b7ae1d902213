"""Record and bless: run tasks into pending traces, then promote reviewed ones to goldens."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field, PrivateAttr

from ratchet.agent.runner import run_task
from ratchet.bless.evidence import ACCEPTED, REFUSED, project_evidence
from ratchet.config.harness import timed_out
from ratchet.config.project import Project, refuse_world_at_nothing
from ratchet.core.chat import USD
from ratchet.core.errors import GoldenError, InputError, RoutingError, SkillError
from ratchet.core.ids import IdKind, check_id, inside
from ratchet.gate.thin import Evidence
from ratchet.goldens.noise import noise_path
from ratchet.goldens.tasks import Task, load_tasks, task_seed
from ratchet.goldens.trace import Trace, golden_relpath, read_trace, write_trace
from ratchet.harness.driver import WorldSource, run_through_harness
from ratchet.lint.routing import RoutingReport, model_routed, project_routing
from ratchet.llm.cache import CacheMode
from ratchet.llm.gateway import Gateway
from ratchet.sim.follow import follow_report
from ratchet.sim.harness_steps import harness_step_tools
from ratchet.sim.models import SIMULATOR
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill
from ratchet.store.db import open_store
from ratchet.world.faults import FaultPlan, arm
from ratchet.world.state import World, load_world
from ratchet.world.tools import tool_specs


class RecordResult(BaseModel):
    """What `ratchet record` wrote."""

    written: list[str]
    errors: list[str]
    timed_out: list[str] = Field(
        default_factory=list, description="Tasks whose harness was killed at its timeout (each also in `errors`)."
    )
    cost_usd: USD
    routing: RoutingReport | None = Field(
        default=None, description="Under routing: model with strict, the skills the agent model loaded, per task."
    )
    thin: list[str] = Field(
        default_factory=list,
        description="One line per written trace that shows no sign of its skill at work (ratchet.bless.evidence).",
    )


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


class UnfollowedSkill(BaseModel):
    """A skill some recorded task fires whose body the simulator cannot act on (only on the `sim` upstream)."""

    skill: str
    path: str = Field(description="Its SKILL.md, relative to the project root when under it.")
    line: int = Field(description="The line of SKILL.md where the body starts.")
    reason: str = Field(description="Why the simulator cannot follow it (ratchet.sim.follow).")

    def refusal(self, *, more: int = 0) -> SkillError:
        """What `ratchet record` refuses the skill with (one line, naming SKILL.md and the body's line)."""
        others = f" (and {more} more skill{'' if more == 1 else 's'})" if more else ""
        return SkillError(
            f"the simulator cannot follow skill {self.skill} ({self.reason}): its golden would "
            "record nothing the skill asks for; record it with a live upstream or a real harness, "
            f"or pass --allow-unfollowed{others}",
            path=self.path,
            line=self.line,
        )

    def note(self) -> str:
        """The one line `ratchet record --allow-unfollowed` warns with instead."""
        return (
            f"warning: the simulator could not follow skill {self.skill} ({self.path}:{self.line}: {self.reason}); "
            "its goldens hold what the simulator did, not what the skill asks: a live upstream or a real harness "
            "is needed to record it"
        )


@dataclass(frozen=True)
class _Inputs:
    """What a recording reads, all of it loaded (and checked) before the first run."""

    tasks: list[Task]
    skills: dict[str, Skill]
    worlds: list[World]


class RecordPlan(BaseModel):
    """What `ratchet record` checks before the first run: how every task routes, which skills the simulator cannot follow."""

    routing: RoutingReport
    unfollowed: list[UnfollowedSkill] = Field(default_factory=list)
    _loaded: _Inputs | None = PrivateAttr(default=None)  # what was loaded to plan; the recording reuses it

    def refuse_unfollowed(self, *, allow_unfollowed: bool = False) -> None:
        """SkillError for the first skill the simulator cannot follow, unless allowed."""
        if self.unfollowed and not allow_unfollowed:
            raise self.unfollowed[0].refusal(more=len(self.unfollowed) - 1)


def _inputs(project: Project, task_ids: Sequence[str]) -> _Inputs:
    refuse_world_at_nothing(project)
    tasks = _pick(load_tasks(project.path("tasks")), task_ids)
    skills = load_skills(project.path("skills"))
    # Every input is checked before the first run: a bad workspace for the last task must not
    # leave the earlier tasks' pending traces behind. Each world is armed with its task's seeded faults.
    worlds = [_task_world(project, task) for task in tasks]
    return _Inputs(tasks=tasks, skills=skills, worlds=worlds)


def _task_world(project: Project, task: Task) -> World:
    paths, clock = (project.path("world"), project.path("workspaces")), project.config.clock
    world = load_world(paths[0], workspaces_dir=paths[1], workspace=task.workspace, frozen_time=clock)
    return arm(world, FaultPlan.recording(task, world))


def _shown(path: Path, root: Path) -> str:
    return (path.relative_to(root) if path.is_relative_to(root) else path).as_posix()


def _unfollowed(project: Project, inputs: _Inputs, routing: RoutingReport) -> list[UnfollowedSkill]:
    """The fired skills the simulated agent cannot act on, each once, checked with the tools its task is offered."""
    if project.config.upstream != "sim":
        return []  # a live model reads prose
    found: dict[str, UnfollowedSkill] = {}
    steps = harness_step_tools(project.config.harness.name, project.config.harness.builtin_tools)
    for row, world in zip(routing.rows, inputs.worlds, strict=True):
        if row.fired is None or row.fired in found:
            continue
        skill = inputs.skills[row.fired]
        report = follow_report(
            skill.body, frozenset(spec.name for spec in tool_specs(world)) | steps, body_line=skill.body_line
        )
        if not report.followable:
            found[row.fired] = UnfollowedSkill(
                skill=skill.name,
                path=_shown(Path(skill.folder) / "SKILL.md", project.root),
                line=skill.body_line,
                reason=report.reason or "nothing it can act on",
            )
    return [found[name] for name in sorted(found)]


def plan_record(project: Project, task_ids: Sequence[str] = ()) -> RecordPlan:
    """The checks `record_tasks(strict=True)` makes, for showing them before it runs (nothing is run or written).

    Pass the plan to record_tasks(plan=) to record the same tasks without loading their inputs again.
    """
    inputs = _inputs(project, task_ids)
    routing = project_routing(project, inputs.tasks, skills=inputs.skills)
    plan = RecordPlan(routing=routing, unfollowed=_unfollowed(project, inputs, routing))
    plan._loaded = inputs
    return plan


def record_tasks(
    project: Project,
    task_ids: Sequence[str] = (),
    *,
    purpose: str = "bless",
    strict: bool = False,
    allow_unfollowed: bool = False,
    plan: RecordPlan | None = None,
) -> RecordResult:
    """Run tasks under the working tree's skills and world; write pending traces.

    Recording always calls the model afresh (cache mode `all`), so recording twice gives
    byte-identical traces on a deterministic upstream. With `strict` (what `ratchet record`
    passes) a task that fires another skill than tasks.yaml expects, or a fired skill the
    simulator cannot follow (unless `allow_unfollowed`), is refused before anything is written;
    the bench and demo builders record without it, their tasks being checked by their own tests.
    A `plan` (plan_record of the same task ids) implies strict and is not computed again.
    """
    if plan is None and strict:
        plan = plan_record(project, task_ids)
    inputs = plan._loaded if plan is not None and plan._loaded is not None else _inputs(project, task_ids)
    by_model = project.config.routes_by_model
    if plan is not None:
        if not by_model:  # under routing: model the matcher only predicts: the runs below decide
            plan.routing.refuse()
        plan.refuse_unfollowed(allow_unfollowed=allow_unfollowed)
    tasks, skills, worlds = inputs.tasks, inputs.skills, inputs.worlds
    _check_pending_dir(project.pending_dir)
    written: list[str] = []
    errors: list[str] = []
    timeouts: list[str] = []
    cost = 0.0
    held: list[tuple[str, Trace]] = []  # routing: model + strict: written once every task loaded its own skill
    evidence: Evidence | None = None
    thin: dict[str, str] = {}
    with (
        closing(open_store(project.home)) as store,
        Gateway(
            project, store, simulator=SIMULATOR, run_id=f"record-{uuid.uuid4().hex[:12]}", cache_mode=CacheMode.ALL
        ) as gateway,
    ):
        model = gateway.model("agent", purpose)
        # Before the first task: a missing key or an upstream that does not answer is one line, not one per task.
        gateway.preflight(["agent"])
        for task, world in zip(tasks, worlds, strict=True):
            if project.config.harness.is_minimal:
                trace = run_task(
                    task,
                    skills,
                    world,
                    model,
                    seed=task_seed(task.id),
                    frozen_time=project.config.clock,
                    models={"agent": model.model_id},
                    upstream=project.config.upstream,
                    max_turns=project.config.max_agent_turns,
                    max_tokens=project.agent_max_tokens(),
                    purpose=purpose,
                    routing=project.config.routing,
                )
            else:
                source = WorldSource(
                    world_dir=project.path("world"),
                    workspaces_dir=project.path("workspaces"),
                    workspace=task.workspace,
                    frozen_time=project.config.clock,
                    faults=FaultPlan.recording(task, world),
                )
                trace = run_through_harness(
                    task,
                    skills,
                    source,
                    model,
                    settings=project.config.harness,
                    home=project.home,
                    seed=task_seed(task.id),
                    models={"agent": model.model_id},
                    upstream=project.config.upstream,
                    purpose=purpose,
                )
            # What check compares with the replay's, beyond what the runner records (ratchet.gate.provenance).
            trace = trace.stamped(tool_protocol=project.agent_tool_protocol)
            cost += trace.cost_usd
            if trace.status == "error":
                errors.append(f"{task.id}: {trace.error}")
                if timed_out(trace.error):
                    timeouts.append(task.id)
                continue
            evidence = evidence or Evidence.over(skills, world)  # the tools a world offers are every task's
            if (exercise := evidence.exercise(trace, task.skill)).thin:
                thin[task.id] = exercise.line()
            if plan is not None and by_model:
                held.append((task.id, trace))
                continue
            write_trace(inside(project.pending_dir, f"{task.id}.json"), trace)
            written.append(task.id)
    routing = None
    if plan is not None and by_model and held:
        # Only a task that ran loaded a skill: one that failed (a harness timeout, a crash) is in `errors`,
        # named as what it is, never as a task that loaded no skill.
        ran = {task_id: trace.fired_skill for task_id, trace in held}
        routing = model_routed(
            plan.routing.model_copy(update={"rows": [row for row in plan.routing.rows if row.task_id in ran]}), ran
        )
        try:
            routing.refuse()  # nothing is written when a task loaded another skill than tasks.yaml expects
        except RoutingError as exc:
            if errors:  # the refusal is the one line printed: it must not hide the tasks that did not run
                exc.message += f"; {len(errors)} other task(s) failed to run, first {errors[0]}"
                exc.args = (exc.one_line(),)
            raise
        for task_id, trace in held:
            write_trace(inside(project.pending_dir, f"{task_id}.json"), trace)
            written.append(task_id)
    shown = [thin[task_id] for task_id in written if task_id in thin]
    return RecordResult(written=written, errors=errors, timed_out=timeouts, cost_usd=cost, routing=routing, thin=shown)


def pending_traces(project: Project) -> dict[str, Path]:
    return {path.stem: path for path in sorted(project.pending_dir.glob("*.json"))}


class BlessResult(BaseModel):
    """What `ratchet bless` promoted, the pending traces it refused (one line each), and the thin ones it
    blessed under --accept-thin (one line each)."""

    blessed: list[Path]
    refused: list[str]
    thin: list[str] = Field(default_factory=list)


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
            f"re-record it with `ratchet record {task_id}`",
            path=source,
        )
    if task_id not in known_tasks:
        raise GoldenError(
            f"task {task_id!r} is not in {tasks_file}: delete the pending trace or add the task", path=source
        )
    if trace.status == "error":
        raise GoldenError(
            f"task {task_id} ended in error ({trace.error or 'no message'}): fix the cause and re-record it, "
            "a failed run is never a golden",
            path=source,
        )
    if trace.fired_skill is not None:
        check_id(IdKind.SKILL, trace.fired_skill, path=source, error=GoldenError)
    relpath = golden_relpath(trace)
    target = inside(goldens_dir, *relpath.parts)
    stale = [inside(goldens_dir, old.parent.name, old.name) for old in sorted(goldens_dir.glob(f"*/{task_id}.json"))]
    return _Promotion(source=source, trace=trace, target=target, stale=[old for old in stale if old != target])


def bless_pending(project: Project, task_ids: Sequence[str] = (), *, accept_thin: bool = False) -> BlessResult:
    """Move pending traces into goldens/<skill>/<task>.json (all of them, or the ids given).

    Each pending trace is checked on its own: one that cannot be blessed (an id that is not
    a plain name, a file name that is not its task id, a task missing from tasks.yaml, a run
    that ended in error, a run that shows no sign of its skill at work unless `accept_thin`:
    ratchet.bless.evidence) is refused and left in pending/, and the others are still blessed.
    A thin one blessed under `accept_thin` keeps why on the golden (Trace.thin).
    """
    pending = pending_traces(project)
    chosen = list(task_ids) or list(pending)
    missing = [tid for tid in chosen if tid not in pending]
    if missing:
        raise InputError(f"no pending trace for: {', '.join(missing)} (run `ratchet record` first)")
    tasks_file = project.path("tasks")
    known_tasks = {task.id: task for task in load_tasks(tasks_file)}
    goldens_dir = project.path("goldens")
    blessed: list[Path] = []
    refused: list[str] = []
    thin: list[str] = []
    routed = any(known_tasks[tid].skill for tid in chosen if tid in known_tasks)  # canaries alone read no skill
    evidence = project_evidence(project) if routed else None
    for tid in chosen:
        try:
            promotion = _promotion(pending[tid], set(known_tasks), tasks_file, goldens_dir)
        except InputError as exc:
            refused.append(exc.one_line())
            continue
        exercise = evidence.exercise(promotion.trace, known_tasks[tid].skill) if evidence is not None else None
        if exercise is not None and exercise.thin:
            (thin if accept_thin else refused).append(exercise.line() + (ACCEPTED if accept_thin else REFUSED))
            if not accept_thin:
                continue
        for stale in promotion.stale:
            stale.unlink()
        for old in (*promotion.stale, promotion.target):  # a noise record describes the golden it replaced
            noise_path(old).unlink(missing_ok=True)
        write_trace(promotion.target, promotion.trace.model_copy(update={"thin": exercise.missing if exercise else []}))
        promotion.source.unlink()
        blessed.append(promotion.target)
    return BlessResult(blessed=blessed, refused=refused, thin=thin)


def bless(project: Project, task_ids: Sequence[str] = (), *, accept_thin: bool = False) -> list[Path]:
    """bless_pending, for callers that need every trace blessed: InputError after the rest if any was refused."""
    result = bless_pending(project, task_ids, accept_thin=accept_thin)
    if result.refused:
        raise InputError(f"{len(result.refused)} pending trace(s) refused: {result.refused[0]}")
    return result.blessed
