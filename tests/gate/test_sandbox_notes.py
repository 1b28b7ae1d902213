"""The verdict's one note when harness replays ran without bubblewrap (ratchet.gate.sandbox_notes)."""

from __future__ import annotations

from ratchet.gate.sandbox_notes import merged_sandbox_notes, sandbox_notes
from ratchet.goldens.trace import HarnessRef, Trace


def _trace(task_id: str, skill: str | None, harness: HarnessRef | None) -> Trace:
    return Trace(
        task_id=task_id, prompt="p", expected_skill=skill, seed=1, frozen_time="2026-01-15T09:00:00Z", harness=harness
    )


def test_unsandboxed_replays_are_one_note_naming_why_and_sandboxed_or_minimal_ones_none() -> None:
    fine = [
        _trace("a-01", "a", None),
        _trace("a-02", "a", HarnessRef(name="codex", sandbox="bubblewrap")),
        _trace("a-03", "a", HarnessRef(name="codex")),  # recorded before the sandbox: nothing to say
    ]
    assert sandbox_notes(fine, why="bwrap is not installed") == []
    bare = [
        _trace("b-01", "b", HarnessRef(name="claude-code", sandbox="none")),
        _trace("a-04", None, HarnessRef(name="claude-code", sandbox="none")),
    ]
    (note,) = sandbox_notes([*fine, *bare], why="bwrap is not installed")
    assert (note.kind, note.level, note.skill) == ("sandbox", "note", "_none, b")
    assert note.detail.startswith("harness replays ran without the bubblewrap sandbox (bwrap is not installed): ")


def test_the_shards_notes_merge_into_the_note_of_the_whole_check() -> None:
    """Review of issue 27, item 5: each shard names its own replays' skills; the merge names them all, once."""
    traces = [
        _trace("a-01", "a", HarnessRef(name="codex", sandbox="none")),
        _trace("b-01", "b", HarnessRef(name="codex", sandbox="none")),
        _trace("c-01", "c", HarnessRef(name="codex", sandbox="bubblewrap")),
    ]
    whole = sandbox_notes(traces, why="harness.sandbox is off")
    shards = [sandbox_notes(traces[at::2], why="harness.sandbox is off") for at in (0, 1)]
    assert merged_sandbox_notes([note for notes in shards for note in notes]) == whole
    assert merged_sandbox_notes([]) == []
