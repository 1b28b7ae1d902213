"""`ratchet judges`: exact output and exit codes through typer's CliRunner, on scripted results on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet import SIMULATED_BANNER
from ratchet.bench.data.dataset import LABELS_FILE, REVIEWS_FILE, write_labels, write_reviews
from ratchet.bench.data.models import LabelsFile, Review, ReviewsFile
from ratchet.bench.data.results import write_results
from ratchet.bench.report.judge_rates import judge_rates
from ratchet.cli import app
from ratchet.config.gate import GateConfig
from tests.helpers.cli import flat_stderr
from tests.helpers.scripted_judges import edit_id, labels_for, scripted_results, task_id

runner = CliRunner()
LIVE = {
    "agent": "openai/gpt-4o",
    "nano": "openai/gpt-4o-mini",
    "super": "anthropic/claude-3-5-haiku",
    "ultra": "ollama/llama3.1:8b",
}

TABLE = [
    "| tier | from | model | labeled pairs | TPR [95% CI] | FPR [95% CI] | unsure | flag |",
    "|---|---|---|---|---|---|---|---|",
    "| nano | nano_only | {nano} | 40 (20 regression, 20 not) | 70.0% [48.1%, 85.5%] (14/20) | "
    "10.0% [2.8%, 30.1%] (2/20) | 5.0% | TPR lower bound 48.1% < floor 60.0%; FPR upper bound 30.1% > ceiling 20.0% |",
    "| super | super_only | {super} | 40 (20 regression, 20 not) | 90.0% [69.9%, 97.2%] (18/20) | "
    "0.0% [0.0%, 16.1%] (0/20) | 5.0% | ok |",
    "| ultra | cascade | {ultra} | 40 (20 regression, 20 not) | 95.0% [76.4%, 99.1%] (19/20) | "
    "5.0% [0.9%, 23.6%] (1/20) | 0.0% | FPR upper bound 23.6% > ceiling 20.0% |",
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project root (the cwd) with scripted simulated results in bench/results/smoke-sim and their labels."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    out = tmp_path / "bench" / "results" / "smoke-sim"
    out.mkdir(parents=True)
    write_results(out, scripted_results())
    write_labels(tmp_path / LABELS_FILE, LabelsFile(labels=list(labels_for().values())))
    return tmp_path


def test_text_table_with_the_defaults(project: Path) -> None:
    result = runner.invoke(app, ["judges"])
    assert result.exit_code == 0, result.stderr
    rows = [line.format(**{t: f"sim/judge-{t}" for t in ("nano", "super", "ultra")}) for line in TABLE]
    assert (
        result.stdout
        == "\n".join(
            [
                SIMULATED_BANNER,
                "",
                "judges: TPR floor 60.0%, FPR ceiling 20.0% (gate config cascade); 95% Wilson intervals",
                "",
                *rows,
            ]
        )
        + "\n"
    )


def test_live_results_warn_about_a_judge_of_the_agents_family(tmp_path: Path) -> None:
    out = tmp_path / "live"
    out.mkdir()
    write_results(out, scripted_results(models=LIVE, simulated=False))
    labels = tmp_path / "labels.json"
    write_labels(labels, LabelsFile(labels=list(labels_for().values())))
    result = runner.invoke(app, ["judges", "--results", str(out), "--labels", str(labels)])
    assert result.exit_code == 0, result.stderr
    assert (
        result.stdout
        == "\n".join(
            [
                "judges: TPR floor 60.0%, FPR ceiling 20.0% (gate config cascade); 95% Wilson intervals",
                "",
                *[line.format(**LIVE) for line in TABLE],
                "",
                "warning: nano judge openai/gpt-4o-mini and the agent openai/gpt-4o are both the gpt family: a judge may "
                "prefer its own family's output; judge with another family, or read its FPR with care",
            ]
        )
        + "\n"
    )


def test_json_is_the_rates_model_and_byte_stable(project: Path) -> None:
    first = runner.invoke(app, ["judges", "--format", "json"])
    assert first.exit_code == 0, first.stderr
    assert runner.invoke(app, ["judges", "--format", "json"]).stdout == first.stdout
    data = json.loads(first.stdout)
    assert data == judge_rates(scripted_results(), GateConfig(), labels_for()).model_dump(mode="json")
    assert [(t["tier"], t["tpr"]["k"], t["fpr"]["k"]) for t in data["tiers"]] == [
        ("nano", 14, 2),
        ("super", 18, 0),
        ("ultra", 19, 1),
    ]


def test_the_reviews_beside_the_labels_apply(project: Path) -> None:
    review = Review(
        edit_id=edit_id(0),
        edit_hash=f"hash-{edit_id(0)}",
        verdict="disagree",
        decision="PASS",
        pairs={task_id(0): "same"},
    )
    write_reviews(project / REVIEWS_FILE, ReviewsFile(reviews=[review]))
    data = json.loads(runner.invoke(app, ["judges", "--format", "json"]).stdout)
    nano = data["tiers"][0]
    assert (nano["positives"], nano["negatives"], nano["tpr"]["k"], nano["fpr"]["k"]) == (19, 21, 13, 3)


def test_the_configs_floor_and_ceiling_apply(project: Path) -> None:
    (project / "configs").mkdir()
    (project / "configs" / "lenient.yaml").write_text(
        "schema_version: 1\nname: lenient\nlevel0: true\njudge_tpr_floor: 0.4\njudge_fpr_ceiling: 0.35\n"
        "tiers:\n  - tier: nano\n    threshold: 0.5\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["judges", "--config", "lenient"])
    assert result.exit_code == 0, result.stderr
    assert "TPR floor 40.0%, FPR ceiling 35.0% (gate config lenient)" in result.stdout
    assert [line.rsplit("|", 2)[-2].strip() for line in result.stdout.splitlines() if line.startswith("| ")][1:] == [
        "ok",
        "ok",
        "ok",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--results", "missing"],
            "error: missing: no such results directory: pass --results, or run `ratchet bench smoke` first",
        ),
        (
            ["--results", "empty"],
            "error: empty: no results.json or summary.json here: run `ratchet bench run` into it first",
        ),
        (
            ["--labels", "nowhere.json"],
            "error: nowhere.json: no labels file: pass --labels, or run `ratchet bench build` first",
        ),
        (
            ["--labels", "other.json"],
            "error: bench/results/smoke-sim: no labeled pair reached a judge: no pair that "
            "other.json labels has a judge opinion (Level 0 decided them all, or the runs have no judge tiers)",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(project: Path, args: list[str], message: str) -> None:
    (project / "empty").mkdir()
    write_labels(project / "other.json", LabelsFile(labels=[]))
    result = runner.invoke(app, ["judges", *args])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message + "\n")


def test_an_unknown_format_is_a_usage_error(project: Path) -> None:
    result = runner.invoke(app, ["judges", "--format", "csv"])
    assert (result.exit_code, result.stdout, flat_stderr(result)) == (
        2,
        "",
        (
            "Usage: ratchet judges [OPTIONS] Try 'ratchet judges --help' for help. Error Invalid value for '--format': "
            "Value error, 'csv' is not one of 'text', 'json'."
        ),
    )
