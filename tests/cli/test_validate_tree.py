"""`ratchet validate` in a tree shaped like a real skills repository: every skill found, only real problems."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app

runner = CliRunner()


def _skill(root: Path, rel: str, *, name: str | None = None, extra: str = "", body: str = "Do the thing.\n") -> Path:
    folder = root / rel
    folder.mkdir(parents=True, exist_ok=True)
    name = name or folder.name
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Handles {name} work.\n{extra}---\n{body}")
    return folder


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """skills/<name>/, skills/<category>/<name>/, .claude/skills/, .agents/skills/ (+ Codex policy),
    a Claude Code plugin, references/ with Markdown, node_modules junk; two planted problems."""
    _skill(tmp_path, "skills/fx-convert")
    expense = _skill(tmp_path, "skills/finance/expense-report")
    (expense / "references" / "more").mkdir(parents=True)
    (expense / "references" / "guide.md").write_text("# Guide\n")
    (expense / "references" / "more" / "deep.md").write_text("# Deep\n")
    _skill(tmp_path, "skills/finance/Bad_Name")  # planted: not a valid name
    _skill(tmp_path, "skills/issue-triage", body="Label the issue.\nNever write </skill> here.\n")  # planted
    (tmp_path / "skills" / "finance" / "README.md").write_text("Finance skills.\n")
    _skill(tmp_path, ".claude/skills/cc-helper", extra="when_to_use: When the user asks for help.\n")
    codex = _skill(tmp_path, ".agents/skills/codex-helper")
    (codex / "agents").mkdir()
    (codex / "agents" / "openai.yaml").write_text("policy:\n  allow_implicit_invocation: false\n")
    (tmp_path / "my-plugin" / ".claude-plugin").mkdir(parents=True)
    (tmp_path / "my-plugin" / ".claude-plugin" / "plugin.json").write_text('{"name": "my-plugin"}\n')
    _skill(tmp_path, "my-plugin/skills/plugin-skill")
    for junk in ("node_modules/pkg/skills/junk", "skills/node_modules/pkg"):
        (tmp_path / junk).mkdir(parents=True)
        (tmp_path / junk / "SKILL.md").write_text("not even frontmatter\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Docs\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    return tmp_path


PROBLEMS = (
    ".claude/skills/cc-helper/SKILL.md:4: warning: 'when_to_use' is a client-specific key, not in the "
    "agentskills.io spec; other clients ignore it\n"
    "skills/finance/Bad_Name/SKILL.md:2: error: 'name' 'Bad_Name' may contain only letters, digits and hyphens\n"
    "skills/finance/Bad_Name/SKILL.md:2: error: 'name' 'Bad_Name' must be lowercase\n"
    "skills/issue-triage/SKILL.md:6: error: the body contains '</skill>', which closes the skill block a runner "
    "wraps the body in: reword it or write it as '&lt;/skill>'\n"
)


def test_validate_with_no_path_finds_every_harness_layout(repo: Path) -> None:
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stderr) == (2, "")
    assert result.stdout == PROBLEMS + "7 skills checked: 3 errors, 1 warning\n"


def test_validate_dot_walks_the_whole_tree_and_skips_junk(repo: Path) -> None:
    result = runner.invoke(app, ["validate", "."])
    assert (result.exit_code, result.stdout) == (2, PROBLEMS + "7 skills checked: 3 errors, 1 warning\n")


def test_validate_library_lists_the_skill_the_model_may_not_pick(repo: Path) -> None:
    result = runner.invoke(app, ["validate", "--library"])
    assert result.exit_code == 2
    lines = result.stdout.splitlines()
    assert lines[:4] == PROBLEMS.splitlines()
    assert lines[4] == (
        ".agents/skills/codex-helper/SKILL.md: not model-invocable (agents/openai.yaml "
        "policy.allow_implicit_invocation: false): only an explicit mention runs it"
    )
    # Bad_Name has errors and is not in the library; issue-triage's `</skill>` is an error the
    # runner guards against itself (it escapes the tag), so the skill still loads and is listed.
    assert lines[5] == (
        "library: 5 of 6 skills model-invocable; catalog 417 characters (Codex lists about 8,000 when the "
        "context window is unknown)"
    )
    assert lines[6:] == ["7 skills checked: 3 errors, 1 warning"]


def test_a_path_with_no_skill_in_it_says_so(repo: Path) -> None:
    result = runner.invoke(app, ["validate", "docs", "my-plugin/.claude-plugin"])
    assert result.exit_code == 2
    assert result.stdout == (
        "docs/SKILL.md: error: SKILL.md missing: every skill folder needs one\n"
        "my-plugin/.claude-plugin/SKILL.md: error: SKILL.md missing: every skill folder needs one\n"
        "2 skills checked: 2 errors, 0 warnings\n"
    )
    result = runner.invoke(app, ["validate", "my-plugin/.claude-plugin/.."])
    assert result.exit_code == 0


def test_a_folder_of_empty_folders_is_no_skill(repo: Path) -> None:
    (repo / "empty" / "a" / "b").mkdir(parents=True)
    result = runner.invoke(app, ["validate", "empty"])
    assert (result.exit_code, result.stdout) == (
        2,
        "empty: error: no skill found: no folder here or below holds a SKILL.md\n0 skills checked: 1 error, 0 warnings\n",
    )


def test_validate_library_routes_the_projects_task_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ratchet.yaml").write_text("paths:\n  skills: lib\n")
    for name, description in (
        ("fx-convert", "Convert currency amounts using exchange rates."),
        ("expense-report", "Build an expense report from receipts."),
    ):
        folder = tmp_path / "lib" / "team" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody\n")
    (tmp_path / "tasks.yaml").write_text(
        "tasks:\n  - id: t1\n    prompt: convert 10 usd to eur at the exchange rate\n    skill: fx-convert\n"
        "  - id: t2\n    prompt: convert expense\n    skill: expense-report\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    result = runner.invoke(app, ["validate", "--library"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines()[0] == (
        "tasks.yaml:5: warning: trigger collision on task t2: 'expense-report' 0.500 and 'fx-convert' 0.500 are "
        "within the matcher's margin (0.05), so neither fires: make their descriptions tell them apart"
    )
    assert result.stdout.splitlines()[-1] == "2 skills checked: 0 errors, 1 warning"
