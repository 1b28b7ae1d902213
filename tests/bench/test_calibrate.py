"""`ratchet bench calibrate`: thresholds per tier on a seeded split of labeled pairs (Trust or Escalate)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.bench.data.results import (
    SUMMARY_FILE,
    BenchConfigRun,
    BenchResults,
    ScoredEdit,
    read_results,
    write_results,
)
from ratchet.bench.data.summary import write_summary
from ratchet.bench.report.calibrate import (
    CALIBRATION_FILE,
    CALIBRATION_REPORT,
    SIMULATED_LINE,
    Calibration,
    calibrate_results,
    split_pairs,
)
from ratchet.bench.report.labeled import SINGLE_TIER_RUNS
from ratchet.cli import app
from ratchet.config.gate import JudgeVerdict, load_gate_config
from ratchet.core.errors import InputError
from ratchet.gate.models import Opinion, PairOutcome, Verdict

SMOKE = Path(__file__).resolve().parents[2] / "bench" / "results" / "smoke-sim"
TASKS = ("t-01", "t-02")
# A judge: (pair index, labeled regression) -> (verdict, confidence).
Judge = Callable[[int, bool], tuple[JudgeVerdict, float]]


def _said(right: bool, regression: bool) -> JudgeVerdict:
    return "regression" if right == regression else "pass"


def calibrated(index: int, regression: bool) -> tuple[JudgeVerdict, float]:
    """Right at 0.8-0.95; every third pair wrong, at 0.5."""
    if index % 3 == 2:
        return _said(False, regression), 0.5
    return _said(True, regression), 0.8 + 0.05 * (index % 4)


def miscalibrated(index: int, regression: bool) -> tuple[JudgeVerdict, float]:
    """Its wrong answers carry confidence 0.95, its right ones 0.6."""
    if index % 5 == 0:
        return _said(False, regression), 0.95
    return _said(True, regression), 0.6


def bench_results(judges: dict[str, Judge], *, edits: int = 100) -> BenchResults:
    """Every tier's single-tier run over `edits` edits of two pairs each; 40% of the pairs labeled regression."""
    runs = {}
    for tier, judge in judges.items():
        scored = {}
        for e in range(edits):
            edit_id = f"skill.R1.{e:03d}"
            labels = {task: "regression" if (2 * e + t) % 5 < 2 else "pass" for t, task in enumerate(TASKS)}
            pairs = []
            for t, task in enumerate(TASKS):
                verdict, confidence = judge(2 * e + t, labels[task] == "regression")
                pairs.append(
                    PairOutcome(
                        task_id=task,
                        golden_skill=None,
                        selected_because="routed",
                        outcome=verdict,
                        decided_by=tier,
                        reason="",
                        opinions=[Opinion(tier=tier, prompt_version="", verdict=verdict, confidence=confidence)],
                    )
                )
            verdict_of_edit = Verdict(
                base="", head="", skills_changed=["skill"], decision="PASS", summary="", pairs=pairs
            )
            scored[edit_id] = ScoredEdit(
                edit_id=edit_id,
                type="R1",
                verdict=verdict_of_edit,
                expected_decision="BLOCK",
                skill="skill",
                expected_pairs=labels,
            )
        name = SINGLE_TIER_RUNS[tier]
        runs[name] = BenchConfigRun(
            config=name, command=f"ratchet bench run --config {name}", simulated=True, edits=scored
        )
    return BenchResults(dataset_digest="d" * 64, runs=runs)


def results_dir(tmp_path: Path, judges: dict[str, Judge], name: str = "results") -> Path:
    out = tmp_path / name
    write_results(out, bench_results(judges))
    return out


GOOD = {"nano": calibrated, "super": calibrated, "ultra": calibrated}
SUPER_MISCALIBRATED = {"nano": calibrated, "super": miscalibrated, "ultra": calibrated}


def run_calibrate(out: Path, seed: int = 0, write: Path | None = None) -> Calibration:
    return calibrate_results(out, config="cascade", alpha=0.1, delta=0.1, seed=seed, write=write).calibration


def test_split_is_stratified_seeded_and_disjoint() -> None:
    labels = {f"e{i:03d}/t": i < 30 for i in range(100)}
    split = split_pairs(labels, seed=0)
    parts = (split.train, split.calibration, split.held_out)
    assert [len(p) for p in parts] == [20, 40, 40]
    assert [sum(labels[k] for k in p) for p in parts] == [6, 12, 12]
    assert sorted(k for p in parts for k in p) == sorted(labels)
    assert split_pairs(labels, seed=0) == split
    other = split_pairs(labels, seed=1)
    assert other.calibration != split.calibration and len(other.calibration) == 40


def test_every_tier_of_a_pair_lands_in_the_same_split(tmp_path: Path) -> None:
    calibration = run_calibrate(results_dir(tmp_path, GOOD))
    assert calibration.labeled_pairs == 200
    assert (len(calibration.split.train), len(calibration.split.calibration), len(calibration.split.held_out)) == (
        40,
        80,
        80,
    )
    # Each tier judged every pair once: it has exactly one opinion per calibration and held-out pair.
    assert [(t.calibration_opinions, t.held_out.opinions) for t in calibration.tiers] == [(80, 80)] * 3


def test_calibrated_judges_get_thresholds_and_the_guarantee(tmp_path: Path) -> None:
    calibration = run_calibrate(results_dir(tmp_path, GOOD))
    assert [(t.tier, t.choice.threshold, t.choice.rejected) for t in calibration.tiers] == [
        ("nano", 0.8, True),
        ("super", 0.8, True),
        ("ultra", 0.8, True),
    ]
    nano, ultra = calibration.tiers[0], calibration.tiers[2]
    # Nano escalates every regression in the cascade: only its pass verdicts are accepted.
    assert nano.escalated == ["unsure", "regression"] and nano.choice.accepted < ultra.choice.accepted
    assert (ultra.held_out.agreement, ultra.held_out.meets_target) == (1.0, True)
    assert ultra.held_out.coverage == pytest.approx(ultra.held_out.accepted / 80)
    assert [t.last_tier for t in calibration.tiers] == [False, False, True]
    assert [t.sources for t in calibration.tiers] == [["nano_only"], ["super_only"], ["ultra_only"]]


def test_a_miscalibrated_judge_fails_the_guarantee(tmp_path: Path) -> None:
    out = results_dir(tmp_path, SUPER_MISCALIBRATED)
    calibration = run_calibrate(out)
    judge = calibration.tiers[1]
    assert (judge.tier, judge.choice.rejected, judge.choice.never_accept, judge.choice.threshold) == (
        "super",
        False,
        True,
        1.0,
    )
    assert (judge.held_out.accepted, judge.held_out.coverage) == (0, 0.0)
    report = (out / CALIBRATION_REPORT).read_text(encoding="utf-8")
    assert "| super | super_only | never accept (1.0) | not met | 80 | 0 | 0 | n/a | 0.0% | n/a | n/a |" in report


def test_outputs_are_byte_stable_and_the_seed_changes_the_split(tmp_path: Path) -> None:
    first, second = results_dir(tmp_path, GOOD, "a"), results_dir(tmp_path, GOOD, "b")
    run_calibrate(first, write=tmp_path / "a" / "calibrated.yaml")
    run_calibrate(second, write=tmp_path / "b" / "calibrated.yaml")
    for name in (CALIBRATION_FILE, CALIBRATION_REPORT, "calibrated.yaml"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    before = json.loads((first / CALIBRATION_FILE).read_text(encoding="utf-8"))
    assert before["split"]["seed"] == 0 and before["schema_version"] == 1
    run_calibrate(first, seed=7)
    after = json.loads((first / CALIBRATION_FILE).read_text(encoding="utf-8"))
    assert after["split"]["seed"] == 7
    assert after["split"]["calibration"] != before["split"]["calibration"]
    assert sorted(after["split"]["calibration"] + after["split"]["held_out"] + after["split"]["train"]) == sorted(
        before["split"]["calibration"] + before["split"]["held_out"] + before["split"]["train"]
    )


def test_the_written_config_loads_with_the_thresholds(tmp_path: Path) -> None:
    target = tmp_path / "configs" / "calibrated.yaml"
    calibration = run_calibrate(results_dir(tmp_path, SUPER_MISCALIBRATED), seed=3, write=target)
    config = load_gate_config(target)
    assert config.name == "calibrated"
    assert [(s.tier, s.threshold) for s in config.tiers] == [(t.tier, t.choice.threshold) for t in calibration.tiers]
    assert [(s.threshold, s.escalate_on) for s in config.tiers] == [
        (0.8, ["unsure", "regression"]),
        (1.0, ["same", "pass", "regression", "unsure"]),
        (0.8, ["unsure"]),
    ]
    assert "alpha 0.1, delta 0.1, seed 3" in config.description and "never accept: super" in config.description
    assert (config.level0, config.block_confidence, config.drift.enabled) == (True, 0.7, True)
    assert target.read_text(encoding="utf-8").startswith(
        "# Written by ratchet bench calibrate from gate config 'cascade'"
    )


def test_cli_prints_each_tier_and_what_it_wrote(tmp_path: Path) -> None:
    out = results_dir(tmp_path, SUPER_MISCALIBRATED)
    target = tmp_path / "calibrated.yaml"
    result = CliRunner().invoke(
        app, ["bench", "calibrate", "--results", str(out), "--write", str(target), "--seed", "0"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == SIMULATED_LINE
    assert lines[2] == (
        "super: threshold never accept (1.0), guarantee not met, calibration n 80, "
        "held-out coverage 0.0%, agreement n/a"
    )
    assert lines[1].startswith("nano: threshold 0.80, guarantee met, calibration n 80, held-out coverage ")
    assert lines[4:] == [f"wrote {out / CALIBRATION_FILE}", f"wrote {out / CALIBRATION_REPORT}", f"wrote {target}"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--alpha", "1.5"], "--alpha must be strictly between 0 and 1, got 1.5"),
        (["--delta", "0"], "--delta must be strictly between 0 and 1, got 0.0"),
        (["--config", "nosuch"], "unknown gate config 'nosuch'"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    out = results_dir(tmp_path, GOOD)
    result = CliRunner().invoke(
        app, ["bench", "calibrate", "--results", str(out), "--write", str(tmp_path / "c.yaml"), *args]
    )
    assert result.exit_code == 2
    assert message in result.output and result.output.count("\n") == 1
    assert not (out / CALIBRATION_FILE).exists() and not (tmp_path / "c.yaml").exists()


def test_missing_results_or_opinions_without_confidence_are_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["bench", "calibrate", "--results", str(tmp_path / "none")])
    assert (result.exit_code, result.output.count("\n")) == (2, 1)
    assert "no such results directory" in result.output
    out = results_dir(tmp_path, {"ultra": lambda i, regression: (_said(True, regression), 0.0)})
    with pytest.raises(InputError, match="every judge opinion has confidence 0"):
        run_calibrate(out)
    with pytest.raises(InputError, match="no labeled judge opinions"):
        run_calibrate(results_dir(tmp_path, {}, "empty"))


@pytest.fixture(scope="module")
def smoke_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The committed smoke's summary in a temp folder: cut from its results.json when that is on disk
    (results.json is not committed), else the committed summary.json itself."""
    out = tmp_path_factory.mktemp("smoke-calibrate")
    if (SMOKE / "results.json").exists():
        write_summary(out, read_results(SMOKE))
    else:
        shutil.copy(SMOKE / SUMMARY_FILE, out / SUMMARY_FILE)
    return out


def test_end_to_end_on_the_committed_smoke(smoke_copy: Path, tmp_path: Path) -> None:
    target = tmp_path / "calibrated.yaml"
    calibration = run_calibrate(smoke_copy, write=target)
    report = (smoke_copy / CALIBRATION_REPORT).read_text(encoding="utf-8")
    assert report.splitlines()[0] == SIMULATED_LINE
    assert [t.tier for t in calibration.tiers] == ["nano", "super", "ultra"]
    assert all(t.sources and t.calibration_opinions > 0 for t in calibration.tiers)
    split = calibration.split
    assert len(split.train) + len(split.calibration) + len(split.held_out) == calibration.labeled_pairs
    for tier in calibration.tiers:
        assert tier.choice.rejected != tier.choice.never_accept
        assert f"| {tier.tier} | " in report
    config = load_gate_config(target)
    assert [s.threshold for s in config.tiers] == [t.choice.threshold for t in calibration.tiers]
    first = (smoke_copy / CALIBRATION_FILE).read_bytes()
    run_calibrate(smoke_copy, write=target)
    assert (smoke_copy / CALIBRATION_FILE).read_bytes() == first
