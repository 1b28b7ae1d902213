"""Cache hits: counted per run always, ledgered row by row only when asked (`--ledger-hits`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.project import Project
from ratchet.core.chat import ChatRequest, ChatResponse, Message, Usage
from ratchet.llm.fake import ScriptedModel
from ratchet.llm.gateway import HIT_BATCH
from ratchet.setup.demo import EDITS, apply_edit
from ratchet.store.db import STORE_FILE, Store
from tests.helpers.gateways import sim_gateway
from tests.helpers.gitrepo import git

runner = CliRunner()
EDIT = {edit.branch: edit for edit in EDITS}


def req(text: str) -> ChatRequest:
    return ChatRequest.model_validate({"messages": [{"role": "user", "content": text}]})


def answer(text: str) -> ChatResponse:
    return ChatResponse(message=Message(role="assistant", content=text), usage=Usage(tokens_in=100, tokens_out=10))


def test_a_cache_hit_adds_no_ledger_row_but_is_counted(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano", [answer("one")])
    gw = sim_gateway(sim_project, store, run_id="r", upstream_models={"nano": fake})
    model = gw.model("nano", "judge-nano")
    first = model.complete(req("q"))
    store.fold_spool()  # the miss's row (simulated, no budget: spooled) is in the file before it is counted
    with sqlite3.connect(store.path) as db:
        before = db.execute("SELECT COUNT(*) FROM model_calls").fetchone()[0]
    for _ in range(3):
        assert model.complete(req("q")).cache_hit
    assert store.cache_hits("r") == 0  # tallied in memory: written with the gateway's next batch
    assert gw.flush_hits() == 3
    assert [(row.cache_hit, row.status) for row in store.ledger("r")] == [(False, "ok")]
    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT COUNT(*) FROM model_calls").fetchone()[0] == before
    assert (store.calls("r"), store.calls("r", purpose="judge-nano"), store.cache_hits("r")) == (4, 4, 3)
    assert store.run_spend("r") == pytest.approx(first.usage.usd)
    assert store.observed_tokens("nano") == (100, 10)  # hits never skew the observed means


def test_ledger_hits_writes_a_row_per_hit(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano", [answer("one")])
    gw = sim_gateway(sim_project, store, run_id="r", upstream_models={"nano": fake}, ledger_hits=True)
    model = gw.model("nano", "judge-nano")
    model.complete(req("q"))
    model.complete(req("q"))
    rows = store.ledger("r")
    assert [(row.cache_hit, row.cost_usd, row.tokens_in) for row in rows] == [
        (False, rows[0].cost_usd, 100),
        (True, 0.0, 100),
    ]
    assert (store.calls("r"), store.cache_hits("r")) == (2, 1)


def test_a_cache_hit_is_never_a_synced_commit(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano", [answer("one")])
    model = sim_gateway(sim_project, store, run_id="r", upstream_models={"nano": fake}, ledger_hits=True).model(
        "nano", "judge-nano"
    )
    model.complete(req("q"))
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    model.complete(req("q"))
    store._db.set_trace_callback(None)
    assert any(s.startswith("INSERT INTO model_calls") for s in seen)
    assert "PRAGMA synchronous=FULL" not in seen  # a $0 row needs no fsync of its own


@pytest.fixture
def edited(demo_repo: Path) -> tuple[Path, str]:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT["edit/changed-argument"])
    return demo_repo, base


def _check(repo: Path, base: str, *extra: str) -> None:
    result = runner.invoke(
        app, ["check", "--repo", str(repo), "--base", base, "--head", "edit/changed-argument", "--json", *extra]
    )
    assert result.exit_code in (0, 1), result.stderr


def _rows(repo: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(repo / ".ratchet" / STORE_FILE) as db:
        return db.execute("SELECT run_id, cache_hit FROM model_calls ORDER BY id").fetchall()


def test_a_repeated_check_adds_no_rows_unless_asked(edited: tuple[Path, str]) -> None:
    repo, base = edited
    _check(repo, base)
    first = _rows(repo)
    assert first and not any(hit for _, hit in first)
    _check(repo, base)  # every answer is a cache hit now
    assert _rows(repo) == first
    _check(repo, base, "--ledger-hits")
    added = _rows(repo)[len(first) :]
    assert added and all(hit for _, hit in added) and len({run for run, _ in added}) == 1


def test_hits_are_written_in_batches_of_hit_batch(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano", [answer("one")])
    gw = sim_gateway(sim_project, store, run_id="r", upstream_models={"nano": fake})
    model = gw.model("nano", "judge-nano")
    model.complete(req("q"))
    for _ in range(HIT_BATCH - 1):
        model.complete(req("q"))
    assert store.cache_hits("r") == 0
    model.complete(req("q"))  # the batch's last hit writes it
    assert store.cache_hits("r") == HIT_BATCH
    model.complete(req("q"))
    gw.close()  # a closed gateway has written every hit
    assert (store.calls("r"), store.cache_hits("r")) == (HIT_BATCH + 2, HIT_BATCH + 1)
    assert store.observed_tokens("nano") == (100, 10)
