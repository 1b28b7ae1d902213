"""summary.json: the compact, byte-stable file the report re-renders from (docs/bench-summary.md).

The committed smoke is the oracle: a summary cut from its results.json renders its report.md
byte for byte, through `ratchet bench report` on a folder that holds the summary alone.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.bench.data.results import SUMMARY_FILE, read_results, read_timings
from ratchet.bench.data.summary import compact_results, read_summary, summary_text, write_summary
from ratchet.bench.report.report import render_report
from ratchet.cli import app
from ratchet.core.errors import InputError

SMOKE = Path(__file__).resolve().parents[2] / "bench" / "results" / "smoke-sim"


@pytest.fixture(scope="module")
def smoke_summary_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder holding only the summary: derived from the committed results.json while
    that is committed, the committed summary.json once it replaces it (and they must agree)."""
    out = tmp_path_factory.mktemp("summary-only")
    if (SMOKE / "results.json").exists():
        write_summary(out, read_results(SMOKE))
        if (SMOKE / SUMMARY_FILE).exists():
            assert (out / SUMMARY_FILE).read_bytes() == (SMOKE / SUMMARY_FILE).read_bytes()
    else:
        shutil.copy(SMOKE / SUMMARY_FILE, out / SUMMARY_FILE)
    return out


def test_the_report_renders_from_the_summary_byte_for_byte(smoke_summary_dir: Path) -> None:
    text, _ = render_report(read_summary(smoke_summary_dir), read_timings(SMOKE))
    assert text == (SMOKE / "report.md").read_text(encoding="utf-8")


def test_bench_report_on_a_folder_with_the_summary_alone_writes_the_committed_report(
    smoke_summary_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    shutil.copytree(smoke_summary_dir, out)
    result = CliRunner().invoke(app, ["bench", "report", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "report.md").read_bytes() == (SMOKE / "report.md").read_bytes()
    assert sorted(p.name for p in out.iterdir()) == ["cost_vs_recall.svg", "report.md", SUMMARY_FILE]


def test_the_summary_is_small_and_byte_stable(smoke_summary_dir: Path) -> None:
    text = (smoke_summary_dir / SUMMARY_FILE).read_text(encoding="utf-8")
    # Nine configurations since issue 30 (state_diff_off over every edit, the stripped R7 run): 3.4 MB; the full
    # results.json of this smoke is 16 MB.
    assert len(text.encode()) < 3_600_000
    reread = read_summary(smoke_summary_dir)
    assert summary_text(compact_results(reread)) == text  # a summary compacts to itself, to the byte
    assert summary_text(reread) == text


def test_a_torn_summary_is_one_input_error_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / SUMMARY_FILE).write_text('{"kind": "summary", "schema_version": 1}\n{"kind": "edit"', encoding="utf-8")
    with pytest.raises(InputError, match=r"summary.json:2:1: not valid JSON"):
        read_summary(tmp_path)
