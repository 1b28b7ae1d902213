"""`ratchet watch` on the command line: exact first lines and exit codes (0 quiet, 1 moved, 2 input, 3 infra)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.watch.render import SIMULATED_WATCH_BANNER
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.live_tiers import MODEL as LIVE_MODEL
from tests.helpers.live_tiers import closed_port, down_line, set_live_tiers, unlisted_line
from tests.watch.conftest import SIM_NOISE, set_sim_noise

runner = CliRunner()


def _watch(repo: Path, *args: str) -> tuple[int, list[str], str]:
    result = runner.invoke(app, ["watch", "--project", str(repo), *args])
    return result.exit_code, result.stdout.splitlines(), result.stderr


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")


def test_a_quiet_watch_exits_0_with_the_simulated_label_first(watched_repo: Path) -> None:
    code, lines, err = _watch(watched_repo)
    assert code == 0, err
    assert lines[:2] == [
        SIMULATED_WATCH_BANNER,
        f"ratchet watch  7 golden(s) of 3 skill(s) x 4 repeats · agent sim/agent-1+noise{SIM_NOISE:g}",
    ]
    assert "not watched (no noise record): canary-02..03, fx-expense-converter-04..10, github-triage-04..10" in lines
    assert "QUIET  no skill's behaviour moved beyond its noise records (3 skill(s) tested at alpha 0.05)" in lines
    assert err.splitlines()[0] == "Estimate:" and err.rstrip().endswith("(simulated: no money is spent)")


def test_noise_records_of_another_agent_model_are_named_and_not_used(watched_repo: Path) -> None:
    # Records measured at sim_noise 0.3 are no baseline for the simulator at 0.9 (another model id).
    set_sim_noise(watched_repo, 0.9)
    code, lines, err = _watch(watched_repo)
    assert (code, lines) == (2, [])
    assert err == (
        "error: nothing to watch: none of 23 golden(s) has a fresh noise record of this agent model and an "
        "unchanged skill (first canary-01: noise record of another model; measured with "
        f"sim/agent-1+noise{SIM_NOISE:g} (simulated), this run's agent is sim/agent-1+noise0.9 (simulated): "
        "ratchet noise)\n"
    )


def test_nothing_to_watch_is_one_line_and_exit_2(watched_repo: Path) -> None:
    for path in (watched_repo / "goldens").glob("*/*.noise.json"):
        path.unlink()
    code, lines, err = _watch(watched_repo)
    assert (code, lines) == (2, [])
    assert err == (
        "error: nothing to watch: none of 23 golden(s) has a fresh noise record of this agent model and an "
        "unchanged skill (first canary-01: no noise record; measure one: ratchet noise)\n"
    )


def _measured_live(repo: Path, skill: str) -> None:
    """The skill's noise records as if measured on the live tiers' model (set_live_tiers), the others left."""
    for path in (repo / "goldens" / skill).glob("*.noise.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps({**record, "agent": LIVE_MODEL, "simulated": False}), encoding="utf-8")


def test_replays_that_fail_exit_3_after_the_report(watched_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    _measured_live(watched_repo, "github-triage")
    with FakeOpenAI() as server:
        server.script(*([500] * 8))
        set_live_tiers(watched_repo, server.base_url)
        config = watched_repo / "ratchet.yaml"
        config.write_text(config.read_text(encoding="utf-8") + "retry: {max_attempts: 1}\n", encoding="utf-8")
        code, lines, err = _watch(watched_repo, "--per-skill", "2", "--repeats", "1")
    assert code == 3, err
    # Records the simulator measured are no baseline for a live model: named, not watched.
    assert (
        "not watched (noise record of another model: measured with sim/agent-1+noise0.3 (simulated), this run's "
        f"agent is {LIVE_MODEL} (live): ratchet noise): canary-01, fx-expense-converter-01..03"
    ) in lines
    assert lines[-2].startswith("INCOMPLETE  no skill's behaviour moved in the replays that ran, but 2 of 2")
    assert lines[-2].endswith("cannot tell: github-triage (not tested: every replay failed)")
    assert err.splitlines()[-1].startswith("error: 2 watch replay(s) failed, first github-triage-0")
    assert "500" in err.splitlines()[-1] and err.splitlines()[-1].endswith("; fix the cause and watch again")


def test_a_budget_that_stops_replays_exits_2_after_the_report(watched_repo: Path) -> None:
    code, lines, err = _watch(watched_repo, "github-triage", "--budget", "0.01")
    assert code == 2
    assert any(line.startswith("stopped: agent call (watch) refused: its worst case $") for line in lines)
    assert lines[-2].startswith("INCOMPLETE  no skill's behaviour moved in the replays that ran, but ")
    assert err.splitlines()[-1].startswith("error: the budget stopped replays: agent call (watch) refused")


@pytest.mark.parametrize("down", [True, False], ids=["down", "unlisted"])
def test_an_upstream_that_cannot_answer_is_one_line_and_exit_3_before_any_replay(
    watched_repo: Path, monkeypatch: pytest.MonkeyPatch, down: bool
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    if down:
        base = f"http://127.0.0.1:{closed_port()}/v1"
        set_live_tiers(watched_repo, base)
        assert _watch(watched_repo) == (3, [], down_line(base))
        return
    with FakeOpenAI(listed=("other-model",)) as server:
        set_live_tiers(watched_repo, server.base_url)
        assert _watch(watched_repo) == (3, [], unlisted_line(server.base_url))
        assert server.requests == []  # asked what it serves, never for a completion
