"""selftest: the three scripted gates pass; a deliberately broken metric makes it fail."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from typer.testing import CliRunner

from ratchet.bench.data.results import ScoredEdit
from ratchet.bench.report.metrics import DEFAULT_FNS
from ratchet.bench.report.selftest import run_selftest
from ratchet.cli.bench_run import _standalone


def test_selftest_passes_and_prints_three_rows(tmp_path: Path) -> None:
    outcome = run_selftest(tmp_path)
    assert outcome.passed, outcome.failures
    rows = outcome.render().splitlines()
    assert rows[0].startswith("oracle ") and "recall 100.0%" in rows[0] and "false blocks   0.0%" in rows[0]
    assert rows[1].startswith("pass_everything ") and "recall   0.0%" in rows[1]
    assert rows[2].startswith("block_everything ") and "false blocks 100.0%" in rows[2]
    assert rows[3] == "selftest passed on 16 synthetic labels (no labels/labels.json)"


def test_a_broken_metric_fails_the_selftest(tmp_path: Path) -> None:
    def broken_recall(edits: Sequence[ScoredEdit]) -> dict[str, float | None]:
        # Off by one kind: counts only WARN as detected.
        return {"overall": sum(e.verdict.decision == "WARN" for e in edits) / max(1, len(edits))}

    outcome = run_selftest(tmp_path, fns=replace(DEFAULT_FNS, detection_recall=broken_recall))
    assert not outcome.passed
    assert "oracle: detection recall is 0.0, expected 1.0" in outcome.failures


def test_selftest_command_exit_code(tmp_path: Path) -> None:
    result = CliRunner().invoke(_standalone(), ["selftest", "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "selftest passed on 16 synthetic labels (no labels/labels.json)"
