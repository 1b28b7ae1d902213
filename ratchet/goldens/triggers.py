"""Trigger queries: requests that must fire a skill, or must not (docs/triggers.md).

A trigger query is a prompt about one skill: a should-fire query must fire it; a should-not-fire
query (a near miss, a neighbour's request) must not; a canary query (skill None) must fire no
skill. They come from triggers.yaml beside tasks.yaml, and from tasks.yaml itself (a task with a
skill should fire it; a canary task should fire none):

    schema_version: 1
    triggers:
      - skill: github-triage                 # or `skill: null`: requests no skill may take
        should_fire:
          - "Label issue #12 in acme/api as a bug"
          - {id: triage-by-number, prompt: "Triage #7"}
        should_not_fire:
          - "Summarise the README of acme/api"

Ids are `<skill>:fire:<n>` and `<skill>:not:<n>` (`canary:not:<n>` for skill null), n from 1 per
skill and kind in file order, unless an item gives its own `id` (a task id: no colon, so it never
meets a generated one). A query from tasks.yaml is `task:<task id>`. Every fault is one
TaskFileError naming triggers.yaml and the line.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from ratchet.core.errors import TaskFileError
from ratchet.core.ids import IdKind, check_id
from ratchet.core.yamlio import compose_yaml, load_yaml_text, read_yaml_file
from ratchet.goldens.tasks import Task
from ratchet.skills.names import skill_key

TRIGGERS_FILE = "triggers.yaml"
TRIGGERS_SCHEMA_VERSION = 1
CANARY_PREFIX = "canary"
"""The id prefix of a `skill: null` set's queries."""
_SET_KEYS = ("skill", "should_fire", "should_not_fire")
_KINDS = {"should_fire": (True, "fire"), "should_not_fire": (False, "not")}


class TriggerQuery(BaseModel):
    """One request and what routing must do with it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(
        description="<skill>:fire:<n>, <skill>:not:<n>, canary:not:<n>, task:<task id> or the item's own id."
    )
    prompt: str = Field(min_length=1)
    skill: str | None = Field(description="The skill the query is about; None: a canary (no skill may fire).")
    should_fire: bool = Field(description="True: `skill` must fire. False: `skill` (any skill, for a canary) must not.")
    source: Literal["triggers", "tasks"]

    def fired_counts(self, fired: str | None) -> bool:
        """Whether a run that fired `fired` (None: no skill) counts as a FIRE of this query."""
        if self.skill is None:
            return fired is not None
        return fired is not None and skill_key(fired) == skill_key(self.skill)


def _lines(text: str) -> dict[tuple[int | str, ...], int]:
    """1-based line of every node by its path (("triggers", 0, "should_fire", 2) ...), for error messages."""
    try:
        root = compose_yaml(text)
    except yaml.YAMLError:
        return {}
    found: dict[tuple[int | str, ...], int] = {}

    def walk(node: yaml.Node, path: tuple[int | str, ...]) -> None:
        found[path] = node.start_mark.line + 1
        if isinstance(node, yaml.SequenceNode):
            for index, child in enumerate(node.value):
                walk(child, (*path, index))
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    found.setdefault((*path, key.value), key.start_mark.line + 1)
                    walk(value, (*path, key.value))

    if root is not None:
        walk(root, ())
    return found


class _Reader:
    """Walks the parsed file, raising the first fault with its line."""

    def __init__(
        self, source: str, lines: dict[tuple[int | str, ...], int], known: frozenset[str] | None = None
    ) -> None:
        self.source = source
        self.lines = lines
        self.known = known

    def line(self, *path: int | str) -> int | None:
        """The line of the nearest node on `path` that has one."""
        for cut in range(len(path), -1, -1):
            line = self.lines.get(path[:cut])
            if line is not None:
                return line
        return None

    def fail(self, message: str, *path: int | str) -> TaskFileError:
        return TaskFileError(message, path=self.source, line=self.line(*path))

    def item(self, raw: Any, *path: int | str) -> tuple[str | None, str]:
        """(an explicit id or None, the prompt) of one should_fire / should_not_fire item."""
        where = ".".join(str(p) for p in path)
        if isinstance(raw, str):
            if not raw.strip():
                raise self.fail(f"{where}: an empty prompt", *path)
            return None, raw
        if isinstance(raw, dict):
            extra = sorted(str(k) for k in raw if k not in ("id", "prompt"))
            if extra:
                raise self.fail(f"{where}: unknown key {extra[0]!r} (an item is a prompt, or {{id, prompt}})", *path)
            prompt = raw.get("prompt")
            if not isinstance(prompt, str) or not prompt.strip():
                raise self.fail(f"{where}.prompt: needs a non-empty prompt (a string)", *path)
            query_id = raw.get("id")
            if query_id is None:
                return None, prompt
            line = self.line(*path, "id")
            check_id(IdKind.TASK, query_id, path=self.source, line=line, error=TaskFileError)
            return str(query_id), prompt
        raise self.fail(f"{where}: must be a prompt (a string) or {{id, prompt}}, not {type(raw).__name__}", *path)

    def entry(self, raw: Any, index: int, counters: dict[tuple[str, str], int]) -> list[TriggerQuery]:
        path: tuple[int | str, ...] = ("triggers", index)
        if not isinstance(raw, dict):
            raise self.fail(f"triggers.{index}: must be a mapping with skill, should_fire, should_not_fire", *path)
        extra = sorted(str(k) for k in raw if k not in _SET_KEYS)
        if extra:
            raise self.fail(
                f"triggers.{index}: unknown key {extra[0]!r} (known: {', '.join(_SET_KEYS)})", *path, extra[0]
            )
        if "skill" not in raw:
            raise self.fail(
                f"triggers.{index}: needs `skill` (a skill name, or null for requests no skill may take)", *path
            )
        skill = raw["skill"]
        if skill is not None:
            line = self.line(*path, "skill")
            check_id(IdKind.SKILL, skill, path=self.source, line=line, error=TaskFileError)
            if self.known is not None and skill_key(skill) not in self.known:
                raise self.fail(f"triggers.{index}.skill: no skill {skill!r} in the skills folder", *path, "skill")
        queries: list[TriggerQuery] = []
        for key, (should_fire, kind) in _KINDS.items():
            items = raw.get(key)
            if items is None:
                continue
            if not isinstance(items, list):
                raise self.fail(f"triggers.{index}.{key}: must be a list of prompts", *path, key)
            if should_fire and skill is None and items:
                raise self.fail(
                    f"triggers.{index}.should_fire: a `skill: null` set lists requests no skill may take: "
                    "use should_not_fire",
                    *path,
                    key,
                )
            for position, item in enumerate(items):
                own_id, prompt = self.item(item, *path, key, position)
                prefix = CANARY_PREFIX if skill is None else str(skill)
                counters[(prefix, kind)] = counters.get((prefix, kind), 0) + 1
                query_id = own_id if own_id is not None else f"{prefix}:{kind}:{counters[(prefix, kind)]}"
                queries.append(
                    TriggerQuery(id=query_id, prompt=prompt, skill=skill, should_fire=should_fire, source="triggers")
                )
        if not queries:
            raise self.fail(f"triggers.{index}: lists no prompt (give should_fire or should_not_fire)", *path)
        return queries


def parse_triggers(text: str, *, source: str, known_skills: Collection[str] | None = None) -> list[TriggerQuery]:
    """The queries of a triggers.yaml text, in file order; TaskFileError (with the line) on any fault.

    `known_skills`: the library's skill names; a set naming another skill is then a fault too.
    """
    raw = load_yaml_text(text, source=source, error=TaskFileError)
    known = frozenset(skill_key(name) for name in known_skills) if known_skills is not None else None
    reader = _Reader(source, _lines(text), known)
    if not isinstance(raw, dict) or "triggers" not in raw:
        raise TaskFileError("expected a mapping with a 'triggers' list", path=source, line=1)
    if raw.get("schema_version", TRIGGERS_SCHEMA_VERSION) != TRIGGERS_SCHEMA_VERSION:
        raise reader.fail(f"unsupported schema_version {raw.get('schema_version')!r}", "schema_version")
    extra = sorted(str(k) for k in raw if k not in ("schema_version", "triggers"))
    if extra:
        raise reader.fail(f"unknown key {extra[0]!r} (known: schema_version, triggers)", extra[0])
    entries = raw["triggers"]
    if entries is None:  # `triggers:` with every example commented out
        return []
    if not isinstance(entries, list):
        raise reader.fail("triggers: must be a list", "triggers")
    counters: dict[tuple[str, str], int] = {}
    queries: list[TriggerQuery] = []
    seen: dict[str, int | None] = {}
    for index, entry in enumerate(entries):
        for query in reader.entry(entry, index, counters):
            if query.id in seen:
                raise reader.fail(f"duplicate trigger query id {query.id!r}", "triggers", index)
            seen[query.id] = None
            queries.append(query)
    return queries


def triggers_path(tasks_path: Path) -> Path:
    """Where a project's triggers.yaml is: beside its tasks.yaml."""
    return tasks_path.parent / TRIGGERS_FILE


def load_triggers(
    path: Path, *, known_skills: Collection[str] | None = None, shown: str | None = None
) -> list[TriggerQuery]:
    """The queries of a triggers.yaml file; TaskFileError when it cannot be read or is invalid (`shown`: its name
    in messages, default the path)."""
    text = read_yaml_file(path, error=TaskFileError)
    return parse_triggers(text, source=shown if shown is not None else str(path), known_skills=known_skills)


def task_queries(tasks: Sequence[Task]) -> list[TriggerQuery]:
    """One query per task: a skill's task should fire it; a canary should fire none."""
    return [
        TriggerQuery(
            id=f"task:{task.id}",
            prompt=task.prompt,
            skill=task.skill,
            should_fire=task.skill is not None,
            source="tasks",
        )
        for task in tasks
    ]


def load_trigger_queries(tasks_path: Path, tasks: Sequence[Task]) -> list[TriggerQuery]:
    """triggers.yaml beside tasks.yaml when present, then one query per task, in file order; duplicate ids refused."""
    path = triggers_path(tasks_path)
    queries = load_triggers(path) if path.exists() else []
    seen = {query.id for query in queries}
    for query in task_queries(tasks):
        if query.id in seen:  # tasks.yaml's own ids are unique, and a triggers.yaml id cannot hold a colon
            raise TaskFileError(f"duplicate trigger query id {query.id!r}", path=path)
        seen.add(query.id)
        queries.append(query)
    return queries
