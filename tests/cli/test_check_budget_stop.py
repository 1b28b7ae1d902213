"""`ratchet check --budget X` that reaches its cap: the verdict so far, this run's spend, exit 2.

A refusal at the cap used to leave the check with no verdict at all (exit 2 and one line), and the
line's "spent" was every run's simulated spend in the work area, not this check's. Now each pair the
cap stopped is named `not checked` (an error pair: never PASS), the verdict is printed, and the
budget line names this run's spend and what its calls in flight hold. Exit 2, BudgetError's code,
unless `--on-error` says what unchecked pairs do (as for any pair that could not be checked).
"""

from __future__ import annotations

import json
import re
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.setup.demo import EDITS, apply_edit
from ratchet.store.db import open_store
from tests.helpers.gitrepo import git

runner = CliRunner()
EDIT = "edit/reworded-status"
BUDGET = 0.01
REFUSED = re.compile(
    r"agent call \(replay\) refused: its worst case \$(\d+\.\d+) would pass the run budget of "
    r"\$0\.0100 \(this run: \$(\d+\.\d+) spent, \$(\d+\.\d+) held for calls in flight\)"
)


def _check(repo: Path, *args: str) -> tuple[int, str, str]:
    base = git(repo, "rev-parse", "main")
    result = runner.invoke(
        app, ["check", "--repo", str(repo), "--base", base, "--head", EDIT, "--cache", "all", "--json", *args]
    )
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def edited(demo_repo: Path) -> Path:
    apply_edit(demo_repo, next(e for e in EDITS if e.branch == EDIT))
    with closing(open_store(demo_repo / ".ratchet")) as store:
        # Blessing the demo spent simulated dollars in this work area: more than this check may.
        assert store.total_spend(simulated=True) > BUDGET
    return demo_repo


def _stopped(verdict: dict[str, Any]) -> list[dict[str, Any]]:
    return [pair for pair in verdict["pairs"] if pair["decided_by"] == "budget"]


@pytest.mark.parametrize("concurrency", ["1", "4"])
def test_a_budget_stop_prints_the_verdict_so_far_and_this_runs_spend(edited: Path, concurrency: str) -> None:
    _, unbudgeted, _ = _check(edited, "--work", str(edited / "unbudgeted"))
    selected = [pair["task_id"] for pair in json.loads(unbudgeted)["pairs"]]
    code, out, err = _check(edited, "--budget", f"{BUDGET}", "--concurrency", concurrency)
    assert code == 2, (out[-300:], err)
    verdict = json.loads(out)
    assert [pair["task_id"] for pair in verdict["pairs"]] == selected  # every pair named, in order
    stopped = _stopped(verdict)
    assert stopped and all(
        pair["outcome"] == "error" and pair["reason"].startswith("not checked: ") for pair in stopped
    )
    assert verdict["decision"] == "BLOCK" and verdict["on_error"] is None
    # One line on stderr, naming the first stopped pair and this run's spend, never every run's.
    assert err.count("\n") == 1 and err.startswith(
        f"error: {len(stopped)} pair(s) not checked: the run's budget stopped them, first {stopped[0]['task_id']}: "
    )
    assert err.rstrip().endswith("raise --budget, or pass --on-error warn to let them through as WARN")
    for text in (err, *(pair["reason"] for pair in stopped)):
        found = REFUSED.search(text)
        assert found is not None, text
        worst, spent, held = (float(found.group(n)) for n in (1, 2, 3))
        # The message shows each amount to 4 decimals: their sum can read as exactly the budget.
        rounding = 3 * 0.00005
        assert spent <= BUDGET and spent + held + worst > BUDGET - rounding


def test_on_error_warn_lets_a_budget_stop_through_as_warn(edited: Path) -> None:
    code, out, err = _check(edited, "--budget", f"{BUDGET}", "--concurrency", "4", "--on-error", "warn")
    assert (code, err) == (0, "")
    verdict = json.loads(out)
    assert _stopped(verdict) and verdict["decision"] == "WARN"
