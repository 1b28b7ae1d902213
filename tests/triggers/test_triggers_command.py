"""`ratchet triggers`: exact first lines and exit codes through typer's CliRunner, on the simulator."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.live_tiers import closed_port, down_line, set_live_tiers
from tests.triggers.conftest import write_project

runner = CliRunner()

BANNER = (
    "SIMULATED MODELS — the offline simulator routed these queries, not your model; "
    "for live rates set upstream: live in ratchet.yaml"
)


def _invoke(root: Path, home: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["triggers", "--project", str(root), "--work", str(home), *args])
    return result.exit_code, result.stdout, result.stderr


def test_the_table_under_lexical_routing(project_root: Path, tmp_path: Path) -> None:
    code, out, err = _invoke(project_root, tmp_path / "home", "--repeats", "2")
    assert (code, err) == (
        0,
        "estimate: 8 trigger run(s) (4 queries x 2 repeats); routing: lexical calls no model: $0\n",
    )
    assert out.splitlines()[:4] == [
        BANNER,
        "trigger queries: 4, 2 run(s) each, harness minimal, routing lexical",
        "query                 skill          want  fires (95% CI)         errors  prompt",
        "github-triage:fire:1  github-triage  fire  2/2 1.00 [0.34, 1.00]  0       "
        "Label issue #12 in acme/api as a bug and assign it to its...",
    ]
    assert out.splitlines()[-5:] == [
        "skill          recall (should fire)   false fires (should not fire)  errors",
        "fx-convert     2/2 1.00 [0.34, 1.00]  -                              0",
        "github-triage  2/2 1.00 [0.34, 1.00]  0/2 0.00 [0.00, 0.66]          0",
        "(canary)       -                      0/2 0.00 [0.00, 0.66]          0",
        "spent simulated $0.0000 (estimate simulated $0.0000)",
    ]


def test_routing_model_prints_the_estimate_in_simulated_dollars_first(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", routing="model")
    code, out, err = _invoke(root, tmp_path / "home", "--skill", "github-triage")
    assert code == 0
    assert err.startswith("estimate: 10 trigger run(s) (2 queries x 5 repeats) x ~")
    assert err.endswith(" (simulated dollars: the simulator answers, no money is spent)\n")
    assert out.splitlines()[1] == "trigger queries: 2, 5 run(s) each, harness minimal, routing model"


def test_the_json_is_the_same_twice(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", routing="model")
    first = _invoke(root, tmp_path / "home-1", "--json", "--repeats", "3")
    second = _invoke(root, tmp_path / "home-2", "--json", "--repeats", "3")
    assert first[0] == second[0] == 0
    assert first[1] == second[1]
    report = json.loads(first[1])
    assert (report["schema_version"], report["simulated"], report["repeats"]) == (1, True, 3)
    assert [q["id"] for q in report["queries"]] == [
        "github-triage:fire:1",
        "github-triage:not:1",
        "canary:not:1",
        "task:fx-01",
    ]


def test_a_dead_upstream_is_one_line_and_exit_3_before_any_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_project(tmp_path / "proj", routing="model")
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    base = f"http://127.0.0.1:{closed_port()}/v1"
    set_live_tiers(root, base)
    assert _invoke(root, tmp_path / "home") == (3, "", down_line(base))


def test_the_budget_reports_the_runs_so_far_and_exits_2(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", routing="model")
    code, out, err = _invoke(root, tmp_path / "home", "--budget", "0.0002")
    assert code == 2
    assert "stopped: " in out and out.startswith(BANNER)
    assert err.splitlines()[-1].startswith("error: the budget stopped the trigger runs: ")


def test_a_run_that_times_out_is_an_error_exit_3_never_a_negative(tmp_path: Path) -> None:
    sleeper = f"{sys.executable} -c 'import time; time.sleep(30)' {{prompt}}"
    harness = f'harness:\n  name: command\n  command: "{sleeper}"\n  timeout_s: 0.5\n'
    root = write_project(tmp_path / "proj", extra=harness)
    code, out, err = _invoke(root, tmp_path / "home", "--skill", "fx-convert", "--repeats", "1")
    assert code == 3
    assert "task:fx-01  fx-convert  fire  0/0 -           1       Convert my Berlin" in out
    assert err.splitlines()[-1].startswith(
        "error: 1 trigger run(s) of 1 query(ies) ended in error, first task:fx-01: command timed out"
    )


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--skill", "nope"],
            "error: --skill nope: no such skill (the skills folder has: fx-convert, github-triage)\n",
        ),
        (["--repeats", "0"], None),
    ],
)
def test_bad_input_is_one_line_exit_2(project_root: Path, tmp_path: Path, args: list[str], line: str | None) -> None:
    code, out, err = _invoke(project_root, tmp_path / "home", *args)
    assert (code, out) == (2, "")
    if line is not None:
        assert err == line


def test_a_query_about_a_skill_that_is_not_there_is_refused(project_root: Path, tmp_path: Path) -> None:
    (project_root / "triggers.yaml").write_text("triggers:\n  - skill: gone\n    should_fire: [x]\n", encoding="utf-8")
    assert _invoke(project_root, tmp_path / "home") == (
        2,
        "",
        "error: triggers.yaml: query gone:fire:1 names skill 'gone', which is not in the skills folder\n",
    )
