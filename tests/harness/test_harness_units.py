"""The harness pieces that need no binary: settings, shell effect classes, the process sandbox."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from ratchet.config.harness import DEFAULT_READ_COMMANDS, HarnessSettings
from ratchet.config.project import parse_config
from ratchet.core.errors import ConfigError
from ratchet.harness.base import shell_effect, skill_of_path
from ratchet.harness.sandbox import base_env, processes_under, replay_dirs, run_process

READS = list(DEFAULT_READ_COMMANDS)


def test_harness_is_a_name_or_a_mapping() -> None:
    assert parse_config("harness: codex\n", source="r.yaml").harness.name == "codex"
    config = parse_config("harness:\n  name: claude-code\n  timeout_s: 30\n", source="r.yaml")
    assert (config.harness.name, config.harness.timeout_s) == ("claude-code", 30)
    assert parse_config("", source="r.yaml").harness.is_minimal


@pytest.mark.parametrize(
    "text, needle",
    [
        ("harness: claudecode\n", "harness"),
        ("harness:\n  name: command\n", "command"),
        ("harness:\n  name: command\n  command: my-agent --go\n", "{prompt}"),
        ("harness:\n  name: codex\n  command: x {prompt}\n", "only for"),
        ("harness:\n  name: codex\n  colour: red\n", "colour"),
    ],
)
def test_bad_harness_settings_are_one_line_config_errors(text: str, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, source="r.yaml")
    assert needle in info.value.one_line() and "\n" not in info.value.one_line()


@pytest.mark.parametrize(
    "command, effect",
    [
        ("cat /ratchet-scratch/ws/.agents/skills/a/SKILL.md", "read"),
        ("ls -la && wc -l x.csv", "read"),
        ("grep -n total x.csv | sort | uniq", "read"),
        ("cat a > b", "write"),
        ("rm -rf /", "write"),
        ("echo $(rm x)", "write"),
        ("find . -delete", "write"),
        ("sed -i s/a/b/ f", "write"),
        ("python3 -c 'print(1)'", "write"),
        ("cat 'unterminated", "write"),
        ("", "read"),
    ],
)
def test_a_shell_command_is_a_write_unless_every_part_only_reads(command: str, effect: str) -> None:
    assert shell_effect(command, READS) == effect


def test_skill_of_path_names_the_folder_of_a_skill_file() -> None:
    assert skill_of_path("sed -n 1,200p /x/.agents/skills/fx-expense-converter/SKILL.md") == "fx-expense-converter"
    assert skill_of_path("cat README.md") is None


def test_the_environment_is_built_from_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-sentinel-never-leaks")
    with replay_dirs(tmp_path) as dirs:
        env = base_env(dirs, {"EXTRA": "1"})
        assert "OPENAI_API_KEY" not in env and env["EXTRA"] == "1" and env["HOME"] == str(dirs.home)
        out = run_process(
            [sys.executable, "-c", "import os; print(sorted(os.environ))"], cwd=dirs.workspace, env=env, timeout_s=30
        )
    assert "OPENAI_API_KEY" not in out.stdout and out.exit_code == 0


def test_a_hang_is_killed_at_the_timeout_with_its_children_and_the_folder_goes(tmp_path: Path) -> None:
    child = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    with replay_dirs(tmp_path) as dirs:
        started = time.monotonic()
        out = run_process([sys.executable, "-c", child], cwd=dirs.workspace, env=base_env(dirs, {}), timeout_s=1.0)
        assert out.timed_out and out.exit_code is None and time.monotonic() - started < 10
        root = dirs.root
    assert not root.exists()
    assert processes_under(root) == []


def test_a_child_that_leaves_the_group_is_still_killed(tmp_path: Path) -> None:
    escape = (
        "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], "
        "start_new_session=True)"
    )
    with replay_dirs(tmp_path) as dirs:
        out = run_process([sys.executable, "-c", escape], cwd=dirs.workspace, env=base_env(dirs, {}), timeout_s=30)
        assert out.exit_code == 0
        root = dirs.root
        assert processes_under(root), "the escaped child runs from the replay's folder"
    assert processes_under(root) == [] and not root.exists()


def test_settings_keep_their_other_options_when_the_name_is_switched(tmp_path: Path) -> None:
    from ratchet.config.project import project_from_text

    project = project_from_text(tmp_path, "harness:\n  name: codex\n  timeout_s: 12\n", source="r.yaml", home=tmp_path)
    switched = project.with_harness("claude-code")
    assert switched.config.harness.name == "claude-code" and switched.config.harness.timeout_s == 12
    with pytest.raises(ConfigError, match="command"):
        project.with_harness("command")
    assert HarnessSettings().is_minimal


def test_demo_through_an_absent_harness_names_the_npm_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from ratchet.cli import app

    monkeypatch.delenv("RATCHET_CODEX_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no codex on it
    result = CliRunner().invoke(app, ["demo", "--harness", "codex", "--dir", str(tmp_path / "demo")])
    assert result.exit_code == 3
    assert "npm install -g @openai/codex@0.169.0" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "demo").exists()
