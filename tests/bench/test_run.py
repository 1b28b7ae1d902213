"""bench run on the mini dataset: replay reuse, refusals, paired sampling, resume, determinism."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ratchet.bench.data.results import read_results, read_timings
from ratchet.bench.run.run import (
    RunOptions,
    load_bench_data,
    rejudge_ledger_replays,
    run_config,
    sample_ids,
)
from ratchet.bench.run.sampling import stratified_sample
from ratchet.cli import _wrap_commands
from ratchet.cli.bench_run import register
from ratchet.config.gate import load_gate_config
from ratchet.core.errors import ConfigError, InputError
from ratchet.data import packaged_config
from tests.bench.fixtures_mini import run_packaged

_run = run_packaged


def test_cascade_then_rejudge_makes_no_replay_call(mini: Path) -> None:
    out = mini / "bench" / "results" / "smoke-sim"
    _run(mini, "cascade", out)
    _run(mini, "nano_only", out)
    _run(mini, "level0_off", out)
    results = read_results(out)
    cascade, nano = results.runs["cascade"], results.runs["nano_only"]
    assert set(cascade.edits) == set(nano.edits) and len(nano.edits) == 6
    assert nano.mode == "rejudge" and nano.replays_from == "cascade"
    decisions = {k: e.verdict.decision for k, e in cascade.edits.items()}
    assert decisions["fx-expense-converter.R4.1"] == "BLOCK"
    assert decisions["github-triage.N0.1"] == "PASS"
    assert decisions["fx-expense-converter.D1.1"] == "PASS"
    run_ids = read_timings(out).run_ids
    home = mini / "var" / "bench"
    assert rejudge_ledger_replays(home, run_ids, "cascade") > 0
    assert rejudge_ledger_replays(home, run_ids, "nano_only") == 0
    assert rejudge_ledger_replays(home, run_ids, "level0_off") == 0


def test_rejudge_without_cascade_is_refused(mini: Path) -> None:
    with pytest.raises(
        InputError, match=re.escape("has no cascade run: run `ratchet bench run --config cascade --out")
    ):
        _run(mini, "super_only", mini / "out")


def test_a_config_with_a_tier_the_bench_cannot_price_is_refused_naming_it(mini: Path, tmp_path: Path) -> None:
    # injector is configured in ratchet.yaml (the check could call it) but has no per-call budget to price it by;
    # tiers ratchet.yaml does not configure are refused as the check refuses them (test_judge_tiers_at_load.py).
    strict = tmp_path / "strict.yaml"
    strict.write_text("schema_version: 1\ntiers:\n  - tier: injector\n    threshold: 0.5\n", encoding="utf-8")
    opts = RunOptions(config_path=strict, out=mini / "out", root=mini, command="test strict")
    with pytest.raises(ConfigError) as info:
        run_config(opts)
    assert info.value.one_line() == (
        f"{strict}: unknown judge tier 'injector': the bench runs nano, super, ultra "
        "(ratchet.yaml tiers with a per-call budget); name one of them"
    )
    assert not (mini / "out").exists()


def test_simulator_refuses_a_dated_directory(mini: Path) -> None:
    with pytest.raises(InputError, match="simulated results never go into a dated directory"):
        _run(mini, "cascade", mini / "bench" / "results" / "2026-10-16")


def test_same_seed_same_subset_in_every_config(mini: Path) -> None:
    data = load_bench_data(mini)
    subsets = {
        name: sample_ids(data, load_gate_config(packaged_config(name)), 3, (), 7)
        for name in ("cascade", "nano_only", "drift_off")
    }
    assert len({tuple(s) for s in subsets.values()}) == 1
    assert len(subsets["cascade"]) == 3


def test_stratified_sample_is_nested_and_spread() -> None:
    items = [(f"e{i}", "R1" if i < 6 else "N0") for i in range(9)]
    small, large = stratified_sample(items, 3, 0), stratified_sample(items, 6, 0)
    assert set(small) <= set(large)
    assert {dict(items)[i] for i in small} == {"R1", "N0"}
    assert stratified_sample(items, 6, 0) == stratified_sample(items, 6, 0)
    assert stratified_sample(items, None, 0) == sorted(dict(items))


def test_resume_skips_done_edits_and_results_are_deterministic(mini: Path) -> None:
    a, b = mini / "a", mini / "b"
    _run(mini, "cascade", a, limit=4)
    first = (a / "results.json").read_bytes()
    summary = _run(mini, "cascade", a, limit=4)
    assert summary.ran == 0 and summary.skipped == 4
    assert (a / "results.json").read_bytes() == first
    _run(mini, "cascade", b, limit=4, concurrency=3)
    assert (b / "results.json").read_bytes() == first


def test_noise_run_replays_unchanged_skills(mini: Path) -> None:
    out = mini / "noise"
    _run(mini, "noise", out, limit=3)
    run = read_results(out).runs["noise"]
    assert run.mode == "noise" and len(run.noise) == 3
    assert all(len(g.outcomes) == 3 for g in run.noise.values())


def test_cli_run_prints_the_summary(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = typer.Typer()
    register(app)
    _wrap_commands(app)
    monkeypatch.chdir(mini)
    result = CliRunner().invoke(app, ["run", "--config", "cascade", "--out", "o", "--limit", "2"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "cascade (record): 2 run, 0 already in o/results.json; 2 in the sample"
    assert (
        read_results(mini / "o").runs["cascade"].command
        == "ratchet bench run --config cascade --out o --limit 2 --seed 0"
    )
    refused = CliRunner().invoke(app, ["run", "--config", "ultra_only", "--out", "p"])
    assert refused.exit_code == 2
    assert "ultra_only re-judges the cascade run's replays, but p has no cascade run" in refused.output
