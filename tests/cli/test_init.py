"""`ratchet init`: a team's project from zero, exact output and exit codes through typer's CliRunner."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.project import RatchetConfig, load_project
from ratchet.goldens.tasks import load_tasks
from tests.helpers.gitrepo import git, make_repo

runner = CliRunner()

SKILL = "---\nname: {name}\ndescription: Does one thing well.\n---\nBody\n"

NEXT = (
    "next:\n"
    "  1. write a skill: {skills}/<name>/SKILL.md (frontmatter name and description, then the instructions)\n"
    "  2. describe past requests in tasks.yaml: one task per request the skill must keep handling, and a canary\n"
    "  3. ratchet validate --tasks     check the skills and tasks.yaml\n"
    "  4. ratchet record               run every task into pending traces, then review them\n"
    "  5. ratchet bless                promote the reviewed traces to goldens, and commit them\n"
    "  6. ratchet check --base main    gate an edit against the blessed goldens\n"
)
NO_GIT = (
    "note: not inside a git repository: record and bless work here, but `ratchet check` needs one (run `git init`)\n"
)


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "team"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def test_init_in_an_empty_folder_writes_the_project_and_says_what_next(empty: Path) -> None:
    result = runner.invoke(app, ["init"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "initialized a Ratchet project in .\n"
        "  wrote   ratchet.yaml\n"
        "  wrote   tasks.yaml\n"
        "  wrote   triggers.yaml\n"
        "  wrote   world/README.md\n"
        "  created skills/ (empty)\n"
        "skills: none yet; they will live in skills/\n" + NO_GIT + NEXT.format(skills="skills")
    )
    assert (empty / "skills").is_dir() and not any((empty / "skills").iterdir())
    assert sorted(p.name for p in (empty / "world").iterdir()) == ["README.md"]
    assert "docs/world.md" in (empty / "world" / "README.md").read_text(encoding="utf-8")


def test_the_scaffolded_ratchet_yaml_loads_as_the_defaults(empty: Path) -> None:
    assert runner.invoke(app, ["init"]).exit_code == 0
    config = load_project(empty).config
    assert config == RatchetConfig()
    text = (empty / "ratchet.yaml").read_text(encoding="utf-8")
    for key in (
        "schema_version:",
        "paths:",
        "skills:",
        "tasks:",
        "goldens:",
        "world:",
        "workspaces:",
        "upstream: sim",
        "clock:",
        "max_agent_turns:",
        "timeout_s:",
        "static: warn",
        "# tiers:",
        "RATCHET_UPSTREAM",
    ):
        assert key in text, key


def test_the_scaffolded_tasks_yaml_holds_one_example_task_and_explains_a_canary(empty: Path) -> None:
    assert runner.invoke(app, ["init"]).exit_code == 0
    tasks = load_tasks(empty / "tasks.yaml")
    assert [(t.id, t.skill, t.workspace) for t in tasks] == [("example-01", "my-skill", None)]
    text = (empty / "tasks.yaml").read_text(encoding="utf-8")
    for word in ("# id:", "# prompt:", "# skill:", "# workspace:", "canary"):
        assert word in text, word


@pytest.mark.parametrize(
    ("present", "expected"),
    [
        ((".claude/skills", ".agents/skills"), ".claude/skills"),
        ((".agents/skills",), ".agents/skills"),
        (("skills", ".claude/skills"), "skills"),
    ],
)
def test_init_detects_where_skills_already_live(empty: Path, present: tuple[str, ...], expected: str) -> None:
    for index, folder in enumerate(present):
        (empty / folder / f"s{index}").mkdir(parents=True)
        (empty / folder / f"s{index}" / "SKILL.md").write_text(SKILL.format(name=f"s{index}"), encoding="utf-8")
    result = runner.invoke(app, ["init"])
    assert result.exit_code == 0
    assert f"skills: 1 skill found in {expected}/\n" in result.stdout
    assert "created skills/" not in result.stdout
    assert load_project(empty).config.paths.skills == expected
    assert result.stdout.endswith(NEXT.format(skills=expected))
    # The example task names a skill that is there, so `ratchet record` has something to route to.
    assert load_tasks(empty / "tasks.yaml")[0].skill == f"s{present.index(expected)}"


def test_init_into_a_path_inside_a_git_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path, {})
    (repo / "agents").mkdir()
    monkeypatch.chdir(repo)
    result = runner.invoke(app, ["init", "agents"])
    assert result.exit_code == 0
    assert result.stdout.startswith(
        "initialized a Ratchet project in agents\n"
        "  wrote   agents/ratchet.yaml\n"
        "  wrote   agents/tasks.yaml\n"
        "  wrote   agents/triggers.yaml\n"
        "  wrote   agents/world/README.md\n"
        "  created agents/skills/ (empty)\n"
    )
    assert "note:" not in result.stdout
    assert "cd agents\n" in result.stdout
    assert git(repo, "status", "--porcelain") == "?? agents/"


@pytest.mark.parametrize("existing", ["ratchet.yaml", "tasks.yaml"])
def test_init_never_overwrites_ratchet_yaml_or_tasks_yaml(empty: Path, existing: str) -> None:
    (empty / existing).write_text("# ours\n", encoding="utf-8")
    result = runner.invoke(app, ["init"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {existing}: already exists, and ratchet init never overwrites a file: "
        "move it away to start afresh, or edit it by hand\n"
    )
    assert sorted(p.name for p in empty.iterdir()) == [existing]
    assert (empty / existing).read_text(encoding="utf-8") == "# ours\n"


def test_an_existing_world_readme_is_kept(empty: Path) -> None:
    (empty / "world").mkdir()
    (empty / "world" / "README.md").write_text("ours\n", encoding="utf-8")
    result = runner.invoke(app, ["init"])
    assert result.exit_code == 0
    assert "  kept    world/README.md (already there)\n" in result.stdout
    assert (empty / "world" / "README.md").read_text(encoding="utf-8") == "ours\n"


def test_init_into_a_folder_that_does_not_exist_is_an_input_error(empty: Path) -> None:
    result = runner.invoke(app, ["init", "nowhere"])
    assert result.exit_code == 2
    assert result.stderr == "error: nowhere: no such folder: create it first, or run ratchet init inside it\n"


def test_init_is_deterministic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outputs = []
    for name in ("a", "b"):
        (tmp_path / name / "proj").mkdir(parents=True)
        monkeypatch.chdir(tmp_path / name)
        result = runner.invoke(app, ["init", "proj"])
        files = {
            p.relative_to(tmp_path / name).as_posix(): p.read_bytes()
            for p in sorted((tmp_path / name).rglob("*"))
            if p.is_file()
        }
        outputs.append((result.stdout, files))
    assert outputs[0] == outputs[1]
