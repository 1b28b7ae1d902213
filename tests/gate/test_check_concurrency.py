"""`ratchet check --concurrency N`: the same verdict as one pair at a time, byte for byte.

Each run has its own work area (a cold cache on both sides) and a frozen clock, so wall time is 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.core.clock import frozen_clock
from ratchet.gate.check import check_edit
from ratchet.setup.demo import EDITS, apply_edit

CASCADE = resolve_gate_config("cascade")


def run_check(repo: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["check", "--repo", str(repo), *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("edit", EDITS, ids=[edit.branch for edit in EDITS])
def test_pairs_side_by_side_give_the_sequential_verdict(demo_repo: Path, tmp_path: Path, edit: object) -> None:
    apply_edit(demo_repo, edit)  # type: ignore[arg-type]
    branch = edit.branch  # type: ignore[attr-defined]
    one = check_edit(demo_repo, base="main", head=branch, config=CASCADE, home=tmp_path / "one", clock=frozen_clock)
    four = check_edit(
        demo_repo, base="main", head=branch, config=CASCADE, home=tmp_path / "four", clock=frozen_clock, concurrency=4
    )
    assert four.to_json() == one.to_json()
    assert one.decision == edit.expected  # type: ignore[attr-defined]


def test_the_flag_reaches_the_check_and_refuses_zero(demo_repo: Path) -> None:
    apply_edit(demo_repo, next(edit for edit in EDITS if edit.branch == "edit/new-side-effect"))
    code, out, _ = run_check(
        demo_repo, "--base", "main", "--head", "edit/new-side-effect", "--concurrency", "3", "--json"
    )
    assert code == 1 and '"decision": "BLOCK"' in out
    code, _, err = run_check(demo_repo, "--base", "main", "--head", "edit/new-side-effect", "--concurrency", "0")
    assert code == 2 and "--concurrency" in err
