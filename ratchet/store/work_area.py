"""Ratchet's work area (RATCHET_HOME or --work): the folder the store, the cache and scratch folders live in."""

from __future__ import annotations

from pathlib import Path

from ratchet.core.errors import InputError


def ensure_work_area(home: Path) -> Path:
    """Create the work area (RATCHET_HOME or --work) if needed; a file in its way is bad input."""
    try:
        home.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in (home, *home.parents) if p.exists() and not p.is_dir()), home)
        raise InputError(
            "this is a file, but Ratchet's work area (RATCHET_HOME or --work) must be a folder; "
            "point it at a folder or move the file away",
            path=blocker,
        ) from None
    except OSError as exc:
        raise InputError(
            f"cannot create Ratchet's work area ({exc.strerror}); point RATCHET_HOME or --work at a writable folder",
            path=home,
        ) from None
    return home
