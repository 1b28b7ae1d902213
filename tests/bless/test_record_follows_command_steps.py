"""`record` refuses a skill the simulator cannot follow; behind a harness with a shell, a skill whose steps
only run commands is one it follows (ratchet/sim/harness_steps.py), so it is not refused there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from ratchet.bless.record import plan_record
from ratchet.config.project import load_project

PROJECT = Path(__file__).resolve().parents[1] / "data" / "weekly_report"


@pytest.fixture
def commands_only(tmp_path: Path) -> Path:
    """The weekly-report project with the skill cut to its steps that run or read: no assignment, no Output."""
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    skill = root / "skills" / "weekly-report" / "SKILL.md"
    text = skill.read_text(encoding="utf-8")
    steps = text.split("## Steps", 1)[1].split("## Output", 1)[0].strip().split("\n")
    kept = [step for step in steps if "`$status" not in step]
    assert len(kept) == 3
    skill.write_text(text.split("## Inputs", 1)[0] + "## Steps\n\n" + "\n".join(kept) + "\n", encoding="utf-8")
    return root


def _harness(root: Path, harness: object) -> None:
    config = root / "ratchet.yaml"
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["harness"] = harness
    config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


@pytest.mark.parametrize(
    ("harness", "refused"),
    [
        ({"name": "claude-code", "builtin_tools": ["Bash", "Read"]}, []),
        ({"name": "claude-code", "builtin_tools": ["Read"]}, []),
        ({"name": "codex", "builtin_tools": ["shell"]}, []),
        ("codex", ["weekly-report"]),  # read-only: no shell runs the steps
        ({"name": "claude-code", "builtin_tools": []}, ["weekly-report"]),
        ("minimal", ["weekly-report"]),
    ],
)
def test_a_skill_of_command_steps_is_refused_only_where_no_shell_or_reader_runs_them(
    commands_only: Path, harness: object, refused: list[str]
) -> None:
    _harness(commands_only, harness)
    plan = plan_record(load_project(commands_only, home=commands_only / ".ratchet"))
    assert [u.skill for u in plan.unfollowed] == refused
