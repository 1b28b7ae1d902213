"""Shared fixtures; every test runs with Ratchet's work area in a tmp dir."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from hypothesis import settings

from tests.helpers.demo_repo import _blessed_template, demo_repo
from tests.helpers.freeform_repo import _freeform_template, freeform
from tests.helpers.modes import thorough

__all__ = ["_blessed_template", "_freeform_template", "demo_repo", "freeform"]

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# A suite started in the background of a non-interactive shell (`nohup pytest &`, some CI runners) inherits
# SIGINT ignored, and so would every process a test starts: the Ctrl-C tests (tests/cli/test_interrupt.py,
# tests/repo/test_git.py) would send a Ctrl-C that never lands. The suite's children start as from a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Property tests run the same examples on every machine (derandomize: no seed, no example database
# left behind), a bounded number of them, and no per-example deadline (CI machines are loaded).
settings.register_profile("ratchet", derandomize=True, database=None, max_examples=100, deadline=None)
settings.load_profile("ratchet")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`thorough` tests run in CI (CI set) or on request (RATCHET_THOROUGH=1); a lighter test of the same
    guarantee runs everywhere, so a local run stays quick and CI still runs the heavy form once."""
    if thorough():
        return
    skip = pytest.mark.skip(reason="thorough: runs in CI or with RATCHET_THOROUGH=1")
    for item in items:
        if item.get_closest_marker("thorough") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _ratchet_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if "RATCHET_HOME" not in os.environ or not os.environ["RATCHET_HOME"].startswith(str(tmp_path)):
        monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "ratchet-home"))
    monkeypatch.delenv("RATCHET_UPSTREAM", raising=False)
    # Stored verdicts off: many tests re-run a check after changing what a fake answers; tests/cli/
    # test_check_stored_verdict.py turns them on.
    monkeypatch.setenv("RATCHET_VERDICT_CACHE", "off")
    # A test run started from a git hook must not point the tests' own repos at the caller's.
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_COMMON_DIR"):
        monkeypatch.delenv(name, raising=False)
