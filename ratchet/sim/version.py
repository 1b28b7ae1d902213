"""The simulator's own version: a digest of its source, part of every simulated cache key.

A simulated answer depends on the simulator's code as much as a real one depends on the model's
weights, so a changed simulator must not be served answers recorded by the old one.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path


@cache
def sim_code_digest() -> str:
    """sha256 over every module of ratchet/sim, in name order."""
    hasher = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        hasher.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hasher.hexdigest()
