"""Generated tasks as tasks.yaml text: the reviewed file, and the append `ratchet tasks accept` makes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from ratchet.core.errors import InputError
from ratchet.core.yamlio import load_yaml_text_with_lines
from ratchet.goldens.tasks import TASKS_SCHEMA_VERSION, Task, parse_tasks


def _row(task: Task) -> dict[str, Any]:
    """A task as tasks.yaml writes one: id, skill, workspace, prompt, then what is set."""
    row: dict[str, Any] = {"id": task.id, "skill": task.skill}
    if task.workspace is not None:
        row["workspace"] = task.workspace
    row["prompt"] = task.prompt
    if task.edge_case:
        row["edge_case"] = True
    if task.notes:
        row["notes"] = task.notes
    return row


def _dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def tasks_yaml(tasks: Sequence[Task]) -> str:
    """A whole tasks.yaml holding `tasks`."""
    return f"schema_version: {TASKS_SCHEMA_VERSION}\n" + _dump({"tasks": [_row(task) for task in tasks]})


def appended(text: str, tasks: Sequence[Task], *, source: Path) -> str:
    """`text` (a tasks.yaml, line endings as on disk) with `tasks` added at the end of its list, in its own line
    ending; the rest of the file byte for byte.

    InputError when the file's shape does not allow a plain append (its list is written inline, or another key
    follows it): the parsed result is checked to be the old tasks followed by the new ones, or nothing is written.
    """
    old = parse_tasks(text, source=str(source))
    _, lines = load_yaml_text_with_lines(text, list_key="tasks", source=str(source), error=InputError)
    by_hand = "add the generated tasks to it by hand (ratchet tasks generate printed where they are)"
    if not lines:
        raise InputError(f"its task list has no item to append after; {by_hand}", path=source)
    first = text.splitlines()[lines[0] - 1]
    indent = first[: len(first) - len(first.lstrip())]
    newline = "\r\n" if "\r\n" in text else "\n"  # the file's own line ending, so its bytes stay as they are
    dumped = _dump([_row(t) for t in tasks]).splitlines()
    block = "".join(f"{indent}{line}{newline}" if line else newline for line in dumped)
    result = (text if text.endswith("\n") or not text else text + newline) + block
    try:
        now = parse_tasks(result, source=str(source))
    except InputError:
        now = []
    if now != [*old, *tasks]:
        raise InputError(f"the tasks cannot be appended without rewriting the file; {by_hand}", path=source)
    return result
