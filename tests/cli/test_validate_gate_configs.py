"""`ratchet validate` checks the project's own gate configs (configs/*.yaml) as a check would load them:
the file parses, its judge_prompt is a file inside the project, its judge tiers can judge. Each fault is
one `path: error: ...` line and exit 2, as for a skill."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app

runner = CliRunner()

NO_SKILLS_YET = (
    "skills/: no skills yet: write one as skills/<name>/SKILL.md (frontmatter name and description, "
    "then the instructions)\n"
)
KNOWN = "injector, nano, super, ultra"


@pytest.fixture
def initialized(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    result = runner.invoke(app, ["init"])
    assert (result.exit_code, result.stderr) == (0, "")
    (tmp_path / "configs").mkdir()
    return tmp_path


def _config(root: Path, name: str, body: str) -> None:
    (root / "configs" / f"{name}.yaml").write_text(f"schema_version: 1\nname: {name}\n{body}", encoding="utf-8")


def test_a_sound_gate_config_passes_silently(initialized: Path) -> None:
    (initialized / "configs" / "judge.md").write_text("Judge the pair.\n", encoding="utf-8")
    _config(initialized, "mine", "judge_prompt: judge.md\ntiers:\n  - {tier: nano, threshold: 0.5}\n")
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == NO_SKILLS_YET + "0 skills checked: 0 errors, 0 warnings\n"


def test_every_broken_gate_config_is_an_error_line_and_exit_2(initialized: Path) -> None:
    _config(initialized, "a_agent", "tiers:\n  - {tier: agent, threshold: 0.5}\n")
    _config(initialized, "b_mega", "tiers:\n  - {tier: mega, threshold: 0.5}\n")
    _config(initialized, "c_prompt", "judge_prompt: nope.md\n")
    (initialized / "configs" / "d_version.yaml").write_text("schema_version: 2\n", encoding="utf-8")
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stderr) == (2, "")
    assert result.stdout == (
        f"configs/a_agent.yaml: error: tier 'agent' runs the tasks and is never a judge: name a judge tier ({KNOWN})\n"
        f"configs/b_mega.yaml: error: unknown judge tier 'mega' (ratchet.yaml configures: {KNOWN}): "
        "add it under tiers: in ratchet.yaml or name a configured tier\n"
        "configs/c_prompt.yaml: error: judge_prompt 'nope.md' not found (relative to the config file's folder): "
        "fix the path, or drop judge_prompt to use the packaged judge\n"
        "configs/d_version.yaml: error: unsupported schema_version 2 (this Ratchet reads 1)\n"
        + NO_SKILLS_YET
        + "0 skills checked: 4 errors, 0 warnings\n"
    )
