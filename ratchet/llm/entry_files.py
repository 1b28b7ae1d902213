"""A cache entry's file: written whole through a temp file named by its writer, and synced in batches.

ratchet.llm.cache decides what is written and when a batch ends (docs/cache.md, "What survives a crash");
this module is how one entry reaches its file, and how a batch of them reaches the disk.
"""

from __future__ import annotations

import os
import secrets
import threading
from contextlib import suppress
from pathlib import Path

_WRITER = secrets.token_hex(4)
"""Names this process's temp files apart from another's with the same pid (another pid namespace sharing the
cache folder); a forked child has its own pid."""
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)


def write_unsynced(path: Path, text: str, folders: set[Path]) -> None:
    """A temp file in the same folder renamed over `path`: readers and a crashed process see the whole
    entry or none. No fsync: the batch's `flush` makes it durable. `folders`: those known to exist (one
    removed since makes the open fail, and the folder is then made again).

    The temp file is named by this writer (_WRITER: a token per process, its pid, the thread), not drawn at
    random as mkstemp does: no two writers share a name, so it is opened without O_EXCL and a name left by a
    writer that died is written over. One entry at a time per thread, ~40,000 in a smoke: mkstemp's name draws,
    retries and file object were a fifth of the write."""
    if path.parent not in folders:
        path.parent.mkdir(parents=True, exist_ok=True)
        folders.add(path.parent)
    tmp = _temp_path(path)
    try:
        fd = os.open(tmp, _TEMP_FLAGS, 0o644)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, _TEMP_FLAGS, 0o644)
    try:
        try:
            os.fchmod(fd, 0o644)  # whatever the umask: entries are as readable as the folder
            data = memoryview(text.encode())
            while data:
                data = data[os.write(fd, data) :]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def _temp_path(path: Path) -> str:
    """This thread's temp file for `path`: the same name every time (see write_unsynced)."""
    return f"{path.parent}{os.sep}.{path.name}.{_WRITER}.{os.getpid()}.{threading.get_ident()}.tmp"


def fsync_each(paths: list[Path]) -> None:
    """The portable way: fsync every entry, then every folder that gained one (for the rename) and the
    cache's root (which may have gained the folder)."""
    for path in paths:
        with suppress(FileNotFoundError):  # replaced since: its replacement is in this batch or a later one
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    for folder in sorted({path.parent for path in paths} | {path.parent.parent for path in paths}):
        fd = os.open(folder, os.O_RDONLY)
        try:
            with suppress(OSError):  # some systems cannot fsync a directory; the entries are synced
                os.fsync(fd)
        finally:
            os.close(fd)
