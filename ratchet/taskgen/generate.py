"""`ratchet tasks generate` and `ratchet tasks accept`: generated tasks are reviewed like pending traces.

generate writes <work area>/generated/<skill>/: tasks.yaml (the tasks that survived the audit, as tasks.yaml
writes them), audit.json (every generated task, why it was kept or rejected) and traces/<id>.json (what each
recorded). Nothing in the project changes. accept appends the reviewed survivors (all, or the ids given) to
the project's tasks.yaml and moves their recordings into pending/, where `ratchet bless` takes them like any
other: the same review, the same thin-golden refusal.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from ratchet.config.project import Project, refuse_world_at_nothing
from ratchet.core.errors import GoldenError, InfraError, InputError
from ratchet.core.ids import IdKind, check_id, inside
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, decode_utf8, load_json_file
from ratchet.core.labels import SIMULATED
from ratchet.goldens.tasks import Task, load_tasks, parse_tasks
from ratchet.goldens.trace import Trace, read_trace, write_trace
from ratchet.skills.names import skill_key
from ratchet.skills.sets import load_skills
from ratchet.taskgen.audit import TaskAudit, record_and_audit, rejected
from ratchet.taskgen.expand import Generated, expand
from ratchet.taskgen.render import appended, tasks_yaml
from ratchet.taskgen.templates import Template, load_templates, templates_path
from ratchet.world.state import load_world

AUDIT_SCHEMA_VERSION = 1
AUDIT_FILE = "audit.json"
TASKS_FILE = "tasks.yaml"


class GenerationAudit(BaseModel):
    """audit.json: what one `ratchet tasks generate` made of one skill's templates, task by task."""

    schema_version: int = AUDIT_SCHEMA_VERSION
    skill: str
    seed: int
    upstream: str
    label: str = Field(default="", description=f"'{SIMULATED}' when recorded on the simulator.")
    tasks: list[TaskAudit]

    @property
    def accepted(self) -> list[TaskAudit]:
        return [audit for audit in self.tasks if audit.accepted]


def generated_dir(project: Project, skill: str) -> Path:
    return inside(project.home / "generated", check_id(IdKind.SKILL, skill))


def _known_skill(project: Project, skill: str) -> None:
    check_id(IdKind.SKILL, skill)
    if skill_key(skill) not in {skill_key(name) for name in load_skills(project.path("skills"))}:
        raise InputError(f"no skill {skill} in {project.path('skills')}")


def _duplicates(project: Project, generated: Sequence[Generated]) -> dict[str, str]:
    """Generated tasks not worth recording: an id tasks.yaml has, or a prompt already asked (by id -> why)."""
    existing = load_tasks(project.path("tasks"))
    ids = {task.id for task in existing}
    prompts = {task.prompt: f"task {task.id} in tasks.yaml" for task in existing}
    why: dict[str, str] = {}
    for item in generated:
        task = item.task
        if task.id in ids:
            why[task.id] = "its id is already in tasks.yaml (accepted before?)"
        elif task.prompt in prompts:
            why[task.id] = f"the same prompt as {prompts[task.prompt]}"
        else:
            prompts[task.prompt] = task.id
    return why


def generate_tasks(project: Project, skill: str, *, seed: int) -> GenerationAudit:
    """Expand the skill's templates for `seed`, record and audit every new task, write the set for review."""
    refuse_world_at_nothing(project)
    _known_skill(project, skill)
    path = templates_path(project.path("tasks"))
    templates, lines = load_templates(path)
    mine = [
        (template, line)
        for template, line in zip(templates, lines, strict=False)
        if skill_key(template.skill) == skill_key(skill)
    ]
    if not mine:
        raise InputError(f"no template for skill {skill}", path=path)
    _check_workspaces(project, mine, path)
    world = load_world(project.path("world"), workspaces_dir=None, workspace=None, frozen_time=project.config.clock)
    generated = expand([t for t, _ in mine], world.data, seed=seed, source=str(path), lines=[line for _, line in mine])
    skipped = _duplicates(project, generated)
    target = generated_dir(project, skill)
    work = target.with_name(f".{skill}.work")
    try:
        _clear(work)  # what an interrupted run left there must not leak into this set
        candidates = [item for item in generated if item.task.id not in skipped]
        audits, traces, _ = record_and_audit(project, skill, candidates, work / "audit")
        by_id = {audit.id: audit for audit in audits}
        rows = [
            by_id.get(item.task.id) or rejected(item, f"not recorded: {skipped[item.task.id]}") for item in generated
        ]
        simulated = project.config.upstream == "sim"
        audit = GenerationAudit(
            skill=skill, seed=seed, upstream=project.config.upstream, label=SIMULATED if simulated else "", tasks=rows
        )
        # Written beside the old set, then swapped in: a failed run leaves the previous set whole.
        by_task = {item.task.id: item.task for item in generated}
        _swap_in(work / "out", target, audit, [by_task[row.id] for row in audit.accepted], traces)
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the scratch copy goes on every exit, error or not
    return audit


def _clear(folder: Path) -> None:
    try:
        shutil.rmtree(folder)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise InfraError(f"cannot clear the work folder: {exc}", path=folder) from None


def _check_workspaces(project: Project, templates: Sequence[tuple[Template, int]], source: Path) -> None:
    """A workspace a template names must be there: found now, the error names the template, not a scratch copy."""
    workspaces = project.path("workspaces")
    for template, line in templates:
        if template.workspace is not None and not inside(workspaces, template.workspace).is_dir():
            raise InputError(
                f"template {template.id}: workspace {template.workspace!r} not found in {workspaces}",
                path=source,
                line=line,
            )


def _swap_in(
    staged: Path, target: Path, audit: GenerationAudit, kept: Sequence[Task], traces: dict[str, Trace]
) -> None:
    try:
        atomic_write_text(staged / TASKS_FILE, tasks_yaml(kept))
        atomic_write_text(staged / AUDIT_FILE, canonical_dumps(audit.model_dump(mode="json")))
        for task_id, trace in traces.items():
            write_trace(staged / "traces" / f"{task_id}.json", trace)
        if target.exists():
            shutil.rmtree(target)
        staged.rename(target)
    except OSError as exc:
        raise InfraError(f"cannot write the generated tasks: {exc}", path=target) from None


def read_generation(project: Project, skill: str) -> GenerationAudit:
    """The set `ratchet tasks generate SKILL` left for review; InputError when there is none."""
    where = generated_dir(project, skill)
    path = where / AUDIT_FILE
    if not path.exists():
        raise InputError(
            f"no generated tasks for skill {skill} (run `ratchet tasks generate {skill}` first)", path=where
        )
    return GenerationAudit.model_validate(load_json_file(path, error=GoldenError))


class AcceptResult(BaseModel):
    accepted: list[str]
    tasks_file: Path
    pending: list[Path]


def accept_generated(project: Project, skill: str, task_ids: Sequence[str] = ()) -> AcceptResult:
    """Append the reviewed survivors (all, or the ids given) to tasks.yaml; move their recordings to pending/.

    Ordered so that an interrupted accept leaves nothing half-done and can be run again: the traces are copied
    into pending/, then tasks.yaml is written (the one step that lands the tasks), then the reviewed set forgets
    them. A re-run finds the tasks already appended (the same tasks, by id) and finishes the rest.
    """
    audit = read_generation(project, skill)
    where = generated_dir(project, skill)
    chosen = _chosen(audit, skill, task_ids, where / AUDIT_FILE)
    reviewed = {task.id: task for task in load_tasks(where / TASKS_FILE)}
    missing = [task_id for task_id in chosen if task_id not in reviewed]
    if missing:
        raise InputError(f"{', '.join(missing)} not in the reviewed file any more", path=where / TASKS_FILE)
    tasks_file = project.path("tasks")
    text = _read_as_is(tasks_file)
    fresh = _not_yet_there(text, [reviewed[task_id] for task_id in chosen], tasks_file)
    new_text = appended(text, fresh, source=tasks_file) if fresh else text
    traces = [read_trace(where / "traces" / f"{task_id}.json") for task_id in chosen]  # all read before any write
    left = [row for row in audit.tasks if row.id not in chosen]
    pending: list[Path] = []
    try:
        for task_id, trace in zip(chosen, traces, strict=True):
            target = inside(project.pending_dir, f"{task_id}.json")
            write_trace(target, trace)
            pending.append(target)
        if new_text != text:
            atomic_write_text(tasks_file, new_text)
        atomic_write_text(where / TASKS_FILE, tasks_yaml([reviewed[row.id] for row in left if row.accepted]))
        atomic_write_text(
            where / AUDIT_FILE, canonical_dumps(audit.model_copy(update={"tasks": left}).model_dump(mode="json"))
        )
        for task_id in chosen:
            (where / "traces" / f"{task_id}.json").unlink(missing_ok=True)
    except OSError as exc:
        raise InfraError(f"cannot accept the generated tasks: {exc}; run the same accept again", path=where) from None
    return AcceptResult(accepted=chosen, tasks_file=tasks_file, pending=pending)


def _chosen(audit: GenerationAudit, skill: str, task_ids: Sequence[str], source: Path) -> list[str]:
    """The ids to accept (all survivors when none are given); InputError for a repeated, unknown or rejected one."""
    survivors = {row.id: row for row in audit.accepted}
    known = {row.id: row for row in audit.tasks}
    for index, task_id in enumerate(task_ids):
        if task_id in task_ids[:index]:
            raise InputError(f"task {task_id} is named twice", path=source)
        if task_id not in known:
            raise InputError(f"no generated task {task_id} for skill {skill}", path=source)
        if task_id not in survivors:
            raise InputError(
                f"generated task {task_id} did not survive the audit ({'; '.join(known[task_id].reasons)})",
                path=source,
            )
    chosen = list(task_ids) or list(survivors)
    if not chosen:
        raise InputError(f"no generated task of skill {skill} survived the audit; nothing to accept", path=source)
    return chosen


def _read_as_is(path: Path) -> str:
    """A file's text with its line endings kept (read_text would turn CRLF into LF, and the write rewrite it all)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except OSError as exc:
        raise InfraError(f"cannot read: {exc}", path=path) from None
    return decode_utf8(data, path=path, error=InputError)


def _not_yet_there(text: str, tasks: Sequence[Task], source: Path) -> list[Task]:
    """The tasks tasks.yaml does not hold yet; one already there unchanged (an interrupted accept) is skipped.

    InputError when tasks.yaml gained, since generate, another task with one's id or one's prompt."""
    existing = parse_tasks(text, source=str(source))
    by_id = {task.id: task for task in existing}
    prompts = {task.prompt: task.id for task in existing}
    fresh: list[Task] = []
    for task in tasks:
        if task.id in by_id:
            if by_id[task.id] == task:
                continue
            raise InputError(
                f"task id {task.id} is already in tasks.yaml, for another task: rename one of them, or accept the others",
                path=source,
            )
        if task.prompt in prompts:
            raise InputError(
                f"generated task {task.id} asks the same prompt as task {prompts[task.prompt]}", path=source
            )
        fresh.append(task)
    return fresh
