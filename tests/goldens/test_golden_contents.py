"""load_golden_files over bytes read from git (check's base, never written out) answers as over the folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import GoldenError
from ratchet.goldens.trace import Trace, load_golden_files


def _golden(task_id: str, status: str = "ok") -> bytes:
    trace = Trace(task_id=task_id, prompt="p", seed=1, frozen_time="2026-10-14T16:00:00Z")
    if status != "ok":
        trace = trace.model_copy(update={"status": status, "error": "boom"})
    return trace.to_json().encode()


def _both(tmp_path: Path, files: dict[str, bytes]) -> tuple[object, object]:
    """What the folder on disk gives, and what the same bytes given as contents give (an error's one line, or the goldens)."""
    disk = tmp_path / "disk" / "goldens"
    for rel, data in files.items():
        (disk / rel).parent.mkdir(parents=True, exist_ok=True)
        (disk / rel).write_bytes(data)
    answers = []
    for contents in (None, {disk.joinpath(*rel.split("/")): data for rel, data in files.items()}):
        try:
            answers.append({p.relative_to(disk).as_posix(): t for p, t in load_golden_files(disk, contents).items()})
        except GoldenError as exc:
            answers.append(exc.one_line())
        if contents is None:
            for rel in files:  # the second answer must come from the bytes alone
                (disk / rel).unlink()
    return answers[0], answers[1]


@pytest.mark.parametrize(
    "files",
    [
        {"a/t1.json": _golden("t1"), "b/t2.json": _golden("t2"), "README.md": b"notes\n", "a/notes.txt": b"x"},
        {"a/t1.json": _golden("t1"), "stray.json": _golden("t2")},
        {"a/t1.json": _golden("t1"), "a/old/stray.json": _golden("t2")},
        {"a/t1.json": _golden("t1"), "b/t1.json": _golden("t1")},
        {"a-b/t1.json": _golden("t1"), "a/t1.json": _golden("t1")},
        {"a/t1.json": _golden("t1", status="error")},
        {"a/t1.json": b"{not json"},
        {"a/t1.json": b'{"x": "\xff"}'},
        {},
    ],
)
def test_contents_give_what_the_folder_gives(tmp_path: Path, files: dict[str, bytes]) -> None:
    from_disk, from_contents = _both(tmp_path, files)
    assert from_contents == from_disk
    if isinstance(from_disk, dict):
        assert list(from_contents) == list(from_disk)  # the same order too
