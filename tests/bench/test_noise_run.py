"""bench run --noise: records measured first, repeats in the pairs, A/A checks, and the knob's refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.bench.data.results import read_results
from ratchet.bench.report.metrics import noise_stats
from ratchet.bench.run.noisy import noise_settings
from ratchet.config.gate import load_gate_config
from ratchet.core.errors import InputError
from ratchet.data import packaged_config
from tests.bench.fixtures_mini import run_packaged

_run = run_packaged


def test_a_noisy_run_measures_records_and_gates_with_them(mini: Path) -> None:
    out = mini / "bench" / "results" / "noisy"
    _run(mini, "noise", out, noise=0.5, bless_repeats=8)
    _run(mini, "nano_only", out, noise=0.5, bless_repeats=8)
    results = read_results(out)
    aa, nano = results.runs["noise"], results.runs["nano_only"]
    assert aa.sim_noise == 0.5 and aa.bless_repeats == 8 and set(aa.flips) == set(aa.noise)
    assert all(repeats == 8 for _, repeats in aa.flips.values()) and any(differed for differed, _ in aa.flips.values())
    assert nano.mode == "record"  # with records its own judges decide the repeats: no re-judging of cascade's replays
    assert aa.models["agent"] == "sim/agent-1+noise0.5"
    stats = noise_stats(aa)
    assert stats is not None and stats.aa_checks == sum(len(g.outcomes) for g in aa.noise.values())
    assert stats.aa_false_block is not None and stats.replays_per_pair is not None and stats.replays_per_pair >= 1.0
    decided = [d for g in aa.noise.values() for d in g.decisions]
    assert len(decided) == stats.aa_checks and set(decided) <= {"PASS", "WARN", "BLOCK"}


def test_the_same_noisy_run_twice_writes_the_same_bytes(mini: Path) -> None:
    first, second = mini / "bench" / "results" / "a", mini / "bench" / "results" / "b"
    for out in (first, second):
        _run(mini, "noise", out, noise=0.5, bless_repeats=6, limit=3)
    assert (first / "results.json").read_bytes() == (second / "results.json").read_bytes()


def test_a_quiet_run_has_no_noise_fields(mini: Path) -> None:
    out = mini / "bench" / "results" / "quiet"
    _run(mini, "cascade", out)
    run = read_results(out).runs["cascade"]
    assert run.sim_noise == 0 and run.bless_repeats == 0 and noise_stats(run) is None
    assert b"sim_noise" not in (out / "results.json").read_bytes()


def test_the_knob_is_the_simulators() -> None:
    config = load_gate_config(packaged_config("cascade"))
    assert noise_settings(config, noise=None, bless_repeats=None, simulated=True).sim_noise == 0.0
    assert noise_settings(config, noise=0.2, bless_repeats=None, simulated=True).bless_repeats == 30
    assert (
        noise_settings(
            load_gate_config(packaged_config("noise")), noise=None, bless_repeats=None, simulated=True
        ).sim_noise
        == 0.3
    )
    with pytest.raises(InputError, match="simulator's knob"):
        noise_settings(config, noise=0.2, bless_repeats=None, simulated=False)
    with pytest.raises(InputError, match="--bless-repeats"):
        noise_settings(config, noise=0.2, bless_repeats=1, simulated=True)
    assert noise_settings(config, noise=None, bless_repeats=5, simulated=False).bless_repeats == 5


def test_a_run_is_resumed_only_at_the_noise_it_started_with(mini: Path) -> None:
    out = mini / "bench" / "results" / "resume"
    _run(mini, "noise", out, noise=0.5, bless_repeats=4, limit=2)
    with pytest.raises(InputError, match="resume it with the same --noise"):
        _run(mini, "noise", out, noise=0.2, bless_repeats=4)
    assert _run(mini, "noise", out, noise=0.5, bless_repeats=4, limit=2).skipped == 2
