"""Labels, reviews and the labels the metrics score against."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ratchet.bench.build.build import BuildOptions, build_bench
from ratchet.bench.build.labels import effective_labels
from ratchet.bench.data.dataset import BenchPaths, read_labels, read_reviews
from ratchet.bench.data.models import Label, Review
from ratchet.cli import app


def _label(**update: object) -> Label:
    base = Label(
        edit_id="s.R1.1",
        type="R1",
        skill="s",
        affected_goldens=["t1"],
        expected_decision="BLOCK",
        expected_pairs={"t1": "regression", "t2": "same"},
        edit_hash="h1",
    )
    return base.model_copy(update=update)


def test_effective_labels_disagreement_wins_agreement_and_stale_do_not() -> None:
    label = _label()
    disagree = Review(edit_id="s.R1.1", edit_hash="h1", verdict="disagree", decision="PASS", pairs={"t1": "same"})
    effective = effective_labels([label], [disagree])["s.R1.1"]
    assert effective.expected_decision == "PASS" and effective.expected_pairs == {"t1": "same", "t2": "same"}
    agree = Review(edit_id="s.R1.1", edit_hash="h1", verdict="agree")
    assert effective_labels([label], [agree])["s.R1.1"] == label
    stale = disagree.model_copy(update={"edit_hash": "old"})
    assert effective_labels([label], [stale])["s.R1.1"] == label
    pairs_only = Review(edit_id="s.R1.1", edit_hash="h1", verdict="disagree", pairs={"t2": "regression"})
    corrected = effective_labels([label], [pairs_only])["s.R1.1"]
    assert corrected.expected_decision == "BLOCK" and corrected.affected_goldens == ["t1", "t2"]


def _run(root: Path, *args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["bench", "label", *args, "--project", str(root)], input=stdin)
    return result.exit_code, result.output


def test_disagreement_changes_the_effective_label_and_survives_a_rebuild(bench_project: Path) -> None:
    paths = BenchPaths.at(bench_project)
    labels = read_labels(paths.labels)
    assert labels is not None
    target = next(lb for lb in labels.labels if lb.type == "R3")
    task = target.affected_goldens[0]
    code, out = _run(bench_project, target.edit_id, "--disagree", "--decision", "PASS", "--pair", f"{task}=same")
    assert code == 0, out
    assert out == f"recorded: {target.edit_id} disagree -> PASS\n"
    effective = effective_labels(labels.labels, read_reviews(paths.reviews).reviews)[target.edit_id]
    assert effective.expected_decision == "PASS" and effective.expected_pairs[task] == "same"

    build_bench(bench_project, BuildOptions(work=bench_project / "var" / "bench", goldens=False))
    rebuilt = read_labels(paths.labels)
    assert rebuilt is not None
    after = effective_labels(rebuilt.labels, read_reviews(paths.reviews).reviews)[target.edit_id]
    assert after.expected_decision == "PASS"
    code, out = _run(bench_project, "--status")
    assert code == 0
    if target.review_required:
        assert "disagree -> PASS" in out


def test_a_changed_edit_makes_its_review_stale(bench_project: Path) -> None:
    paths = BenchPaths.at(bench_project)
    labels = read_labels(paths.labels)
    assert labels is not None
    control = next(lb for lb in labels.labels if lb.type == "N0")
    assert _run(bench_project, control.edit_id, "--agree")[0] == 0
    _, out = _run(bench_project, "--status")
    assert f"{control.edit_id}" in out and "agree" in out
    # the label now pins a different edit: the old review must not apply, and must show as stale
    raw = json.loads(paths.labels.read_text())
    for item in raw["labels"]:
        if item["edit_id"] == control.edit_id:
            item["edit_hash"] = "0" * 64
    paths.labels.write_text(json.dumps(raw))
    code, out = _run(bench_project, "--status")
    assert code == 0
    line = next(ln for ln in out.splitlines() if control.edit_id in ln)
    assert "stale (edit changed since review)" in line


def test_interactive_walk_accepts_overrides_and_skips(bench_project: Path) -> None:
    code, out = _run(bench_project, stdin="a\nr\nBLOCK\ns\nq\n")
    assert code == 0, out
    assert "[1/" in out and "--- a/" in out and "expected decision:" in out
    assert "accepted 1, overridden 1, skipped 1" in out
    reviews = read_reviews(BenchPaths.at(bench_project).reviews).reviews
    assert sorted(r.verdict for r in reviews) == ["agree", "disagree"]
    assert next(r for r in reviews if r.verdict == "disagree").decision == "BLOCK"


def test_status_counts_the_queue(bench_project: Path) -> None:
    code, out = _run(bench_project, "--status")
    assert code == 0
    labels = read_labels(BenchPaths.at(bench_project).labels)
    assert labels is not None
    queued = sum(lb.review_required for lb in labels.labels)
    assert out.splitlines()[0] == f"review queue: 0/{queued} reviewed"


def test_bad_review_input_is_one_line(bench_project: Path) -> None:
    code, out = _run(bench_project, "fx-expense-converter.N0.1", "--disagree", "--pair", "nope")
    assert code == 2 and out.count("\n") == 1 and "--pair wants TASK_ID=OUTCOME" in out
    code, out = _run(bench_project, "no.such.edit", "--agree")
    assert code == 2 and "no label for edit 'no.such.edit'" in out
    assert not (bench_project / "labels" / "reviews.json").exists()


# -- labels and edits must match one to one ----------------------------------------------------------

Raw = list[dict[str, Any]]
REBUILD = "rebuild with `ratchet bench build`"


def _duplicate(labels: Raw) -> Raw:
    return [labels[0], *labels]


def _missing(labels: Raw) -> Raw:
    return labels[1:]


def _unknown_edit(labels: Raw) -> Raw:
    return [*labels, {**labels[0], "edit_id": "nope.R1.1"}]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (_duplicate, "edit {first} has 2 labels: " + REBUILD),
        (_missing, "edit {first} (bench/edits/{first}.json) has no label: " + REBUILD),
        (_unknown_edit, "label nope.R1.1 names no edit in bench/edits: " + REBUILD),
    ],
    ids=["duplicate", "missing", "unknown-edit"],
)
def test_labels_that_do_not_match_the_edits_one_to_one_fail_status_and_validate(
    bench_project: Path, damage: Callable[[Raw], Raw], message: str
) -> None:
    labels_file = BenchPaths.at(bench_project).labels
    raw = json.loads(labels_file.read_text(encoding="utf-8"))
    first = raw["labels"][0]["edit_id"]
    raw["labels"] = damage(raw["labels"])
    labels_file.write_text(json.dumps(raw), encoding="utf-8")
    expected = f"error: labels/labels.json: {message.format(first=first)}\n"
    assert _run(bench_project, "--status") == (2, expected)
    validated = CliRunner().invoke(app, ["bench", "validate", "--no-audit", "--project", str(bench_project)])
    assert validated.exit_code == 2
    assert validated.output.endswith(expected) and validated.output.count("error: ") == 1


def test_edits_with_no_labels_file_fail_validate(bench_project: Path) -> None:
    paths = BenchPaths.at(bench_project)
    edits = len(list(paths.edits.glob("*.json")))
    paths.labels.unlink()
    validated = CliRunner().invoke(app, ["bench", "validate", "--no-audit", "--project", str(bench_project)])
    assert validated.exit_code == 2
    assert validated.output.endswith(
        f"error: labels/labels.json: no labels for the {edits} edit(s) in bench/edits: {REBUILD}\n"
    )
