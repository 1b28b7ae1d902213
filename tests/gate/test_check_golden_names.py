"""A golden the base cannot use is named by its own file at the base revision, not the goldens folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ratchet.config.gate import resolve_gate_config
from ratchet.core.errors import GoldenError
from ratchet.gate.check import check_edit
from ratchet.setup.demo import EDITS
from tests.helpers.gitrepo import commit


def test_a_golden_for_a_task_not_in_tasks_yaml_names_its_file(demo_repo: Path) -> None:
    rel = "goldens/github-triage/github-triage-01.json"
    golden = json.loads((demo_repo / rel).read_text(encoding="utf-8"))
    base = commit(demo_repo, {rel: json.dumps({**golden, "task_id": "ghost-task"})}, "ghost golden")
    edit = next(e for e in EDITS if e.branch == "edit/changed-argument")
    skill = f"skills/{edit.skill}/SKILL.md"
    commit(demo_repo, {skill: edit.apply((demo_repo / skill).read_text(encoding="utf-8"))}, "edit")
    with pytest.raises(GoldenError) as info:
        check_edit(demo_repo, base=base, config=resolve_gate_config("level0_only"))
    assert info.value.one_line() == f"{rel}@{base[:10]}: golden for task 'ghost-task', which is not in tasks.yaml"
