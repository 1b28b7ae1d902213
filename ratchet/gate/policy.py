"""What a pair that could not be checked (a model call that failed for good) does to the verdict."""

from __future__ import annotations

from enum import StrEnum


class OnError(StrEnum):
    """The `--on-error` policy of `ratchet check`."""

    WARN = "warn"
    """An unchecked pair makes the verdict WARN at worst."""
    BLOCK = "block"
    """An unchecked pair BLOCKs (what `ratchet check` uses when no --on-error is given; it then exits 3)."""
