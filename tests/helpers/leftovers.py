"""What a replay left running for the second line of its cleanup to kill.

replay_dirs ends every replay with sandbox.kill_leftovers(root), which kills whatever still runs from inside
the scratch folder: checking `processes_under(...) == []` afterwards is true by construction. This spy looks
first, before that kill: a process still there (after a short grace, for the kernel to finish tearing a
namespace down) is one the replay's own isolation (the process group, bwrap's PID namespace) did not end.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ratchet.harness import sandbox

GRACE_S = 1.0


class LeftoverSpy:
    """Installed over sandbox.kill_leftovers: records each replay's leftovers, then kills them as before."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.replays = 0
        self._real = sandbox.kill_leftovers

    def __call__(self, root: Path) -> None:
        self.replays += 1
        deadline = time.monotonic() + GRACE_S
        left = sandbox.processes_under(root)
        while left and time.monotonic() < deadline:
            time.sleep(0.02)
            left = sandbox.processes_under(root)
        self.found += [_cmdline(pid) for pid in left]
        self._real(root)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> LeftoverSpy:
        monkeypatch.setattr(sandbox, "kill_leftovers", self)
        return self


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return f"{pid} (gone)"
