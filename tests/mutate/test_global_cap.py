"""The spend cap over all runs (RATCHET_BENCH_USD_CAP) stopping a `ratchet mutate` run that has no --budget: the
report says which cap stopped it, the unchecked mutants name it, and the run exits 2 as with --budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.store.db import open_store
from tests.helpers.prose_follower import ProseFollower
from tests.mutate.prose_project import LIMIT, blessed_repo
from tests.mutate.test_freeform_live import live_yaml


def test_the_global_cap_stops_the_run_names_itself_and_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with ProseFollower() as server:
        repo = blessed_repo(tmp_path, monkeypatch, config=live_yaml(server), record=["record"])
        spent = open_store(repo / ".ratchet").total_spend()
        # Room for no replay: the first check's calls are refused by the cap, not by a --budget.
        monkeypatch.setenv("RATCHET_BENCH_USD_CAP", str(spent + 0.004))
        args = ["mutate", "--repo", str(repo), "--limit", str(LIMIT), "--config", "level0_only", "--json", "--no-save"]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    report = json.loads(result.stdout)
    outcomes = report["outcomes"]
    assert {o["status"] for o in outcomes} == {"unchecked"}
    assert report["stopped"] == (
        f"the spend cap (RATCHET_BENCH_USD_CAP) stopped it after 0 of {LIMIT} mutant(s) were checked; {LIMIT} left "
        "unchecked: raise RATCHET_BENCH_USD_CAP to check them"
    )
    assert "RATCHET_BENCH_USD_CAP" in outcomes[0]["reason"]
    for left in outcomes[1:]:
        assert left["reason"] == "not checked: the spend cap (RATCHET_BENCH_USD_CAP) was reached before its check"
    assert "budget" not in " ".join(o["reason"] for o in outcomes[1:])
