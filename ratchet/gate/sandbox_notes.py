"""The verdict's note when harness replays ran without the bubblewrap sandbox (docs/adr/0031-bubblewrap-sandbox.md).

Each harness replay's trace says how it was confined (HarnessRef.sandbox: "bubblewrap" or "none"; a trace of
an older Ratchet may say "none: <why>"). Why it ran without is this machine's (ratchet.harness.bwrap_mode.sandbox_why),
never written into a trace or golden, so the note takes it from the run. A replay that fell back ran with the
process group and the leftover kill only, so the harness could read what this user can and reach the network.
That changes no pair (a `note`: the replays ran as they did before the sandbox existed), but the reader is
told, once per reason, with the skills whose replays it was. With the harness's shell on it is a warning: the
command shims cover PATH alone there, so what the replays ran is not all recorded and the check cannot PASS. The note counts nothing a shard
alone knows, so a sharded check's notes merge into the unsharded check's (merged_sandbox_notes).
"""

from __future__ import annotations

from collections.abc import Iterable

from ratchet.gate.models import Unseen
from ratchet.goldens.trace import NO_SKILL_DIR, Trace

_NONE = "none"
_NOTE = "harness replays ran without the bubblewrap sandbox"
_AFTER = (
    ": only the process group and leftover processes were killed, so the harness could read what this user can "
    "and reach the network (scripts/install_bubblewrap.sh installs it; docs/harnesses.md)"
)
_SHELL = (
    "; the shell was on: a command the replay ran by an allowed interpreter or an absolute path (/usr/bin/git) "
    "reached the host unrecorded, so these replays cannot pass (docs/harnesses.md, Mocked commands)"
)


def sandbox_notes(replays: Iterable[Trace], why: str = "", *, shell: bool = False) -> list[Unseen]:
    """One note naming the skills whose harness replays among `replays` ran unsandboxed, and `why` (this run's
    reason; an old trace's own); [] when none did. With the harness's shell on (`shell`) it is a warning, never
    a PASS: only bubblewrap keeps an allowed interpreter or an absolute path from the host's commands."""
    notes = []
    for trace in replays:
        sandbox = trace.harness.sandbox if trace.harness is not None else ""
        if sandbox == _NONE or sandbox.startswith(f"{_NONE}:"):
            reason = why or sandbox.partition(":")[2].strip()
            detail = (f"{_NOTE} ({reason}){_AFTER}" if reason else f"{_NOTE}{_AFTER}") + (_SHELL if shell else "")
            skill = trace.expected_skill or NO_SKILL_DIR
            notes.append(Unseen(kind="sandbox", skill=skill, level="warn" if shell else "note", detail=detail))
    return merged_sandbox_notes(notes)


def merged_sandbox_notes(notes: Iterable[Unseen]) -> list[Unseen]:
    """Sandbox notes as one check's (a sharded check's shards', or one per replay): one per reason, naming
    every skill they name."""
    skills: dict[tuple[str, str], set[str]] = {}
    for note in notes:
        skills.setdefault((note.detail, note.level), set()).update(name.strip() for name in note.skill.split(","))
    return [
        Unseen(kind="sandbox", skill=", ".join(sorted(names)), level=level, detail=detail)
        for (detail, level), names in sorted(skills.items())
    ]
