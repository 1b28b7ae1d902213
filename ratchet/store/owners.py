"""Who holds a reservation: a per-Store lock file, so a dead owner is told from a live one.

A Store holds an flock on <home>/owners/<token>.lock for its lifetime; the kernel drops it when
the process dies, whatever PID namespace it ran in (a container sharing RATCHET_HOME), so a
reservation whose owner's lock is unheld belongs to a dead process. Rows from before owners
were recorded fall back to the process id.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

from ratchet.core.locks import take_lock


def hold_owner_lock(path: Path) -> int | None:
    """Create and hold the owner's lock file for this Store's lifetime; None where locks cannot be had."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return take_lock(path, create=True)
    except OSError:
        return None


def owner_alive(owners: Path, owner: str) -> bool:
    """Whether a live Store holds owner's lock; a stale lock file found unheld is removed."""
    if not owner.isalnum():
        return False
    path = owners / f"{owner}.lock"
    fd = take_lock(path)
    if fd is None:
        return os.path.lexists(path)  # held by its live owner (any PID namespace), or already gone
    with suppress(OSError):
        path.unlink(missing_ok=True)
    os.close(fd)
    return False


def pid_alive(pid: int) -> bool:
    """Whether a process with this id runs (in our PID namespace; ours always does)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def boot_id() -> str | None:
    """This boot of the kernel (Linux), or None where it cannot be told: the same id means no reboot, so
    no power cut, since a file was last written, and every commit made since is still in the page cache."""
    try:
        return BOOT_ID.read_text(encoding="ascii").strip() or None
    except OSError:
        return None
