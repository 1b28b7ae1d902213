"""Which form of the heaviest guarantees this run takes (the `thorough` marker, tests/conftest.py)."""

from __future__ import annotations

import os


def thorough() -> bool:
    """True in CI (CI set) or on request (RATCHET_THOROUGH=1): `thorough` tests run, their lighter forms do not."""
    return bool(os.environ.get("CI")) or os.environ.get("RATCHET_THOROUGH") == "1"
