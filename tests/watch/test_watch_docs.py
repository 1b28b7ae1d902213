"""docs/ci.md's scheduled watch job: on a schedule, running `ratchet watch` with flags it has."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from typer.testing import CliRunner

from ratchet.cli import app

CI_DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def test_the_scheduled_watch_job_runs_on_a_schedule_with_real_flags() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", CI_DOC.read_text(encoding="utf-8"), flags=re.S)
    [workflow] = [yaml.safe_load(block) for block in blocks if "ratchet watch" in block]
    assert workflow[True]["schedule"][0]["cron"]  # PyYAML reads the key `on` as True
    [job] = workflow["jobs"].values()
    [command] = [step["run"] for step in job["steps"] if "ratchet watch" in step.get("run", "")]
    flags = re.findall(r"--[a-z-]+", command)
    help_text = CliRunner().invoke(app, ["watch", "--help"], env={"COLUMNS": "200"}).stdout
    assert flags and all(flag in help_text for flag in flags)
