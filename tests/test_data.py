"""The files that ship in ratchet/data: every gate config and prompt, and a complete demo project."""

from __future__ import annotations

from pathlib import Path

from ratchet.config.project import load_project
from ratchet.data import demo_files, packaged_config, packaged_config_names, packaged_prompt
from ratchet.gate.judge_prompt import load_judge_prompt
from ratchet.goldens.tasks import load_tasks
from ratchet.setup.demo import DEMO_SKILLS, EDITS
from ratchet.skills.sets import load_skills


def test_every_packaged_config_and_prompt_is_a_file() -> None:
    assert all(packaged_config(name).is_file() for name in packaged_config_names())
    assert load_judge_prompt(packaged_prompt("judge.md")).version == "judge-v4"
    assert "{{skill_name}}" in packaged_prompt("inject_regression.md").read_text(encoding="utf-8")


def test_packaged_demo_project_is_complete(tmp_path: Path) -> None:
    with demo_files() as root:
        project = load_project(root, home=tmp_path / "home")
        skills = load_skills(project.path("skills"))
        tasks = load_tasks(project.path("tasks"))
        workspaces = project.path("workspaces")
        assert sorted(skills) == sorted(DEMO_SKILLS)
        assert len(tasks) == 23 and {t.skill for t in tasks} == {*DEMO_SKILLS, None}
        used = {t.workspace for t in tasks if t.workspace is not None}
        assert all((workspaces / name).is_dir() for name in used)
        assert {p.name for p in workspaces.iterdir()} == used, "only the workspaces the demo tasks use"
        assert (project.path("world") / "github.yaml").is_file()
        for edit in EDITS:  # each scripted edit still finds the text it changes
            text = (project.path("skills") / edit.skill / "SKILL.md").read_text(encoding="utf-8")
            assert edit.apply(text) != text
