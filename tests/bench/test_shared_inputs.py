"""Runs that share their inputs (`ratchet bench smoke`: run.SharedInputs) write what runs that read their own
write: the dataset and its diffs read once, each run's results handed to the next, and the recording run's
replays read once for all the re-judging runs."""

from __future__ import annotations

from pathlib import Path

import pytest

import ratchet.bench.run.scorer as scorer_module
from ratchet.bench.data.results import RESULTS_FILE, read_replays
from ratchet.bench.run.run import share_inputs
from ratchet.core.errors import InputError
from tests.bench.fixtures_mini import run_packaged

CONFIGS = ("cascade", "nano_only", "level0_off")


def test_shared_inputs_write_the_results_separate_runs_write(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone, shared_out = mini / "alone", mini / "shared"
    for name in CONFIGS:
        run_packaged(mini, name, alone)
    reads: list[Path] = []

    def counted(path: Path) -> object:
        reads.append(path)
        return read_replays(path)

    monkeypatch.setattr(scorer_module, "read_replays", counted)
    shared = share_inputs(mini, home=None, out=shared_out)
    for name in CONFIGS:
        run_packaged(mini, name, shared_out, shared=shared)
        assert shared.results is not None and name in shared.results.runs
    assert (shared_out / RESULTS_FILE).read_bytes() == (alone / RESULTS_FILE).read_bytes()
    replays = sorted((alone / "replays").rglob("*.json"))
    assert [p.read_bytes() for p in replays] == [(shared_out / p.relative_to(alone)).read_bytes() for p in replays]
    # Two re-judging runs over six edits: each recorded replays file read once, by the first of them.
    assert len(reads) == len(set(reads)) == 6 == len(shared.replays)


def test_a_run_that_fails_leaves_the_next_to_read_the_file(mini: Path) -> None:
    out = mini / "out"
    shared = share_inputs(mini, home=None, out=out)
    run_packaged(mini, "cascade", out, shared=shared)
    recorded = next((out / "replays" / "cascade").glob("*.json"))
    kept = recorded.read_bytes()
    recorded.unlink()
    with pytest.raises(InputError, match="have no cascade replays"):
        run_packaged(mini, "nano_only", out, shared=shared)
    assert shared.results is None
    recorded.write_bytes(kept)
    run_packaged(mini, "nano_only", out, shared=shared)
    assert shared.results is not None and set(shared.results.runs) == {"cascade", "nano_only"}
