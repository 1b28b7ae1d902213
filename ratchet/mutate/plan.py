"""What a `ratchet mutate` run will do, before it does it: the base it reads, the mutants it checks, the price.

Everything comes from the base commit (an export under Ratchet's work area), as a check reads its gate
from the base (docs/adr/0011): ratchet.yaml, the skills the operators mutate, the world whose tools they
may call, the tasks and goldens the mutants are checked against, and the gate config that judges them.
A mutant with no effect after normalisation (ratchet.skills.skill.substance_of for Markdown, the exact
text for anything else) is dropped here, before any check is paid for; every kept mutant carries a diff.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

from ratchet.config.gate import GateConfig, config_repo_path, gate_config_path, load_gate_config
from ratchet.config.project import Project
from ratchet.core.errors import GoldenError, InputError
from ratchet.gate.base_state import blessed_state
from ratchet.gate.select import affected_goldens
from ratchet.goldens.noise import NoiseRecord
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.llm.budget import Estimate, estimate
from ratchet.mutate.models import MUTANT_CLASSES, Mutant
from ratchet.mutate.operators import MutantSet, tool_infos
from ratchet.sim.follow import follow_report
from ratchet.sim.injector import ToolInfo
from ratchet.skills.names import skill_key
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill, parse_skill_text, substance_of
from ratchet.world.state import load_world
from ratchet.world.tools import offered_tools

SKILL_FILE = "SKILL.md"


class MutantSource(Protocol):
    """Where mutants come from: ratchet.mutate.operators.mutate_skill (its MutantSet counts the equivalent
    candidates it dropped), or a plain list (a test's hand-made mutants)."""

    def __call__(
        self, skill: Skill, folder: Path, *, tools: Sequence[ToolInfo], seed: int
    ) -> Sequence[Mutant] | MutantSet: ...


@dataclass(frozen=True)
class BaseState:
    """The base commit as the run reads it: exported at `tree`, with the project read from it."""

    sha: str
    tree: Path
    project: Project
    gate: GateConfig
    skills: dict[str, Skill]
    tasks: list[Task]
    goldens: dict[str, Trace]
    noise: Mapping[str, NoiseRecord]


def read_base(sha: str, tree: Path, project: Project, config: str, *, repo_root: Path) -> BaseState:
    """The base exported at `tree`: its skills, tasks, goldens (none is refused: nothing to mutate against)
    and the gate config (a name, or a path read at the base when it lies inside the repository)."""
    paths = project.config.paths
    skills = load_skills(tree / paths.skills)
    tasks, goldens, noise = blessed_state(tree, project, None) if (tree / paths.goldens).is_dir() else ([], {}, {})
    if not goldens:
        raise GoldenError(
            f"nothing blessed at {sha[:10]}: no golden for a mutant to be checked against; "
            "run ratchet record && ratchet bless, commit the goldens, then ratchet mutate"
        )
    inside = config_repo_path(config, repo_root)
    config_file = tree / inside if inside is not None else gate_config_path(config, project_root=tree)
    gate = load_gate_config(config_file, project_root=tree)
    return BaseState(sha, tree, project, gate, skills, tasks, goldens, noise)


def chosen_skills(base: BaseState, names: Sequence[str]) -> list[Skill]:
    """The named skills (every skill at the base when none is named), by name; an unknown name is refused."""
    by_key = {skill_key(name): skill for name, skill in base.skills.items()}
    if not names:
        return [by_key[key] for key in sorted(by_key)]
    known = ", ".join(sorted(base.skills))
    chosen: dict[str, Skill] = {}
    for name in names:
        skill = by_key.get(skill_key(name))
        if skill is None:
            raise InputError(f"unknown skill {name!r} at {base.sha[:10]}: known {known}")
        chosen[skill_key(skill.name)] = skill
    return [chosen[key] for key in sorted(chosen)]


def world_tools(base: BaseState) -> tuple[ToolInfo, ...]:
    """The tools the base's world offers, as the operators see them (name, effect, parameters)."""
    world = load_world(
        base.tree / base.project.config.paths.world,
        workspaces_dir=None,
        workspace=None,
        frozen_time=base.project.config.clock,
    )
    return tool_infos(offered_tools(world))


def unfollowed_skills(base: BaseState, skills: Sequence[Skill]) -> dict[str, str]:
    """On the simulator: each of `skills` it cannot follow -> why (ratchet.sim.follow, with the tools the world
    offers). Its goldens hold what the simulator did, not what the skill asks, so no mutant of its prose can
    show in a replay: the report says so next to the score. Empty on a live upstream (a model reads prose)."""
    if base.project.config.upstream != "sim":
        return {}
    tools = frozenset(tool.name for tool in world_tools(base))
    reports = {skill.name: follow_report(skill.body, tools, body_line=skill.body_line) for skill in skills}
    return {name: report.reason or "nothing it can act on" for name, report in reports.items() if not report.followable}


@dataclass(frozen=True)
class Planned:
    """The mutants a run checks, in order, each with the repo paths and texts it commits."""

    mutants: list[Mutant]
    files: dict[str, dict[str, str]]
    """Mutant id -> repo path -> the whole new text."""
    dropped_equivalent: int


def planned_mutants(
    base: BaseState, skills: Sequence[Skill], source: MutantSource, *, seed: int, limit: int | None
) -> Planned:
    """Each skill's mutants from `source`, equivalent ones dropped, at most `limit` per skill (taken in turn
    from each class, R1 to R6, so a short run still samples every class)."""
    tools = world_tools(base)
    kept: list[Mutant] = []
    files: dict[str, dict[str, str]] = {}
    dropped = 0
    for skill in skills:
        folder = Path(skill.folder)
        in_repo = folder.relative_to(base.tree).as_posix()
        made = source(skill, folder, tools=tools, seed=seed)
        if isinstance(made, MutantSet):
            dropped += made.dropped_equivalent
            made = made.mutants
        mine: list[Mutant] = []
        for mutant in made:
            changed, diff = _effect(mutant, folder, in_repo)
            if not changed:
                dropped += 1
                continue
            files[mutant.id] = changed
            mine.append(mutant if mutant.diff else mutant.model_copy(update={"diff": diff}))
        kept.extend(_in_turn(mine, limit))
    return Planned(kept, files, dropped)


def _effect(mutant: Mutant, folder: Path, in_repo: str) -> tuple[dict[str, str], str]:
    """The files a mutant changes (repo path -> text; empty when none changes after normalisation), and
    their unified diff."""
    changed: dict[str, str] = {}
    diff: list[str] = []
    for rel, new in sorted(mutant.files.items()):
        path = PurePosixPath(rel)
        if path.is_absolute() or ".." in path.parts:
            raise ValueError(f"mutant {mutant.id}: {rel!r} is not a path inside the skill folder")
        old_file = folder / rel
        old = old_file.read_text(encoding="utf-8") if old_file.is_file() else None
        if old is not None and _normal(old, rel) == _normal(new, rel):
            continue
        repo_path = f"{in_repo}/{path.as_posix()}"
        changed[repo_path] = new
        diff.extend(_unified(old, new, repo_path))
    return changed, "".join(diff)


def _normal(text: str, rel: str) -> str:
    # Whitespace and comments carry no instruction in Markdown; in a script, indentation can.
    return substance_of(text) if rel.lower().endswith(".md") else text


def _unified(old: str | None, new: str, repo_path: str) -> list[str]:
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{repo_path}" if old is not None else "/dev/null",
        tofile=f"b/{repo_path}",
    )
    return [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]


def _in_turn(mutants: list[Mutant], limit: int | None) -> list[Mutant]:
    if limit is None or len(mutants) <= limit:
        return mutants
    queues = {cls: [m for m in mutants if m.mutant_class == cls] for cls in MUTANT_CLASSES}
    taken: set[str] = set()
    while len(taken) < limit:
        for queue in queues.values():
            if queue and len(taken) < limit:
                taken.add(queue.pop(0).id)
    return [m for m in mutants if m.id in taken]


def plan_estimate(base: BaseState, planned: Planned) -> Estimate:
    """The worst case at the per-call token budgets (ratchet.llm.budget), never the ledger's means, so the
    same plan prices the same on every run: each mutant's selected goldens replayed (with drift's base
    replay, and up to max_replays for a golden with a noise record), and judged by every tier."""
    gate, config = base.gate, base.project.config
    replays = 0
    judged = 0
    for mutant in planned.mutants:
        for item in _selection(base, mutant, planned.files[mutant.id]):
            runs = gate.max_replays if item in base.noise else 1
            replays += runs + (1 if gate.drift.enabled else 0)
            judged += runs
    calls = {"replay": replays} if replays else {}
    for step in gate.tiers:
        if judged:
            calls[f"judge-{step.tier}"] = judged * (2 if step.swap_check else 1)
    return estimate(config, calls)


def _selection(base: BaseState, mutant: Mutant, files: Mapping[str, str]) -> list[str]:
    """Task ids the check of this mutant would replay (ratchet.gate.select, over the mutated SKILL.md)."""
    skill = next(s for s in base.skills.values() if skill_key(s.name) == skill_key(mutant.skill))
    folder = Path(skill.folder)
    text = files.get(f"{folder.relative_to(base.tree).as_posix()}/{SKILL_FILE}")
    head = dict(base.skills)
    if text is not None:
        head[skill.name] = _parsed(text, folder, mutant.id, fallback=skill)
    config = base.project.config
    selected = affected_goldens(
        base.tasks,
        base.goldens,
        [skill.name],
        head,
        routing="model" if config.routes_by_model else "lexical",
        base_skills=base.skills,
        neighbours=config.routing_neighbours,
    )
    return [item.task.id for item in selected]


def _parsed(text: str, folder: Path, source: str, *, fallback: Skill) -> Skill:
    # A mutant the parser refuses is still checked (the check names the refusal); it routes as the base did.
    try:
        return parse_skill_text(text, folder=folder, source=source)
    except InputError:
        return fallback
