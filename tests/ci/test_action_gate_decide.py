"""The action's `decide` phase names why the job fails: a check that exits 2 but wrote its verdict was
stopped by the --budget cap (the verdict so far is in the comment and the artifact), not given bad input.

The phase reads only CHECK_EXIT, COMMENT_EXIT and the outputs folder, so it runs here as a runner runs it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "action_gate.sh"
BUDGET = (
    "::error::Ratchet: the --budget cap stopped pairs before they were checked (exit 2); the verdict so "
    "far is in the PR comment and the ratchet-outputs artifact: raise the budget input, or set on-error: warn "
    "to let unchecked pairs through as WARN\n"
)
BAD_INPUT = "::error::Ratchet: bad input (exit 2); see the check step's log\n"


def decide(out: Path, check_exit: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "RATCHET_OUT": str(out), "CHECK_EXIT": check_exit, "COMMENT_EXIT": "0"}
    return subprocess.run(["bash", str(SCRIPT), "decide"], env=env, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(("verdict", "said"), [(True, BUDGET), (False, BAD_INPUT)], ids=["budget-stop", "bad-input"])
def test_exit_2_is_named_a_budget_stop_when_the_verdict_was_written(tmp_path: Path, verdict: bool, said: str) -> None:
    if verdict:
        (tmp_path / "verdict.json").write_text('{"decision": "BLOCK"}\n', encoding="utf-8")
    done = decide(tmp_path, "2")
    assert (done.returncode, done.stdout, done.stderr) == (2, said, "")
