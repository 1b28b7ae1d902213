"""<world>/commands.yaml: loading (a bad file is one error with its line), matching, the world's digest, and
the `cmd:` calls a record becomes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import InputError
from ratchet.goldens.trace import StateChange
from ratchet.world.commands import (
    NOT_MOCKED,
    CommandMock,
    CommandRun,
    command_calls,
    load_commands,
    match_command,
)
from ratchet.world.state import WorldFiles

CLOCK = "2026-10-14T16:00:00Z"
COMMANDS = """\
- name: gh
  args: [issue, comment, "*", "**"]
  stdout: "commented\\n"
  effect: send
  state: {github.repos.acme/api.issues.7.commented: true}
- name: gh
  effect: read
  stdout: "gh 2.0\\n"
- name: git
  args: [push]
  exit: 1
  stderr: "rejected\\n"
  effect: write
"""


def _world(tmp_path: Path, commands: str | None = COMMANDS) -> Path:
    world = tmp_path / "world"
    world.mkdir(parents=True)
    (world / "github.yaml").write_text(
        "github:\n  repos:\n    acme/api:\n      issues:\n        '7': {title: Broken}\n", encoding="utf-8"
    )
    if commands is not None:
        (world / "commands.yaml").write_text(commands, encoding="utf-8")
    return world


def test_first_matching_mock_answers_by_argument_patterns(tmp_path: Path) -> None:
    mocks = load_commands(_world(tmp_path))
    assert [m.name for m in mocks] == ["gh", "gh", "git"]
    assert match_command(mocks, "gh", ["issue", "comment", "7", "--body", "hi"]) == 0
    assert match_command(mocks, "gh", ["issue", "comment", "7"]) == 0, "a last ** takes any rest, none included"
    assert match_command(mocks, "gh", ["issue", "comment"]) == 1, "too few words: the next mock (any arguments)"
    assert match_command(mocks, "git", ["push"]) == 2
    assert match_command(mocks, "git", ["push", "--force"]) is None, "without **, exactly one word per pattern"
    assert match_command(mocks, "curl", []) is None


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("name: gh\n", "commands.yaml must be a YAML list of mocked commands", 1),
        ("- name: gh\n  stdout: x\n", "0.effect: Field required", 1),
        ("- name: gh\n  effect: read\n- name: git\n  effect: push\n", "1.effect: Input should be", 4),
        ("- name: gh\n  args: ['**', x]\n  effect: read\n", "0.args: Value error, '**' may only be the last", 2),
        ("- name: ../gh\n  effect: read\n", "0.name: String should match pattern", 1),
        ("- name: gh\n  effect: read\n  exit: 300\n", "0.exit: Input should be less than or equal to 255", 3),
        ("- name: gh\n  effect: send\n  exit: true\n", "0.exit: Input should be a valid integer", 3),
        ("- name: gh\n  effect: send\n  exit: 1.0\n", "0.exit: Input should be a valid integer", 3),
        ("- name: gh\n  effect: send\n  stdout: 7\n", "0.stdout: Input should be a valid string", 3),
        ("- name: gh\n  name: git\n  effect: send\n", "0: the key 'name' is given twice", 2),
        ("- name: gh\n  effect: send\n  state: {a.b: 1, a.b: 2}\n", "0.state: the key 'a.b' is given twice", 3),
    ],
)
def test_a_bad_commands_file_is_one_error_naming_file_and_line(
    tmp_path: Path, text: str, message: str, line: int
) -> None:
    with pytest.raises(InputError) as caught:
        WorldFiles(_world(tmp_path, text)).world(workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert message in caught.value.one_line()
    assert (Path(str(caught.value.path)).name, caught.value.line) == ("commands.yaml", line)


@pytest.mark.parametrize("name", ["sh", "bash", "env", "node", "python", "python3", "python3.12"])
def test_a_mock_of_a_runtime_the_harness_or_the_shim_runs_on_is_refused(tmp_path: Path, name: str) -> None:
    # a mocked `node` stops Codex (#!/usr/bin/env node) from starting, a mocked bash or python3 swallows the skill's
    # own scripts: a file that does it is one error before any replay, never an error trace or a silent pass
    with pytest.raises(InputError) as caught:
        load_commands(_world(tmp_path, f"- name: gh\n  effect: send\n- name: {name}\n  effect: read\n"))
    message = caught.value.one_line()
    assert f"1.name: {name!r} is what the harness or its scripts run on and cannot be mocked" in message
    assert caught.value.line == 3


def test_commands_are_part_of_the_world_not_a_section_and_digest_only_when_present(tmp_path: Path) -> None:
    plain = WorldFiles(_world(tmp_path / "a", None)).world(workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    mocked = WorldFiles(_world(tmp_path / "b")).world(workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert set(mocked.data) == {"github"} and len(mocked.commands) == 3 and plain.commands == ()
    assert mocked.digest() != plain.digest()
    assert mocked.copy().commands == mocked.commands
    # an empty commands.yaml is no commands at all: the world digests as if it were not there
    empty = WorldFiles(_world(tmp_path / "c", "")).world(workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert empty.digest() == plain.digest()


def test_runs_become_cmd_calls_with_the_mocks_effect_state_and_not_mocked_as_a_write(tmp_path: Path) -> None:
    mocks = load_commands(_world(tmp_path))
    data = {"github": {"repos": {"acme/api": {"issues": {"7": {"commented": False}}}}}}
    runs = [
        CommandRun(name="gh", argv=["gh", "issue", "comment", "7", "--body", "hi"], mock=0),
        CommandRun(name="gh", argv=["gh", "issue", "comment", "7"], mock=0),
        CommandRun(name="git", argv=["git", "push"], mock=2, exit=1),
        CommandRun(name="curl", argv=["curl", "https://example.com"], exit=127),
    ]
    calls = command_calls(runs, mocks, data, start=5)
    assert [(c.index, c.name, c.effect, c.result, c.error) for c in calls] == [
        (5, "cmd:gh", "send", "commented\n", None),
        (6, "cmd:gh", "send", "commented\n", None),
        (7, "cmd:git", "write", "", "exit 1 rejected"),
        (8, "cmd:curl", "write", None, NOT_MOCKED.format(name="curl")),
    ]
    assert calls[0].arguments == {"argv": ["gh", "issue", "comment", "7", "--body", "hi"]}
    path = "github.repos.acme/api.issues.7.commented"
    assert calls[0].state_changes == [StateChange(path=path, before=False, after=True)]
    assert calls[1].state_changes == [StateChange(path=path, before=True, after=True)], "before: what a run set"


def test_a_mock_is_the_shims_entry_without_effect_or_state() -> None:
    mock = CommandMock(name="gh", args=["**"], stdout="x", effect="send", state={"a.b": 1})
    assert mock.shim_entry() == {"name": "gh", "args": ["**"], "stdout": "x", "stderr": "", "exit": 0}
