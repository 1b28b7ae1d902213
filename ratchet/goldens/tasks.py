"""Tasks: the past work a skill must keep doing. Canaries are tasks no skill should take."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ratchet.core.errors import TaskFileError
from ratchet.core.gcpause import gc_paused
from ratchet.core.ids import IdKind, check_id
from ratchet.core.yamlio import load_yaml_text_with_lines
from ratchet.goldens.faults import FaultSpec
from ratchet.store.parsed import ParsedCache, blob_id

TASKS_SCHEMA_VERSION = 1
PARSED_TASKS_VERSION = 3  # 3: a fault's call and probability are strict (issue 30 review)
"""The version of parse_tasks' cached answer (ratchet.store.parsed): raise it when parsing changes what it accepts."""


class Task(BaseModel):
    """One task: a prompt, the skill expected to take it (None for a canary), and its workspace."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="Stable id; seeds derive from it.")
    prompt: str = Field(min_length=1)
    skill: str | None = Field(default=None, description="Expected skill; None marks a canary.")
    workspace: str | None = Field(default=None, description="Folder under the workspaces dir.")
    edge_case: bool = False
    notes: str = ""
    faults: tuple[FaultSpec, ...] = Field(
        default=(), description="Seeded tool faults for this task's runs (docs/faults.md); recorded on its golden."
    )

    @property
    def is_canary(self) -> bool:
        return self.skill is None


class TaskFile(BaseModel):
    """The tasks.yaml file."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = TASKS_SCHEMA_VERSION
    tasks: list[Task]


def task_seed(task_id: str) -> int:
    """The seed of a task: a hash of its id, never the clock."""
    return int.from_bytes(hashlib.sha256(task_id.encode()).digest()[:4], "big")


def parse_tasks(text: str, *, source: str) -> list[Task]:
    raw, lines = load_yaml_text_with_lines(text, list_key="tasks", source=source, error=TaskFileError)
    if not isinstance(raw, dict) or "tasks" not in raw:
        raise TaskFileError("expected a mapping with a 'tasks' list", path=source, line=1)
    if raw.get("schema_version", TASKS_SCHEMA_VERSION) != TASKS_SCHEMA_VERSION:
        raise TaskFileError(f"unsupported schema_version {raw.get('schema_version')!r}", path=source)
    try:
        parsed = TaskFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = first["loc"]
        line = None
        if len(loc) >= 2 and loc[0] == "tasks" and isinstance(loc[1], int) and loc[1] < len(lines):
            line = lines[loc[1]]
        where = ".".join(str(p) for p in loc)
        raise TaskFileError(f"{where}: {first['msg']}", path=source, line=line) from None
    seen: set[str] = set()
    for index, task in enumerate(parsed.tasks):
        line = lines[index] if index < len(lines) else None
        # Ids, expected skills and workspaces become paths (goldens/<skill>/<id>.json, <workspaces>/<name>/).
        check_id(IdKind.TASK, task.id, path=source, line=line, error=TaskFileError)
        if task.skill is not None:
            check_id(IdKind.SKILL, task.skill, path=source, line=line, error=TaskFileError)
        if task.workspace is not None:
            check_id(IdKind.WORKSPACE, task.workspace, path=source, line=line, error=TaskFileError)
        if task.id in seen:
            raise TaskFileError(f"duplicate task id {task.id!r}", path=source, line=line)
        seen.add(task.id)
    return parsed.tasks


def load_tasks(path: Path, cache: ParsedCache | None = None) -> list[Task]:
    """The tasks in a tasks.yaml; with a cache, a file parsed before (the same bytes) is not parsed again.

    Only a file that parsed without error is cached, so a cached answer is always the one parse_tasks gives.
    With the cyclic collector paused (ratchet.core.gcpause): 10,000 tasks make no cycles, only passes to pay for.
    """
    with gc_paused():
        return _load_tasks(path, cache)


def _load_tasks(path: Path, cache: ParsedCache | None) -> list[Task]:
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise TaskFileError("file not found", path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFileError(f"cannot read: {exc}", path=path) from None
    if cache is None:
        return parse_tasks(text, source=str(path))
    blob = blob_id(data)
    stored = cache.get("tasks", PARSED_TASKS_VERSION, blob)
    if isinstance(stored, list):
        try:
            # Built without validating again: these are parse_tasks' own dumps of these very bytes. Faults are
            # nested models, stored as mappings: only a task that declares some is validated (few do).
            return [Task.model_validate(row) if "faults" in row else Task.model_construct(**row) for row in stored]
        except (TypeError, ValidationError):
            pass  # not a list of mappings: a damaged entry, parsed again below
    tasks = parse_tasks(text, source=str(path))
    cache.put("tasks", PARSED_TASKS_VERSION, blob, [task.model_dump(exclude_unset=True) for task in tasks])
    return tasks
