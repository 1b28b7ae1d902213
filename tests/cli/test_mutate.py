"""`ratchet mutate [SKILL...]` from the command line: the estimate before, the report after, exit codes.

The operators are swapped for hand-made mutants through the command's one seam (ratchet.cli.mutate.SOURCE),
so the output is exact.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.cli import mutate as mutate_cli
from ratchet.core.labels import SIMULATED_CHECK_BANNER
from tests.mutate.hand_made import FX, TRIAGE, HandMade

runner = CliRunner()


@pytest.fixture(autouse=True)
def _hand_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mutate_cli, "SOURCE", HandMade())


def test_json_to_stdout_the_estimate_and_the_spend_on_stderr(demo_repo: Path) -> None:
    result = runner.invoke(app, ["mutate", "--repo", str(demo_repo), "--json", FX])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert [o["status"] for o in report["outcomes"]] == ["killed", "survived"]
    err = result.stderr.splitlines()
    assert err[0] == "Estimate:"
    assert err[1].startswith("  replay ")
    assert any(line.startswith("  total $") and line.endswith("(simulated: no money is spent)") for line in err)
    assert f"[1/2] {FX}/insert-side-effect-1 R4: killed (BLOCK)" in err
    assert f"[2/2] {FX}/delete-sentence-1 R1: survived (WARN)" in err  # the static floor: a removed spend
    assert err[-1].startswith("mutation score 50% (1/2) · 2 check(s) · spent $0.")


def test_out_writes_json_and_markdown_and_prints_the_table(demo_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = runner.invoke(app, ["mutate", "--repo", str(demo_repo), "--out", str(out), FX])
    assert result.exit_code == 0, result.stderr
    markdown = (out / "mutation.md").read_text(encoding="utf-8")
    assert json.loads((out / "mutation.json").read_text(encoding="utf-8"))["seed"] == 0
    assert f"> {SIMULATED_CHECK_BANNER}" in markdown
    assert f"| {FX} | 50% (1/2) | 1 | 1 | 0/1 | - | - | 1/1 | - | - |" in result.stdout
    assert f"wrote {out / 'mutation.json'} and {out / 'mutation.md'}" in result.stderr


def test_an_unknown_skill_is_one_line_and_exit_2(demo_repo: Path) -> None:
    result = runner.invoke(app, ["mutate", "--repo", str(demo_repo), "nope"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: unknown skill 'nope' at ")
    assert result.stderr.endswith(f": known {FX}, {TRIAGE}\n")
    assert result.stdout == ""


def test_a_budget_that_stops_the_run_exits_2_after_the_report(demo_repo: Path) -> None:
    result = runner.invoke(app, ["mutate", "--repo", str(demo_repo), "--json", "--budget", "0.03"])
    assert result.exit_code == 2
    report = json.loads(result.stdout)  # the report is printed first: what was checked is not lost
    assert report["stopped"].startswith("the run's budget of $0.0300 stopped it after ")
    assert result.stderr.splitlines()[-1] == f"error: {report['stopped']}"


def test_a_bad_budget_is_refused(demo_repo: Path) -> None:
    result = runner.invoke(app, ["mutate", "--repo", str(demo_repo), "--budget", "0"])
    assert result.exit_code == 2
    assert result.stderr == "error: --budget must be a finite amount of USD above 0, not 0; e.g. --budget 0.50\n"


def test_a_mutant_that_could_not_be_checked_exits_3_after_the_report(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = HandMade([(TRIAGE, "break-frontmatter-1", "R1", "name: github-triage\n", "name: [github-triage\n")])
    monkeypatch.setattr(mutate_cli, "SOURCE", broken)
    result = runner.invoke(app, ["mutate", "--repo", str(demo_repo), "--json"])
    assert result.exit_code == 3
    assert json.loads(result.stdout)["outcomes"][0]["status"] == "error"
    last = result.stderr.splitlines()[-1]
    assert last.startswith(f"error: 1 mutant(s) could not be checked, first {TRIAGE}/break-frontmatter-1: ")
    assert last.endswith("; fix the cause and re-run")
