"""load_tasks with the parsed-file cache (ratchet.store.parsed) answers what parsing answers.

Cold, warm, with a damaged entry, after the file changes, and for a file that does not parse
(never cached: its error is reported every time).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import TaskFileError
from ratchet.goldens.tasks import Task, load_tasks, parse_tasks
from ratchet.store.parsed import ParsedCache

TASKS = """\
schema_version: 1
tasks:
  - id: first-01
    prompt: do the first thing
    skill: weekly-report
    edge_case: true
  - id: canary-01
    prompt: "write a haiku \\u00e9t\\u00e9"
    workspace: fx-weekend-trip
"""


def _dumps(tasks: list[Task]) -> list[tuple[dict[str, object], set[str]]]:
    return [(t.model_dump(), t.model_fields_set) for t in tasks]


def test_cold_warm_damaged_and_changed_files_read_as_parsed(tmp_path: Path) -> None:
    path = tmp_path / "tasks.yaml"
    path.write_text(TASKS, encoding="utf-8")
    cache = ParsedCache(tmp_path / "home")
    want = _dumps(parse_tasks(TASKS, source=str(path)))
    assert _dumps(load_tasks(path, cache)) == want  # cold
    [entry] = cache.root.rglob("*.json")
    assert _dumps(load_tasks(path, cache)) == want  # warm
    entry.write_bytes(entry.read_bytes().replace(b"first thing", b"other thing"))
    assert _dumps(load_tasks(path, cache)) == want  # damaged: its digest no longer matches, so it is parsed again
    changed = TASKS.replace("do the first thing", "do the second thing")
    path.write_text(changed, encoding="utf-8")
    assert _dumps(load_tasks(path, cache)) == _dumps(parse_tasks(changed, source=str(path)))


def test_a_file_that_does_not_parse_is_an_error_every_time(tmp_path: Path) -> None:
    path = tmp_path / "tasks.yaml"
    path.write_text("schema_version: 1\ntasks:\n  - id: a b\n    prompt: x\n", encoding="utf-8")
    cache = ParsedCache(tmp_path / "home")
    for _ in range(2):
        with pytest.raises(TaskFileError):
            load_tasks(path, cache)
    assert not cache.root.exists()
