"""What a Store's SQLite connection synced, read from its statement trace (`set_trace_callback`)."""

from __future__ import annotations


def synced_commits(seen: list[str]) -> int:
    """How many transactions ran with synchronous=FULL (each is one fsync of the WAL)."""
    mode, full = "FULL", 0
    for sql in seen:
        if sql.startswith("PRAGMA synchronous"):
            mode = sql.split("=")[1]
        elif sql.startswith("BEGIN"):
            full += mode == "FULL"
    return full
