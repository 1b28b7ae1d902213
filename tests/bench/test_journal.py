"""The journal is a bench run's durable record: results.json is written once, at the end, and on demand."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ratchet.bench.data.journal import JOURNAL_DIR, JOURNAL_RUN, journal_item, journal_run, merge_journal
from ratchet.bench.data.results import (
    RESULTS_FILE,
    SUMMARY_FILE,
    TIMINGS_FILE,
    BenchConfigRun,
    BenchResults,
    NoiseGolden,
    Timings,
    read_results,
    read_timings,
    write_results,
)
from ratchet.bench.report.report import write_report
from ratchet.bench.run.schedule import execute
from ratchet.cli import _wrap_commands
from ratchet.cli.bench_run import register
from ratchet.core.pool import WorkPool
from ratchet.store.db import STORE_FILE
from tests.bench.fixtures_mini import run_packaged


def _golden(task_id: str) -> NoiseGolden:
    return NoiseGolden(task_id=task_id, skill=None, outcomes=[])


def test_results_json_is_written_once_at_the_end_however_many_items(tmp_path: Path) -> None:
    run = BenchConfigRun(config="noise", command="c", simulated=True)
    results = BenchResults(runs={"noise": run})
    ids = [f"t{n:02d}" for n in range(30)]  # past the 25 items after which results.json was rewritten
    writes: list[int] = []
    journaled: list[int] = []

    def progress(done: int, _total: int, item: str) -> None:
        if item:
            journaled.append(len(list((tmp_path / JOURNAL_DIR / "noise").glob("t*.json"))))
            assert not writes, "results.json written before the run's end"

    with WorkPool(2, name="test-journal") as pool:
        execute(
            lambda item_id: (_golden(item_id), 1.5),
            run,
            results,
            Timings(),
            ids,
            out=tmp_path,
            pool=pool,
            on_progress=progress,
            total=len(ids),
            write=lambda _out, res: writes.append(len(res.runs["noise"].noise)),
        )
    assert writes == [30]
    assert journaled == list(range(1, 31))  # every finished item journaled as it finished
    assert not (tmp_path / JOURNAL_DIR / "noise").exists()  # cleared once results.json holds it all
    assert read_timings(tmp_path).wall_ms["noise"] == dict.fromkeys(ids, 1.5)


def test_the_journal_alone_rebuilds_a_run_and_its_timings(tmp_path: Path) -> None:
    run = BenchConfigRun(config="noise", command="c", simulated=True, seed=3)
    started = BenchResults(dataset_digest="d" * 64, runs={"noise": run})
    journal_run(tmp_path, started, run)
    journal_item(tmp_path, "noise", _golden("t1"), 12.0)
    journal_item(tmp_path, "noise", _golden("t2"))
    (tmp_path / JOURNAL_DIR / "noise" / "t3.json").write_text('{"kind": "noise", "item": {"task_', encoding="utf-8")
    results, timings = BenchResults(), Timings()
    assert merge_journal(tmp_path, results, timings) == 2  # the torn t3 is redone, never trusted
    assert results.dataset_digest == "d" * 64
    assert results.runs["noise"].seed == 3 and sorted(results.runs["noise"].noise) == ["t1", "t2"]
    assert timings.wall_ms == {"noise": {"t1": 12.0}}
    assert merge_journal(tmp_path, results, timings) == 0  # folding twice changes nothing


def _killed_copy(out: Path, dest: Path, config: str) -> None:
    """What a run killed after journaling every item leaves: results.json as it started, the journal full."""
    shutil.copytree(out, dest)
    results = read_results(out)
    run = results.runs[config]
    journal_run(dest, results, run)
    for edit in run.edits.values():
        journal_item(dest, config, edit, read_timings(out).wall_ms[config][edit.edit_id])
    stale = results.model_copy(deep=True)
    stale.runs[config].edits = {}
    write_results(dest, stale)
    (dest / TIMINGS_FILE).unlink()


def test_report_merges_a_killed_runs_journal_into_results_json(mini: Path) -> None:
    out = mini / "o"
    run_packaged(mini, "cascade", out)
    write_report(out)
    full, report = (out / RESULTS_FILE).read_bytes(), (out / "report.md").read_bytes()
    stale, missing = mini / "stale", mini / "missing"
    _killed_copy(out, stale, "cascade")
    _killed_copy(out, missing, "cascade")
    (missing / RESULTS_FILE).unlink()
    (missing / SUMMARY_FILE).unlink()
    assert (stale / RESULTS_FILE).read_bytes() != full
    for folder in (stale, missing):
        write_report(folder)
        assert (folder / RESULTS_FILE).read_bytes() == full
        assert (folder / "report.md").read_bytes() == report
        assert read_timings(folder).wall_ms == read_timings(out).wall_ms
        assert (folder / JOURNAL_DIR / "cascade" / JOURNAL_RUN).exists()  # only the run clears its journal
    summary_only = mini / "summary-only"
    _killed_copy(out, summary_only, "cascade")
    (summary_only / RESULTS_FILE).unlink()
    write_report(summary_only)  # rendered with the journal, but a summary is not the full file: none is written
    assert not (summary_only / RESULTS_FILE).exists()
    assert (summary_only / "report.md").read_bytes() == report


def test_a_resumed_run_after_a_kill_finishes_byte_identical(mini: Path) -> None:
    out = mini / "o"
    run_packaged(mini, "cascade", out)
    killed = mini / "killed"
    _killed_copy(out, killed, "cascade")
    summary = run_packaged(mini, "cascade", killed)
    assert (summary.ran, summary.skipped) == (0, 6)  # nothing journaled is run again
    assert (killed / RESULTS_FILE).read_bytes() == (out / RESULTS_FILE).read_bytes()
    assert not (killed / JOURNAL_DIR / "cascade").exists()


def _hit_rows(mini: Path, run_ids: list[str]) -> int:
    with sqlite3.connect(mini / "var" / "bench" / STORE_FILE) as db:
        marks = ",".join("?" * len(run_ids))
        return int(
            db.execute(
                f"SELECT COUNT(*) FROM model_calls WHERE cache_hit = 1 AND run_id IN ({marks})", run_ids
            ).fetchone()[0]
        )


def test_bench_run_ledger_hits_writes_a_row_per_cache_hit_only_when_asked(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = typer.Typer()
    register(app)
    _wrap_commands(app)
    monkeypatch.chdir(mini)
    for out, extra in (("first", []), ("counted", []), ("ledgered", ["--ledger-hits"])):
        result = CliRunner().invoke(app, ["run", "--config", "cascade", "--out", out, "--limit", "2", *extra])
        assert result.exit_code == 0, result.output
    run_ids = {out: read_timings(mini / out).run_ids["cascade"] for out in ("counted", "ledgered")}
    assert _hit_rows(mini, run_ids["counted"]) == 0
    assert _hit_rows(mini, run_ids["ledgered"]) > 0
    # The option changes the ledger only: the results are the same bytes.
    assert (mini / "counted" / RESULTS_FILE).read_text().replace("counted", "X") == (
        mini / "ledgered" / RESULTS_FILE
    ).read_text().replace("ledgered", "X")
