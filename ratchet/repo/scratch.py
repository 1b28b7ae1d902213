"""Scratch folders: where `check` exports the two states of an edit, under Ratchet's home.

Each folder lives only as long as the check that holds its lock (see below); `export_tree` in
ratchet/repo/trees.py fills it. Nothing here touches the user's repository.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import git

from ratchet.core.errors import InfraError
from ratchet.core.locks import take_lock
from ratchet.repo.git import INDEX, resolve_rev
from ratchet.repo.trees import export_tree
from ratchet.store.work_area import ensure_work_area

_SCRATCH_NAME = re.compile(r"^\d+-[0-9a-f]+$")
_LOCK_SUFFIX = ".lock"


# -- scratch folders -------------------------------------------------------------------------
#
# A scratch folder <home>/scratch/<pid>-<hex>/ has a sibling lock file <pid>-<hex>.lock that its
# process holds with flock(LOCK_EX) from before the folder exists until after it is gone. A
# pruner deletes a folder only when it can take that lock without waiting, so a live check is
# never pruned, whatever PID namespace it runs in (a container sharing RATCHET_HOME); the PID in
# the name is for people reading the folder, never for pruning. The lock file sits beside the
# folder, not inside it, so the export holds exactly the tree. The kernel drops a flock when its
# process dies, however it dies, so a crash leaves a folder the next pruner may take.


def _lock_path(folder: Path) -> Path:
    return folder.with_name(folder.name + _LOCK_SUFFIX)


def prune_stale_scratch(home: Path) -> list[Path]:
    """Remove scratch folders whose lock nobody holds (their process ended); return them.

    A folder with no lock file was not made by a locking Ratchet (an older version may still be
    using it) and is left alone; remove it by hand once no check runs.
    """
    root = Path(home) / "scratch"
    if not root.is_dir():
        return []
    removed: list[Path] = []
    for lock in sorted(root.glob(f"*{_LOCK_SUFFIX}")):
        folder = lock.with_name(lock.name[: -len(_LOCK_SUFFIX)])
        if _SCRATCH_NAME.match(folder.name) is None:
            continue
        fd = take_lock(lock)
        if fd is None:
            continue
        try:
            existed = folder.is_dir() and not folder.is_symlink()
            if existed:
                shutil.rmtree(folder, ignore_errors=True)
            if os.path.lexists(folder):
                continue  # not (all) removable: keep the lock file so a later prune tries again
            lock.unlink(missing_ok=True)
            if existed:
                removed.append(folder)
        finally:
            os.close(fd)
    return removed


def _hold_new_scratch(root: Path) -> tuple[Path, int]:
    """A fresh folder path under root (not made yet) and the fd holding its lock."""
    for _ in range(16):
        folder = root / f"{os.getpid()}-{secrets.token_hex(4)}"
        try:
            fd = take_lock(_lock_path(folder), create=True)
        except OSError as exc:
            raise InfraError(
                f"cannot make a scratch folder here ({exc.strerror}); check its permissions", path=root
            ) from None
        if fd is None:
            continue  # the name was taken, or a pruner removed our lock file before we held it
        if not os.path.lexists(folder):
            return folder, fd
        os.close(fd)
    raise InfraError("cannot make a scratch folder here (every name tried was in use)", path=root)


def _release_scratch(folder: Path, fd: int) -> None:
    try:
        shutil.rmtree(folder, ignore_errors=True)
        if not os.path.lexists(folder):
            _lock_path(folder).unlink(missing_ok=True)
    finally:
        os.close(fd)  # the lock goes last: until here no pruner may touch the folder


@contextmanager
def scratch_folder(home: Path) -> Iterator[Path]:
    """A fresh, empty, locked folder under home/scratch for one harness replay; removed on exit.

    The same lock protocol as scratch_checkout: a crashed run leaves a folder the next pruner takes.
    """
    prune_stale_scratch(home)
    root = ensure_work_area(Path(home) / "scratch")
    folder, fd = _hold_new_scratch(root)
    try:
        folder.mkdir()
        yield folder
    finally:
        _release_scratch(folder, fd)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def scratch_checkout(repo: git.Repo, rev: str, home: Path, *, skip: Collection[str] = ()) -> Iterator[Path]:
    """Export `rev` (or INDEX) into a fresh folder under home/scratch; remove it on exit.

    Folders in `skip` (repo paths) are not exported: the caller promises never to read them.

    The folder's lock is held for its whole life, so no other check's pruning can remove it.
    SIGTERM is turned into KeyboardInterrupt for the duration so a killed run cleans up too.
    """
    prune_stale_scratch(home)
    if rev != INDEX:
        rev = resolve_rev(repo, rev)
    root = ensure_work_area(Path(home) / "scratch")
    in_main_thread = _is_main_thread()  # signal handlers can only be set from the main thread
    previous = signal.getsignal(signal.SIGTERM)
    try:
        if in_main_thread:
            signal.signal(signal.SIGTERM, _raise_interrupt)
        folder, fd = _hold_new_scratch(root)
        try:
            folder.mkdir()
            export_tree(repo, rev, folder, skip=skip)
            yield folder
        finally:
            _release_scratch(folder, fd)
    finally:
        if in_main_thread:
            # None means a handler installed outside Python; the default is the closest match
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def _is_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()
