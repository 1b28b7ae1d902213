"""`ratchet record` and `ratchet noise` name an infrastructure fault as what it is, once.

A harness that hangs past `timeout_s` is a timeout (exit 3), never "MISROUTED ... reword the
skill's description" (exit 2) or "every repeat failed" (exit 2): `ratchet check` already says so.
A missing provider key stops the command before the first task with one line (exit 3), as
`ratchet check` does, instead of the same error once per task.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.project import load_project
from ratchet.goldens.trace import NOISE_SUFFIX
from tests.helpers.demo_repo import demo_project, pending_traces

runner = CliRunner()
TIMEOUT = "command timed out: it did not finish within 0.5 s and was killed (raise harness.timeout_s in ratchet.yaml if it needs longer)"


def _sleeping_harness(root: Path, tmp_path: Path) -> None:
    """ratchet.yaml's harness: a command agent that sleeps far past its 0.5 s timeout."""
    agent = tmp_path / "sleeper.py"
    agent.write_text("import time\ntime.sleep(60)\n", encoding="utf-8")
    path = root / "ratchet.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["harness"] = {"name": "command", "command": f"{sys.executable} {agent} {{prompt}}", "timeout_s": 0.5}
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def _no_agent_key(root: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The live upstream with the agent tier's key unset; the variable's name."""
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    tier = load_project(root).config.tiers["agent"]
    assert tier.api_key_env is not None
    monkeypatch.delenv(tier.api_key_env, raising=False)
    return f"error: tier agent: {tier.api_key_env} is not set (the key for {tier.model}); export it, then re-run\n"


# -- ratchet record ----------------------------------------------------------------------------------


def test_record_names_a_harness_timeout_as_a_timeout_and_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = demo_project(tmp_path, monkeypatch)
    _sleeping_harness(root, tmp_path)
    result = runner.invoke(app, ["record", "github-triage-01", "canary-01", "--project", str(root)])
    assert result.exit_code == 3, (result.stdout, result.stderr)
    assert "MISROUTED" not in result.stdout and "reword" not in result.stderr
    assert result.stderr == (
        f"error: github-triage-01: {TIMEOUT}\n"
        f"error: canary-01: {TIMEOUT}\n"
        "error: 2 task(s) failed to record (2 timed out)\n"
    )
    assert result.stdout.splitlines()[-1] == f"recorded 0 pending trace(s) in {tmp_path / 'home' / 'pending'}"
    assert pending_traces(tmp_path) == []


def test_record_with_no_key_prints_one_line_and_stops_before_the_first_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = demo_project(tmp_path, monkeypatch)
    line = _no_agent_key(root, monkeypatch)
    result = runner.invoke(app, ["record", "--project", str(root)])
    assert (result.exit_code, result.stderr) == (3, line)
    assert "recorded" not in result.stdout
    assert pending_traces(tmp_path) == []


# -- ratchet noise -----------------------------------------------------------------------------------


def test_noise_names_a_harness_timeout_as_a_timeout_and_exits_3(demo_repo: Path, tmp_path: Path) -> None:
    _sleeping_harness(demo_repo, tmp_path)
    result = runner.invoke(
        app,
        [
            "noise",
            "github-triage-01",
            "--repeats",
            "2",
            "--project",
            str(demo_repo),
            "--work",
            str(demo_repo / ".ratchet"),
        ],
    )
    assert result.exit_code == 3, (result.stdout, result.stderr)
    assert result.stderr == (
        f"error: github-triage-01: every one of 2 repeats failed, first: {TIMEOUT}; nothing was measured\n"
        "error: 1 golden(s) could not be measured: their replays failed (1 timed out); fix the cause, then run "
        "ratchet noise again\n"
    )
    assert result.stdout.startswith("wrote 0 noise record(s), $")
    assert list((demo_repo / "goldens").glob(f"*/*{NOISE_SUFFIX}")) == []


def test_noise_with_no_key_prints_one_line_and_stops_before_the_first_replay(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = _no_agent_key(demo_repo, monkeypatch)
    result = runner.invoke(
        app, ["noise", "--repeats", "2", "--project", str(demo_repo), "--work", str(demo_repo / ".ratchet")]
    )
    assert (result.exit_code, result.stdout, result.stderr) == (3, "", line)
    assert list((demo_repo / "goldens").glob(f"*/*{NOISE_SUFFIX}")) == []
