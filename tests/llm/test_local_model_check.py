"""`ratchet check` on the live path against a real local model server (llama.cpp + Gemma 3 270M).

Needs RATCHET_LOCAL_MODEL_URL (scripts/local_model_server.sh --check sets it); skipped otherwise.
Gemma 270M is a base model: it proves plumbing (text tool protocol, judges in JSON mode, ledger,
prices, cache), not judgment, so nothing here asserts what the verdict is, only that there is one,
that every call was priced and ledgered, every opinion parsed or recorded as an error, and that a
second identical run makes no model call at all.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ratchet.bless.record import bless, record_tasks
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import load_project
from ratchet.gate.check import check_edit
from ratchet.store.db import open_store
from tests.helpers.gitrepo import commit, git, make_repo

URL = os.environ.get("RATCHET_LOCAL_MODEL_URL")
pytestmark = pytest.mark.skipif(not URL, reason="no local model server (scripts/local_model_server.sh --check)")
MODEL = "openai/gemma-3-270m"
PRICE_IN, PRICE_OUT = 1e-7, 4e-7

SKILL = """---
name: clock-reader
description: Tell the current date and time in UTC. Use when someone asks what time or date it is now.
---
# Clock reader

## Steps

1. Read the clock: `clock_now()` as `$now`.

## Output

- `time`: `$now.now`
"""

CONFIG = f"""schema_version: 1
upstream: live
max_agent_turns: 3
timeout_s: 600
paths: {{skills: skills, tasks: tasks.yaml, goldens: goldens, world: world, workspaces: workspaces}}
tiers:
  agent: {{model: {MODEL}, api_base: "{URL}", tool_protocol: text, max_tokens: 64}}
  nano: {{model: {MODEL}, api_base: "{URL}", max_tokens: 96}}
  super: {{model: {MODEL}, api_base: "{URL}", max_tokens: 96}}
  ultra: {{model: {MODEL}, api_base: "{URL}", max_tokens: 96}}
prices:
  {MODEL}: {{input: {PRICE_IN}, output: {PRICE_OUT}}}
"""

TASKS = """schema_version: 1
tasks:
  - id: time-01
    skill: clock-reader
    prompt: What time is it now in UTC?
"""


def test_live_check_against_a_real_model_then_fully_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    home = tmp_path / "home"
    repo = make_repo(
        tmp_path,
        {
            "ratchet.yaml": CONFIG,
            "tasks.yaml": TASKS,
            "skills/clock-reader/SKILL.md": SKILL,
            "world/clock.yaml": "clock: {}\n",
            "workspaces/.keep": "",
        },
    )
    project = load_project(repo, home=home)
    recorded = record_tasks(project)
    assert recorded.errors == [], recorded.errors
    # A 270M model often answers without calling clock_now: its golden is thin, and bless would refuse it.
    # This test is about the live path's plumbing (calls, prices, cache), so it accepts the golden as thin;
    # the check below then names it (at least WARN), which nothing here asserts against.
    bless(project, accept_thin=True)
    commit(
        repo, {"goldens/clock-reader/time-01.json": (repo / "goldens/clock-reader/time-01.json").read_text()}, "bless"
    )
    base = git(repo, "rev-parse", "HEAD")
    # Narrow the description until the skill no longer fires (an R6 edit): Level 0 then sees a routing
    # change whatever the model writes, so the judges are certain to run.
    narrowed = SKILL.replace(
        "Tell the current date and time in UTC. Use when someone asks what time or date it is now.",
        "Recite the haiku of the day for the poetry club newsletter.",
    )
    commit(repo, {"skills/clock-reader/SKILL.md": narrowed}, "narrow the description")

    config = resolve_gate_config("cascade").model_copy(deep=True)
    for step in config.tiers:
        step.max_output_tokens = 96
    for step in config.tiers[:-1]:  # escalate whatever Nano and Super say: every live tier answers once
        step.escalate_on = ["same", "pass", "regression", "unsure"]

    first = check_edit(repo, base=base, home=home, config=config)
    print(f"live verdict: {first.decision}: {first.summary}")  # shown with -s; figures for the issue note
    for pair in first.pairs:
        print(
            f"  {pair.task_id}: {pair.outcome} by {pair.decided_by}; opinions: "
            f"{[(o.tier, o.verdict, o.confidence, o.error) for o in pair.opinions]}"
        )
    assert first.decision in ("PASS", "WARN", "BLOCK") and not first.simulated
    assert [p.task_id for p in first.pairs] == ["time-01"]
    opinions = first.pairs[0].opinions
    assert [o.tier for o in opinions if not o.swapped] == ["nano", "super", "ultra"], "every tier must be asked"
    assert {o.tier for o in opinions if o.swapped} <= {"super", "ultra"}  # the swapped-order asks (swap_check)
    for pair in first.pairs:
        for opinion in pair.opinions:  # parsed, or recorded as an error: never silently dropped
            assert (opinion.verdict is not None) != (opinion.error is not None)

    store = open_store(home)
    rows = [r for r in store.ledger() if r.run_id.startswith("check-")]
    assert rows and all(r.model == MODEL for r in rows)
    for row in rows:
        assert row.tokens_in > 0 and row.latency_ms > 0
        assert row.cost_usd == pytest.approx(row.tokens_in * PRICE_IN + row.tokens_out * PRICE_OUT)
    spent = store.total_spend()
    store.close()

    # `--cache none` refuses any new model call: the second identical run must be served whole.
    second = check_edit(repo, base=base, home=home, config=config, cache_mode="none")
    assert second.decision == first.decision and second.cost_usd == 0.0
    assert [p.outcome for p in second.pairs] == [p.outcome for p in first.pairs]
    store = open_store(home)
    assert store.total_spend() == pytest.approx(spent)
    store.close()
