"""Liveness by flock: a file its owner holds locked for as long as the owner lives.

The kernel drops a flock when its process ends, however it ends, and a lock means the same in
every PID namespace that shares the folder, so "can I take the lock?" answers "is the owner
gone?" where a process id cannot. Scratch folders (ratchet/scratch.py) and budget reservations
(ratchet/store.py) both ask it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def _still_names(fd: int, path: Path) -> bool:
    """True while `path` is the file open as `fd` (someone may have unlinked it meanwhile)."""
    try:
        held, named = os.fstat(fd), os.lstat(path)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)


def take_lock(path: Path, *, create: bool = False) -> int | None:
    """An fd holding `path`'s exclusive flock, or None if another process holds it (or it vanished).

    `create`: make the file (it must not exist yet; OSError when it cannot be made).
    """
    flags = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | (os.O_CREAT | os.O_EXCL if create else 0)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        return None  # create=True: the name is taken
    except OSError:
        if create:
            raise
        return None  # gone, or not ours to open
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    if not _still_names(fd, path):
        os.close(fd)
        return None
    return fd
