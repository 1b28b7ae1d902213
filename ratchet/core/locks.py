"""Liveness by flock: a file its owner holds locked for as long as the owner lives.

The kernel drops a flock when its process ends, however it ends, and a lock means the same in
every PID namespace that shares the folder, so "can I take the lock?" answers "is the owner
gone?" where a process id cannot. Scratch folders (ratchet/repo/scratch.py) and budget reservations
(ratchet/store/db.py) both ask it. The ledger's writers also queue on a flock (`turn`).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
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


def open_turns(path: Path) -> int | None:
    """A descriptor of `path` (made if absent) to take turns on with `turn`; None where it cannot be had.

    Read-only: flock needs no write access, so every user that may open the folder can queue.
    """
    try:
        return os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    except OSError:
        return None


@contextmanager
def turn(fd: int | None, *, shared: bool = False) -> Iterator[None]:
    """Hold `fd`'s flock for the block, exclusive or `shared`, waiting in the kernel's queue for it.

    Why a queue: a waiter blocked in flock is woken the moment the holder lets go, where one polling
    with growing sleeps (SQLite's busy handler) keeps losing to fresh arrivals. No timeout: callers hold
    a turn only for work that ends by itself. `fd` None, or a file system without flock: no queue.
    """
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
    except OSError:  # a file system without flock (some network mounts): no queue, as before it
        fd = None
    try:
        yield
    finally:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
