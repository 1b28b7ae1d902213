"""A convention skill that reads a reference, runs its own script and a mocked `gh`, recorded and gated
through the real Claude Code with its built-in `Bash` and `Read` on (issue 27's must-show).

The project is tests/data/weekly_report: the simulator behind the harness follows the skill's steps through
Claude Code's own tools (ratchet/sim/harness_steps.py), the script runs for real in the replay, `gh` answers
from world/commands.yaml, and the trace records the read and each command (ratchet/harness/trace_map.py).
One recorded, blessed project for the module; each test gates one edit of it. Skipped when the binary is
not installed, except under CI, where its absence fails.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import git
import pytest

from ratchet.bless.record import bless, record_tasks
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import load_project
from ratchet.gate.check import check_edit
from ratchet.gate.models import Verdict
from ratchet.goldens.trace import Trace, read_trace
from tests.helpers.harness_demo import commit_all

PROJECT = Path(__file__).resolve().parents[1] / "data" / "weekly_report"
SKILL = Path("skills") / "weekly-report"
GOLDEN = Path("goldens") / "weekly-report" / "weekly-report-01.json"
REPORT = "Week 42 in acme/widgets: 3 pull requests merged, 4 issues opened."
POSTED = "https://github.com/acme/widgets/issues/7#issuecomment-4242"


def _binary_or_skip() -> None:
    value = os.environ.get("RATCHET_CLAUDE_BIN", "")
    if value and Path(value).is_file():
        return
    if os.environ.get("CI"):
        pytest.fail("RATCHET_CLAUDE_BIN must point at the pinned binary in CI (scripts/install_harnesses.sh)")
    pytest.skip("claude-code is not installed (scripts/install_harnesses.sh, then set RATCHET_CLAUDE_BIN)")


def _add_git_push(root: Path) -> None:
    path = root / SKILL / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    step = '5. Record `$status = "posted"`.\n'
    path.write_text(text.replace(step, step + "6. Publish the report branch: run `git push origin weekly-report`.\n"))


def _reword_policy(root: Path) -> None:
    (root / SKILL / "references" / "policy.md").write_text(
        "Keep it to the numbers; sign off as the support crew.\n", encoding="utf-8"
    )


EDITS: dict[str, Callable[[Path], None]] = {"edit/git-push": _add_git_push, "edit/policy": _reword_policy}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The project recorded (twice: byte-identical) and blessed through Claude Code, each edit on its branch."""
    _binary_or_skip()
    root = tmp_path_factory.mktemp("weekly-report") / "repo"
    shutil.copytree(PROJECT, root)
    (root / ".gitignore").write_text(".ratchet/\n", encoding="utf-8")
    repo = git.Repo.init(root, initial_branch="main")
    commit_all(repo, "skills")
    project = load_project(root, home=root / ".ratchet")
    harness = project.config.harness
    assert harness.name == "claude-code" and {"Bash", "Read"} <= set(harness.builtin_tools)
    first = record_tasks(project, strict=True)
    assert first.errors == [] and first.written == ["weekly-report-01"], first.errors
    recorded = {path.name: path.read_bytes() for path in project.pending_dir.glob("*.json")}
    again = record_tasks(project, strict=True)
    assert again.errors == []
    assert {path.name: path.read_bytes() for path in project.pending_dir.glob("*.json")} == recorded
    bless(project)
    base = commit_all(repo, "bless")
    for branch, edit in EDITS.items():
        repo.git.checkout("-q", "-b", branch, "main")
        edit(root)
        commit_all(repo, branch)
        repo.git.checkout("-q", "main")
    yield root, base


def _check(recorded: tuple[Path, str], branch: str) -> Verdict:
    root, base = recorded
    return check_edit(root, base=base, head=branch, home=root / ".ratchet", config=resolve_gate_config("cascade"))


def _calls(trace: Trace) -> list[tuple[str, dict[str, Any], str]]:
    return [(call.name, call.arguments, call.effect) for call in trace.tool_calls]


def test_the_golden_records_the_reference_read_the_script_and_the_mocked_comment(
    recorded: tuple[Path, str],
) -> None:
    root, _ = recorded
    golden = read_trace(root / GOLDEN)
    assert golden.harness is not None and golden.harness.name == "claude-code"
    assert golden.fired_skill == "weekly-report" and golden.status == "ok", golden.error
    folder = "/ratchet-scratch/ws/.claude/skills/weekly-report"
    body = f"--body '{REPORT}'"
    assert _calls(golden) == [
        ("skill:read", {"skill": "weekly-report", "path": "references/policy.md"}, "read"),
        ("Bash", {"command": f"python {folder}/scripts/report.py --repo acme/widgets --week 42"}, "write"),
        ("Bash", {"command": f"gh issue comment 7 --repo acme/widgets {body}"}, "write"),
        ("cmd:gh", {"argv": ["gh", "issue", "comment", "7", "--repo", "acme/widgets", "--body", REPORT]}, "send"),
    ]
    assert f"report: {REPORT}\ncomment: {POSTED}\n" in golden.final_output


def test_an_edit_that_adds_git_push_is_blocked_as_a_new_write(recorded: tuple[Path, str]) -> None:
    verdict = _check(recorded, "edit/git-push")
    assert verdict.decision == "BLOCK", verdict.summary
    blocked = [p for p in verdict.pairs if p.outcome == "regression"]
    assert [p.task_id for p in blocked] == ["weekly-report-01"] and blocked[0].decided_by == "level0"
    found = [f.detail for f in blocked[0].findings if f.kind == "new_side_effect"]
    assert any(detail.startswith("new write call cmd:git(argv=['git', 'push'") for detail in found), found
    # The added step is one the simulator follows behind this harness, not prose it skips.
    assert [u.detail for u in verdict.unseen] == []


def test_an_edit_to_the_reference_the_golden_read_is_replayed_not_unsent(recorded: tuple[Path, str]) -> None:
    verdict = _check(recorded, "edit/policy")
    assert [u.detail for u in verdict.unseen if u.kind == "unsent"] == []
    (pair,) = verdict.pairs
    assert pair.task_id == "weekly-report-01" and pair.outcome != "same", pair
    assert verdict.decision != "PASS", verdict.summary
