"""The bench and the behavioural diff: each edit's judges get its `skill_diff`, and the report measures the classifier.

On the mini dataset with a copy of the free-form corpus: the report's section shows
ratchet.diff.measure's tables of the outcomes the run recorded, says that no model is involved
(instead of the SIMULATED banner), and renders byte for byte from results.json and from the
summary alone. A bench run's judges read the diff (their prompts grow, their decisions do not).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ratchet import SIMULATED_BANNER
from ratchet.bench.build.benchdata import BenchData
from ratchet.bench.data.results import REPORT_FILE, RESULTS_FILE, DiffClassifierRun, read_results
from ratchet.bench.data.summary import read_summary, summary_text
from ratchet.bench.report.diffs import CORPUS_DIR, bench_diffs
from ratchet.bench.report.report import write_report
from ratchet.bench.report.sections import MODEL_FREE
from ratchet.bench.run import run as bench_run
from ratchet.diff.measure import bench_table, corpus_table
from ratchet.diff.models import DiffKind, EditDiff
from tests.bench.fixtures_mini import run_packaged

SOURCE = Path(__file__).resolve().parents[2]
HEADING = "## Behavioural diff: the classifier's agreement with labels (no model)"
CORPUS = ("05-pdf-ocr-threshold", "07-debugging-reflow", "22-main-branch-rule-weakened")


def with_corpus(root: Path) -> Path:
    """Three edits of the free-form corpus under the project root, where the bench reads it."""
    folder = root / CORPUS_DIR
    folder.mkdir(parents=True)
    for name in CORPUS:
        shutil.copy(SOURCE / CORPUS_DIR / f"{name}.yaml", folder)
    return root


def section(report: str) -> str:
    start = report.index(HEADING)
    return report[start : report.index("\n## ", start + 1)]


def test_the_report_measures_the_classifier_on_the_labeled_edits_and_the_corpus(mini: Path) -> None:
    out = with_corpus(mini) / "out"
    run_packaged(mini, "cascade", out)
    measured = read_results(out).diff_classifier
    assert measured is not None and measured.corpus_dir == CORPUS_DIR
    assert [o.id for o in measured.corpus] == list(CORPUS)
    by_id = {o.id: o for o in measured.corpus}
    assert by_id["05-pdf-ocr-threshold"].found == [DiffKind.CONSTANT_CHANGED]
    assert by_id["07-debugging-reflow"].found == []
    groups = {o.group for o in measured.bench}
    assert groups == {"N0", "R1", "R3", "R4", "D1"} and len(measured.bench) == 6
    assert all(DiffKind.ACTION_ADDED in o.found for o in measured.bench if o.group == "R4")

    text = write_report(out).read_text(encoding="utf-8")
    mine = section(text)
    assert f"> {MODEL_FREE}" in mine and SIMULATED_BANNER not in mine
    assert "_Computed by `ratchet.diff.measure.bench_table` and `ratchet.diff.measure.corpus_table`" in mine
    assert bench_table(measured.bench).rstrip("\n") in mine
    assert corpus_table(measured.corpus).rstrip("\n") in mine
    assert "N0 false-alarm rate: " in mine
    assert "- 22-main-branch-rule-weakened: expected rule_weakened; found instruction_added, rule_removed" in mine
    # Every other section keeps its banner: the header's, and one per section.
    assert text.count(f"> **{SIMULATED_BANNER}**") == text.count("\n## ")


def test_the_section_re_renders_byte_for_byte_from_the_results_and_from_the_summary_alone(mini: Path) -> None:
    out = with_corpus(mini) / "out"
    run_packaged(mini, "cascade", out)
    first = write_report(out).read_bytes()
    assert write_report(out).read_bytes() == first
    summary = read_summary(out)
    assert summary.diff_classifier == read_results(out).diff_classifier
    assert summary_text(summary) == (out / "summary.json").read_text(encoding="utf-8")
    (out / RESULTS_FILE).unlink()
    assert write_report(out).read_bytes() == first
    assert (out / REPORT_FILE).read_bytes() == first


def test_without_the_corpus_it_says_so(mini: Path) -> None:
    out = mini / "out"
    run_packaged(mini, "cascade", out)
    mine = section(write_report(out).read_text(encoding="utf-8"))
    assert "**The free-form corpus**: not measured (no `bench/diff-corpus` under the project root)." in mine
    assert "| R4 | action_added | 1 | 1 | 1.00 |" in mine


def test_results_written_before_the_measurement_say_not_measured(mini: Path) -> None:
    out = mini / "out"
    run_packaged(mini, "cascade", out)
    results = read_results(out)
    results.diff_classifier = None
    from ratchet.bench.data.results import write_results

    write_results(out, results)
    mine = section(write_report(out).read_text(encoding="utf-8"))
    assert "Not measured: these results were written before bench runs recorded it" in mine


def test_the_bench_judges_read_the_diff_and_decide_as_without_it(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with_diff = mini / "with"
    run_packaged(mini, "cascade", with_diff)

    def no_diffs(data: BenchData) -> tuple[dict[str, EditDiff], DiffClassifierRun]:
        return {}, bench_diffs(data)[1]

    monkeypatch.setattr(bench_run, "bench_diffs", no_diffs)
    without = mini / "without"
    run_packaged(mini, "cascade", without)
    a, b = read_results(with_diff).runs["cascade"], read_results(without).runs["cascade"]
    assert {i: e.verdict.decision for i, e in a.edits.items()} == {i: e.verdict.decision for i, e in b.edits.items()}
    grew = 0
    for edit_id, edit in a.edits.items():
        found = any(o.found for o in read_results(with_diff).diff_classifier.bench if o.id == edit_id)  # type: ignore[union-attr]
        for pa, pb in zip(edit.verdict.pairs, b.edits[edit_id].verdict.pairs, strict=True):
            assert [o.verdict for o in pa.opinions] == [o.verdict for o in pb.opinions]
            for oa, ob in zip(pa.opinions, pb.opinions, strict=True):
                assert (
                    oa.tokens_in > ob.tokens_in
                    if found and pa.golden_skill == edit.skill
                    else oa.tokens_in == ob.tokens_in
                )
                grew += oa.tokens_in > ob.tokens_in
    assert grew > 0
