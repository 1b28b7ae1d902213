"""`ratchet bench build`: goldens, N0/D1/F0 controls, R1-R7 injection, labels. See docs/adr/0008-bench-build.md.

The build works in its own area (var/bench/ or --work): a store and cache (its RATCHET home)
and a scratch git repository made from the shipped skills, tasks, world, workspaces and
fixtures. Every candidate edit is replayed there in process; nothing in the scratch repo's
main moves while edits are checked. Outputs land in the project only once everything has been
computed: goldens/, bench/edits/, labels/labels.json (each file written atomically).
A partial build (--skills, --types, --no-*) replaces only the edits and labels in its scope.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from ratchet.bench.build.control_edits import build_d1, build_f0, build_n0
from ratchet.bench.build.controls import (
    D1_VARIANTS,
    F0_VARIANTS,
    N0_VARIANTS,
    WORLD_DEPENDENT_SKILLS,
    has_fault_handling,
)
from ratchet.bench.build.inject import (
    MAX_TRIES,
    R_VARIANTS,
    ModelProposer,
    Proposer,
    TemplateProposer,
    inject_type,
)
from ratchet.bench.build.labels import label_for, mark_reviews
from ratchet.bench.build.replays import PairCheck, ReplayEnv
from ratchet.bench.build.scratch_repo import scratch_repo
from ratchet.bench.data.dataset import DEFAULT_WORK, BenchPaths, read_labels, write_edit, write_labels
from ratchet.bench.data.digest import dataset_digest
from ratchet.bench.data.models import (
    CONTROL_TYPES,
    REGRESSION_TYPES,
    Dropped,
    Edit,
    EditType,
    Label,
    LabelsFile,
)
from ratchet.bless.record import bless, record_tasks
from ratchet.config.project import Project
from ratchet.core.errors import InfraError, InputError
from ratchet.gate.drift import FixtureSearch
from ratchet.goldens.tasks import Task, load_tasks
from ratchet.goldens.trace import golden_relpath, load_goldens, write_trace
from ratchet.llm.budget import PER_CALL_BUDGETS, CallBudget, check_affordable, estimate
from ratchet.llm.gateway import Gateway
from ratchet.llm.preflight import preflight_config
from ratchet.sim.models import SIMULATOR
from ratchet.skills.sets import load_skills
from ratchet.store.db import open_store

ALL_TYPES: tuple[str, ...] = (*REGRESSION_TYPES, *CONTROL_TYPES)
FAULT_TYPES: frozenset[str] = frozenset({"R7", "F0"})
"""Types built only for skills that handle a failed call (ratchet.sim.mutate_faults.fault_steps)."""
BUILD_BUDGETS: dict[str, CallBudget] = {
    **PER_CALL_BUDGETS,
    "bless": CallBudget(tier="agent", tokens_in=25_000, tokens_out=5_000),
    "inject": CallBudget(tier="injector", tokens_in=6_000, tokens_out=4_000),
}


@dataclass
class BuildOptions:
    skills: Sequence[str] | None = None
    types: Sequence[str] | None = None
    goldens: bool = True
    controls: bool = True
    inject: bool = True
    yes: bool = False
    work: Path | None = None


@dataclass
class BuildResult:
    goldens: int = 0
    edits: dict[str, int] = field(default_factory=dict)
    dropped: list[Dropped] = field(default_factory=list)
    tries: dict[str, int] = field(default_factory=dict)
    labels: int = 0
    wall_s: float = 0.0
    digest: str = ""
    simulated: bool = True
    work: Path = Path()


Report = Callable[[str], None]


def parse_list(value: str | None, known: Sequence[str], what: str) -> list[str] | None:
    """`a,b` -> ["a", "b"], every item known; InputError otherwise."""
    if value is None or not value.strip():
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in items if v not in known]
    if unknown:
        raise InputError(f"unknown {what}: {', '.join(unknown)} (known: {', '.join(known)})")
    return items


# --- the build -------------------------------------------------------------------------------


def _selected_tasks(tasks: Sequence[Task], skills: Sequence[str]) -> list[Task]:
    return [t for t in tasks if t.skill is None or t.skill in skills]


def _plan(
    project: Project,
    n_tasks: int,
    skills: Sequence[str],
    types: Sequence[str],
    options: BuildOptions,
    tasks_per_skill: float,
) -> dict[str, int]:
    calls: dict[str, int] = {}
    if options.goldens:
        calls["bless"] = n_tasks
    r_types = [t for t in types if t in REGRESSION_TYPES] if options.inject else []
    injections = len(skills) * len(r_types) * R_VARIANTS * MAX_TRIES
    replays = int(injections * (tasks_per_skill + 3))
    if options.controls:
        replays += int(len(skills) * (N0_VARIANTS + D1_VARIANTS + F0_VARIANTS) * tasks_per_skill)
    if injections:
        calls["inject"] = injections
    if replays:
        calls["replay"] = replays
    return calls


def build_bench(
    root: Path,
    options: BuildOptions,
    *,
    report: Report = lambda _line: None,
    confirm: Callable[[str], bool] | None = None,
) -> BuildResult:
    """Build goldens, controls and injected regressions for the selected skills and types."""
    started = time.perf_counter()
    paths = BenchPaths.at(root)
    source_skills = load_skills(paths.skills)
    all_tasks = load_tasks(paths.tasks)
    skills = list(options.skills) if options.skills else sorted(source_skills)
    missing = [s for s in skills if s not in source_skills]
    if missing:
        raise InputError(
            f"unknown skill(s): {', '.join(missing)} (in {paths.rel(paths.skills)}: {', '.join(sorted(source_skills))})"
        )
    types = list(options.types) if options.types else list(ALL_TYPES)
    stage_types = [
        t for t in types if (t in REGRESSION_TYPES and options.inject) or (t in CONTROL_TYPES and options.controls)
    ]
    # Before the scratch repository, the estimate and the first recording: a live build asks the agent
    # and, when it injects regressions, the injector (the simulator's proposer is a template); an upstream
    # that cannot answer them is one line, exit 3.
    build_config = paths.project.config
    injects = build_config.upstream != "sim" and any(t in REGRESSION_TYPES for t in stage_types)
    preflight_config(build_config, ["agent", "injector"] if injects else ["agent"])
    work = (options.work or root / DEFAULT_WORK).resolve()
    home = work / "home"
    project = scratch_repo(paths, work / "repo", home, with_goldens=True)
    simulated = project.config.upstream == "sim"
    result = BuildResult(simulated=simulated, work=work)
    tasks = _selected_tasks(all_tasks, skills)
    per_skill = sum(1 for t in all_tasks if t.skill) / max(1, len(source_skills))

    with closing(open_store(home)) as store:
        if not simulated:
            plan = estimate(
                project.config,
                _plan(project, len(tasks), skills, stage_types, options, per_skill),
                store=store,
                budgets=BUILD_BUDGETS,
            )
            report(plan.render())
            check_affordable(store, plan)
            if not options.yes and not (confirm is not None and confirm(f"Spend up to ${plan.total_usd:.2f}?")):
                raise InputError("a live build spends money: re-run with --yes (or answer yes)")
        gateway = Gateway(
            project, store, simulator=SIMULATOR, run_id=f"bench-build-{uuid.uuid4().hex[:12]}", cache_mode="once"
        )
        try:
            recorded: list[str] = []
            if options.goldens:
                report(f"recording {len(tasks)} golden(s) ...")
                recording = record_tasks(project, [t.id for t in tasks], purpose="bless")
                if recording.errors:
                    raise InfraError(f"{len(recording.errors)} task(s) failed to record; first: {recording.errors[0]}")
                recorded = recording.written
                bless(project, recorded)
            goldens = load_goldens(project.path("goldens"))
            absent = [t.id for t in tasks if t.id not in goldens]
            if absent and stage_types:
                raise InputError(
                    f"no golden for {len(absent)} task(s), e.g. {absent[0]}: build without --no-goldens first"
                )
            env = ReplayEnv(
                project,
                load_tasks(project.path("tasks")),
                goldens,
                load_skills(project.path("skills")),
                gateway.model("agent", "replay"),
            )
            built: list[tuple[Edit, list[PairCheck]]] = []
            contexts = env.inject_context
            proposer: Proposer = (
                ModelProposer(gateway.model("injector", "inject"), paths.injector_prompt, contexts)
                if injects
                else TemplateProposer(contexts)  # the simulator's, or none called: nothing is injected
            )
            fixtures = FixtureSearch(project.root / paths.rel(paths.fixtures))
            for skill in skills:
                skill_text = (project.path("skills") / skill / "SKILL.md").read_text(encoding="utf-8")
                handles_faults = has_fault_handling(skill_text, contexts(skill).tools)
                for edit_type in stage_types:
                    if edit_type in FAULT_TYPES and not handles_faults:
                        continue  # R7 deletes fault handling and F0 refactors it: nothing to act on
                    if edit_type == "N0":
                        kept, dropped = build_n0(env, skill)
                    elif edit_type == "F0":
                        kept, dropped = build_f0(env, skill)
                    elif edit_type == "D1":
                        if skill not in WORLD_DEPENDENT_SKILLS:
                            continue
                        kept, dropped = build_d1(env, skill, work / "overlays", fixtures)
                    else:
                        r_type: EditType = edit_type  # type: ignore[assignment]
                        outcome = inject_type(
                            env, skill, r_type, proposer, base_content_hash=env.skills[skill].content_hash
                        )
                        kept, dropped = outcome.kept, outcome.dropped
                    built.extend(kept)
                    result.dropped.extend(dropped)
                    report(f"{skill} {edit_type}: kept {len(kept)}, dropped {len(dropped)}")
        finally:
            gateway.close()

    # Everything is computed: now write into the project.
    goldens_dir = paths.goldens
    for task_id in recorded:
        trace = goldens[task_id]
        target = goldens_dir / golden_relpath(trace)
        for stale in goldens_dir.glob(f"*/{task_id}.json"):
            if stale != target:
                stale.unlink()
        write_trace(target, trace)
    if options.goldens and not options.skills:
        known = {t.id for t in all_tasks}
        for stale in goldens_dir.glob("*/*.json"):
            if stale.stem not in known:
                stale.unlink()
    result.goldens = len(recorded)
    scope = {(s, t) for s in skills for t in stage_types}
    for stale in sorted(paths.edits.glob("*.json")) if paths.edits.is_dir() else []:
        parts = stale.stem.split(".")
        if len(parts) >= 3 and (".".join(parts[:-2]), parts[-2]) in scope:
            stale.unlink()
    new_labels: list[Label] = []
    for edit, checks in built:
        write_edit(paths.edits, edit)
        new_labels.append(label_for(edit, checks))
        result.edits[edit.type] = result.edits.get(edit.type, 0) + 1
    if scope:
        existing = read_labels(paths.labels)
        kept_labels = [lb for lb in (existing.labels if existing else []) if (lb.skill, lb.type) not in scope]
        labels = mark_reviews([*kept_labels, *new_labels])
        write_labels(paths.labels, LabelsFile(labels=labels))
        result.labels = len(labels)
    for edit, _ in built:
        result.tries[edit.type] = result.tries.get(edit.type, 0) + edit.tries
    result.digest = dataset_digest(paths)
    result.wall_s = round(time.perf_counter() - started, 2)
    return result
