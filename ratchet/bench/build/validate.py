"""`ratchet bench validate`: the dataset is well formed, routes as labeled, and audits clean.

Structure: skills pass the agentskills.io rules, tasks load, the world and fixtures load,
every workspace a task names exists, every task routes to its skill and every canary to none,
every edit has exactly one label and is unchanged since. Audit (ratchet.bench.build.audit): replays over a scratch copy.
The first problem stops it with one line and exit 2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ratchet.agent.trigger import match_skill
from ratchet.bench.build.labels import checked_labels
from ratchet.bench.data.dataset import BenchPaths
from ratchet.bench.data.digest import dataset_digest, read_digests, record_digest, state_hash
from ratchet.bench.data.models import edit_hash
from ratchet.core.errors import InputError, SkillError, TaskFileError
from ratchet.core.labels import __version__
from ratchet.core.yamlio import item_lines
from ratchet.gate.drift import FixtureSearch
from ratchet.goldens.tasks import load_tasks
from ratchet.skills.sets import load_skills, validate_paths
from ratchet.world.state import load_world

Report = Callable[[str], None]


@dataclass
class ValidateReport:
    digest: str
    state_hash: str
    recorded: str | None = None


def check_structure(paths: BenchPaths, report: Report) -> None:
    """Skills, tasks, world, fixtures, workspaces and routing; InputError on the first problem."""
    errors = [p for p in validate_paths([paths.skills]) if p.severity == "error"]
    if errors:
        raise SkillError(errors[0].render() + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))
    skills = load_skills(paths.skills)
    report(f"skills: {len(skills)} valid")
    tasks = load_tasks(paths.tasks)
    lines = item_lines(paths.tasks.read_text(encoding="utf-8"), "tasks")
    world = load_world(
        paths.world, workspaces_dir=paths.workspaces, workspace=None, frozen_time=paths.project.config.clock
    )
    if not world.data:
        # A user project may have no world (load_world answers an empty one); the benchmark's tasks need theirs.
        raise InputError(
            "the benchmark's world is missing or empty: paths.world must point at its YAML files",
            path=paths.rel(paths.world),
        )
    report(f"world: {len(world.data)} section(s), {len(world.volatile_patterns)} volatile pattern(s)")
    fixtures = FixtureSearch(paths.fixtures)
    report(f"fixtures: {len(fixtures.facts)} fact(s)")
    source = paths.rel(paths.tasks)
    for index, task in enumerate(tasks):
        line = lines[index] if index < len(lines) else None
        if task.skill is not None and task.skill not in skills:
            raise TaskFileError(
                f"task {task.id} names skill {task.skill!r}, which is not in {paths.rel(paths.skills)}",
                path=source,
                line=line,
            )
        if task.workspace is not None and not (paths.workspaces / task.workspace).is_dir():
            raise TaskFileError(
                f"task {task.id} names workspace {task.workspace!r}, not found in {paths.rel(paths.workspaces)}",
                path=source,
                line=line,
            )
        routed = match_skill(task.prompt, skills)
        if routed != task.skill:
            expected = task.skill or "no skill (a canary)"
            raise TaskFileError(
                f"task {task.id} routes to {routed or 'no skill'}, not {expected}: reword the prompt or fix its skill",
                path=source,
                line=line,
            )
    canaries = sum(1 for t in tasks if t.is_canary)
    report(f"tasks: {len(tasks) - canaries} route to their skill, {canaries} canaries to none")
    labels, edits = checked_labels(paths)
    if labels is not None:
        for label in labels.labels:
            edit = edits[label.edit_id]
            if edit_hash(edit) != label.edit_hash:
                raise InputError(
                    f"edit {label.edit_id} changed since it was labeled: rebuild",
                    path=f"{paths.rel(paths.edits)}/{label.edit_id}.json",
                )
        report(f"labels: {len(labels.labels)} edit(s), each matches its edit file")


def validate_bench(
    root: Path, *, audit: bool = True, work: Path | None = None, record: bool = False, report: Report = lambda _l: None
) -> ValidateReport:
    paths = BenchPaths.at(root)
    check_structure(paths, report)
    if audit:
        from ratchet.bench.build.audit import audit_bench

        audit_bench(paths, work=work, report=report)
    result = ValidateReport(digest=dataset_digest(paths), state_hash=state_hash(paths))
    report(f"generation state hash {result.state_hash}")
    if record:
        record_digest(paths)
        result.recorded = __version__
    else:
        recorded = read_digests(paths.digests).releases
        entry = recorded.get(__version__)
        if entry is not None and entry.digest != result.digest:
            report(
                f"note: the digest recorded for {__version__} in {paths.rel(paths.digests)} differs: record a new release with --record-digest"
            )
    return result
