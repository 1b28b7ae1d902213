"""The simulator's own version: a digest of its source, part of every simulated cache key.

A simulated answer depends on the simulator's code as much as a real one depends on the model's
weights, so a changed simulator must not be served answers recorded by the old one.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

# Modules outside ratchet/sim whose code decides what the simulator reads in a prompt.
_READS = (
    "core/markup.py",
    "core/fence.py",
    "agent/prompt.py",
    "agent/catalog.py",
    "agent/trigger.py",
    "gate/judge_prompt.py",
)


@cache
def sim_code_digest() -> str:
    """sha256 over every module of ratchet/sim and the parsing modules it reads with, in name order."""
    here = Path(__file__).resolve().parent
    package = here.parent
    hasher = hashlib.sha256()
    for path in [*sorted(here.glob("*.py")), *(package / name for name in _READS)]:
        hasher.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return hasher.hexdigest()
