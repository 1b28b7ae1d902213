"""Canonical JSON: the one way Ratchet writes JSON to disk, so equal data is equal bytes."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def canonical_dumps(data: Any, *, indent: int | None = 2) -> str:
    """Sorted keys, fixed separators, trailing newline when indented."""
    if indent is None:
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return json.dumps(data, sort_keys=True, indent=indent, ensure_ascii=False) + "\n"


def digest(data: Any) -> str:
    """sha256 of the compact canonical JSON of data."""
    return hashlib.sha256(canonical_dumps(data, indent=None).encode()).hexdigest()


def atomic_write_text(path: Path, text: str) -> None:
    """Write via a temp file in the same folder and rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes 0600 files; keep an existing file's mode, else the usual 0644.
        os.fchmod(fd, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
