"""A block with Python's cyclic garbage collector paused, for bulk work that builds many objects and no cycles.

Why: once a check holds 10,000 goldens and tasks (millions of tracked objects), each full collection
scans them all: one fired in the middle of a cold first selection and took ~130 ms of its ~330 ms,
and loading tasks and goldens paid several. Tokenizing prompts and parsing files make containers
that reference counting frees (no cycles), so pausing the collector there loses nothing; the
collector runs again when the last open block ends. Blocks nest and may overlap across threads: a
count, not a flag, decides when to turn it back on, and a collector someone else turned off stays off.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_open = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector as it was found after the last open block ends."""
    global _open, _was_enabled
    with _lock:
        if _open == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _open += 1
    try:
        yield
    finally:
        with _lock:
            _open -= 1
            if _open == 0 and _was_enabled:
                gc.enable()
