"""report.md and the figure from a mini results directory: every section, the banner, byte-stable re-renders."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet import SIMULATED_BANNER
from ratchet.bench.data.results import FIGURE_FILE
from ratchet.bench.report.compare import compare_dirs
from ratchet.bench.report.report import write_report
from ratchet.bench.run.run import RunOptions, run_config
from ratchet.data import packaged_config
from tests.bench.fixtures_mini import build_mini_dataset

SECTIONS = (
    "## Produced by",
    "## Table 2: detection, false blocks and cost per configuration (E1, E2, E4)",
    "## Judging cost and total cost",
    "## Figure 1: cost per verdict vs detection recall (E4)",
    "## E3: drift on vs off",
    "## E5: Level 0 on vs off",
    "## E6: noise floor",
    "## Noise records, repeats and A/A checks",
    "## R7: fault handling removed, with and without faults in the goldens",
    "## Routing regressions (R5/R6) with and without trigger queries",
    "## Pair level, false warns and latency",
    "## Judge agreement",
    "## Judges: how far each tier can be trusted",
    "## Mutation score of the shipped goldens vs detection recall, per skill",
    "## Worked examples",
    "## Taxonomy",
)


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    mp = pytest.MonkeyPatch()
    mp.setenv("RATCHET_UPSTREAM", "sim")
    try:
        root = build_mini_dataset(tmp_path_factory.mktemp("report") / "root")
        out = root / "bench" / "results" / "smoke-sim"
        for name in ("noise", "cascade", "nano_only", "drift_off", "level0_off"):
            run_config(RunOptions(config_path=packaged_config(name), out=out, root=root, command=f"cmd {name}"))
    finally:
        mp.undo()
    return out


def test_report_has_every_section_and_the_banner_on_each(results_dir: Path) -> None:
    text = write_report(results_dir).read_text(encoding="utf-8")
    for heading in SECTIONS:
        assert heading in text
    assert text.count(f"> **{SIMULATED_BANNER}**") == len(SECTIONS) + 1
    assert "_Computed by `ratchet.bench.report.metrics.judge_kappa`._" in text
    assert "| Date | 2026-10-14 (from the data) |" in text
    assert "cmd cascade" in text
    assert "[cascade](" in text and "configs/cascade.yaml)" in text
    assert "Prompt-cache share" in text
    assert "```diff" in text


def test_rerender_is_byte_identical_and_svg_has_no_date(results_dir: Path) -> None:
    first = write_report(results_dir).read_bytes()
    svg = (results_dir / FIGURE_FILE).read_bytes()
    assert write_report(results_dir).read_bytes() == first
    assert (results_dir / FIGURE_FILE).read_bytes() == svg
    assert b"<dc:date>" not in svg and SIMULATED_BANNER.encode() in svg


def test_compare_same_dir_shows_no_flag(results_dir: Path) -> None:
    text = compare_dirs(results_dir, results_dir)
    assert text.startswith(SIMULATED_BANNER)
    assert "[cascade]" in text and "detection recall overall" in text
    assert not any(line.endswith("!") for line in text.splitlines())
