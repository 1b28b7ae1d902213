"""A model that stops finishing (the turn limit, where its golden finished) moved; only crashes are errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.project import load_project
from ratchet.goldens.trace import Trace
from ratchet.watch.compare import TURN_LIMIT_PART, classify
from ratchet.watch.models import WATCH_SCHEMA_VERSION
from ratchet.watch.run import WatchOptions, watch_project
from tests.watch.conftest import SIM_NOISE
from tests.watch.models import NewModel

TRIAGE_SKILL = "github-triage"
runner = CliRunner()


def _trace(status: str = "ok", error: str | None = None, output: str = "done") -> Trace:
    return Trace.model_validate(
        {
            "task_id": "t",
            "prompt": "p",
            "seed": 1,
            "frozen_time": "2026-10-10T00:00:00Z",
            "final_output": output,
            "status": status,
            "error": error,
        }
    )


def test_the_turn_limit_differs_from_a_golden_that_finished_and_a_crash_is_an_error() -> None:
    golden = _trace()
    looped = classify("t", 0, golden, _trace("error", "the agent did not finish within 16 turns", output=""))
    assert looped.kind == "differed" and looped.parts[0] == TURN_LIMIT_PART == "status: turn limit"
    failed = classify("t", 0, golden, _trace("error", "model call failed: agent: 500 internal error", output=""))
    assert (failed.kind, failed.parts) == ("error", [])
    crashed = classify("t", 0, golden, _trace("error", "tool fx_get_rate crashed: KeyError: 'x'", output=""))
    assert crashed.kind == "error"


def test_a_model_that_repeats_one_tool_call_until_the_turn_limit_moved(watched_repo: Path) -> None:
    model = NewModel(SIM_NOISE, loops=TRIAGE_SKILL)
    report = watch_project(load_project(watched_repo), WatchOptions(upstream_models={"agent": model}))
    triage = next(s for s in report.skills if s.skill == TRIAGE_SKILL)
    assert (triage.differed, triage.replays, triage.errors) == (12, 12, 0)
    assert TURN_LIMIT_PART in triage.new_parts
    assert report.moved == [TRIAGE_SKILL] and report.failed == []


def test_replays_at_the_turn_limit_exit_1_as_moved_not_3(watched_repo: Path) -> None:
    config = watched_repo / "ratchet.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "max_agent_turns: 1\n", encoding="utf-8")
    result = runner.invoke(app, ["watch", "--project", str(watched_repo), TRIAGE_SKILL], env={"COLUMNS": "250"})
    assert result.exit_code == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "MOVED  the model's behaviour moved: github-triage" in lines
    assert any(
        line.startswith("  github-triage: 12 of 12 replays differed") and "status: turn limit" in line for line in lines
    )
    as_json = runner.invoke(app, ["watch", "--project", str(watched_repo), TRIAGE_SKILL, "--json"])
    report = json.loads(as_json.stdout)
    assert (as_json.exit_code, report["schema_version"], report["moved"]) == (1, WATCH_SCHEMA_VERSION, [TRIAGE_SKILL])
