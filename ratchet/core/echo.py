"""Progress lines: the one default for a run nobody watches."""

from __future__ import annotations


def silent(_line: str) -> None:
    """An `echo` that drops the line: a run's default when the caller shows no progress."""
    return None
