"""A work area's secret key: 32 random bytes in a 0600 file, made once, shared by whoever needs one.

The response cache (ratchet.llm.cache), the parsed-file cache (ratchet.store.parsed) and the stored
verdicts (ratchet.gate.verdict_store) sign what they write with such a key, so a file someone else
wrote (or copied from another machine) is a miss, never an answer.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from contextlib import suppress
from pathlib import Path

KEY_FILE = ".key"
KEY_BYTES = 32


def make_key(path: Path) -> None:
    """Write a fresh key, private from its first byte and synced; the first of racing writers wins (link,
    no replace), so two processes never sign with different keys."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".key.", suffix=".tmp", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        with suppress(FileExistsError):  # another process made it first: use theirs
            os.link(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def read_key(path: Path, *, make: bool) -> bytes | None:
    """The key at `path` (made first when `make` and absent); None when it cannot be read or is no key."""
    try:
        if make and not path.exists():
            make_key(path)
        secret = path.read_bytes()
    except OSError:
        return None
    return secret if len(secret) == KEY_BYTES else None
