"""Mocked commands end to end through one replay: a `command` agent (stdlib only) whose model asks its shell to
run `gh` and `git push`; the shims answer from world/commands.yaml, and the trace has each as a `cmd:` call
after the shell call that ran it, with the mock's effect and state change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ratchet.goldens.trace import StateChange
from ratchet.harness import bwrap
from ratchet.world.commands import NOT_MOCKED
from tests.helpers.command_replay import replay_line

LINE = "gh issue comment 7 --body 'looks good'; git push origin main; echo $PATH"


def test_a_replay_runs_mocked_commands_and_records_each_after_its_shell_call(tmp_path: Path) -> None:
    trace = replay_line(tmp_path, LINE)
    assert [(c.index, c.name, c.effect, c.error) for c in trace.tool_calls] == [
        (0, "cmd:git", "write", NOT_MOCKED.format(name="git")),
        (1, "bash", "write", None),
        (2, "cmd:gh", "send", None),
        (3, "cmd:git", "write", NOT_MOCKED.format(name="git")),
    ], "the agent's own `git --version` before any model call is kept, first: only a harness's exact probes are not"
    assert trace.tool_calls[0].arguments == {"argv": ["git", "--version"]}
    gh = trace.tool_calls[2]
    assert gh.arguments == {"argv": ["gh", "issue", "comment", "7", "--body", "looks good"]}
    assert gh.state_changes == [StateChange(path="github.repos.acme/api.issues.7.commented", before=None, after=True)]
    shell = str(trace.tool_calls[1].result)
    assert "issuecomment-1" in shell and NOT_MOCKED.format(name="git") in shell
    assert "\n/ratchet-scratch/bin\n" in shell, "bin/ is the only PATH (shown to the model as the placeholder)"
    assert json.loads(trace.model_dump_json())["tool_calls"][2]["name"] == "cmd:gh"


def test_under_bubblewrap_an_absolute_path_runs_the_shim_too(tmp_path: Path) -> None:
    why = bwrap.unavailable()
    if why:
        pytest.skip(why)
    real = Path("/usr/bin/git")
    if not real.is_file():
        pytest.skip("no /usr/bin/git on this host to cover")
    trace = replay_line(tmp_path, f"{real} push origin main; true")
    assert trace.harness is not None and trace.harness.sandbox == "bubblewrap"
    assert [(c.name, c.arguments, c.error) for c in trace.tool_calls[2:]] == [
        ("cmd:git", {"argv": ["git", "push", "origin", "main"]}, NOT_MOCKED.format(name="git"))
    ]
