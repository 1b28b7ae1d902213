"""With the harness's shell on, replays that ran without bubblewrap are a warning, never a PASS: an allowed
interpreter or an absolute path (/usr/bin/git) reached the host's commands and network unrecorded."""

from __future__ import annotations

from ratchet.gate.decide import with_unchecked
from ratchet.gate.models import Verdict
from ratchet.gate.sandbox_notes import merged_sandbox_notes, sandbox_notes
from ratchet.goldens.trace import HarnessRef, Trace

BARE = Trace(
    task_id="a-01",
    prompt="p",
    expected_skill="a",
    seed=1,
    frozen_time="2026-01-15T09:00:00Z",
    harness=HarnessRef(name="claude-code", sandbox="none"),
)


def test_shell_on_without_bubblewrap_is_a_warning_that_survives_the_shard_merge() -> None:
    (note,) = sandbox_notes([BARE], why="bwrap is not installed", shell=True)
    assert (note.kind, note.level, note.skill) == ("sandbox", "warn", "a")
    assert "the shell was on: a command the replay ran by an allowed interpreter or an absolute path" in note.detail
    assert merged_sandbox_notes([note]) == [note]
    (quiet,) = sandbox_notes([BARE], why="bwrap is not installed")
    assert quiet.level == "note", "no shell: the replays ran as before the sandbox existed"


def test_the_warning_keeps_a_verdict_from_passing() -> None:
    passed = Verdict(base="b", head="h", skills_changed=["a"], decision="PASS", summary="no golden is affected")
    warned = with_unchecked(passed, unseen=sandbox_notes([BARE], why="harness.sandbox is off", shell=True))
    assert warned.decision == "WARN"
