"""The cache's batch is synced while an upstream call is in flight, not on the call's own time afterwards."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ratchet.config.project import Price, Project, RatchetConfig, TierConfig
from ratchet.core.chat import ChatRequest, ChatResponse, Message
from ratchet.llm import cache as cache_module
from ratchet.llm.fake import ScriptedModel
from ratchet.llm.gateway import Gateway
from ratchet.store.db import Store
from tests.helpers.gateways import sim_gateway

MODEL = "openai/fake-model"


def req(text: str) -> ChatRequest:
    return ChatRequest.model_validate({"messages": [{"role": "user", "content": text}]})


class WatchingUpstream(ScriptedModel):
    """Answers after the cache has synced something during this call (or after a short wait that fails the
    test): records the cache's synced count as the call saw it."""

    def __init__(self, gateway_cache: list[cache_module.ResponseCache]) -> None:
        super().__init__(MODEL)
        self.caches = gateway_cache
        self.seen: list[int] = []
        self.before = 0

    def complete(self, request: ChatRequest) -> ChatResponse:
        cache = self.caches[0]
        before = self.before  # read by the test before the call: the sync may finish before this runs
        done = threading.Event()
        for _ in range(200):  # up to 2 s: a sync running beside this call finishes well inside that
            if cache.synced > before:
                break
            done.wait(0.01)
        self.seen.append(cache.synced - before)
        return ChatResponse(message=Message(role="assistant", content="ok"), model=MODEL)


def test_a_due_batch_is_synced_during_a_block_and_durable_when_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = cache_module.ResponseCache(tmp_path / "llm")
    live = ChatResponse(message=Message(role="assistant", content="ok"), model=MODEL)
    cache.put("a" * 64, live)  # recorded, not yet due
    with cache.syncing(every_entry=False):
        pass
    assert (cache.pending, cache.synced) == (1, 0)
    monkeypatch.setattr(cache_module, "FLUSH_AFTER_S", 0.0)  # the batch is now old: due
    seen: list[int] = []
    with cache.syncing(every_entry=False):
        for _ in range(200):  # up to 2 s: a sync running beside the block finishes well inside that
            if cache.synced:
                break
            threading.Event().wait(0.01)
        seen.append(cache.synced)
    assert seen == [1]  # synced while the block ran
    assert (cache.pending, cache.synced) == (0, 1)


def test_a_simulated_call_has_no_batch_to_sync(sim_project: Project, store: Store) -> None:
    gw = sim_gateway(sim_project, store, run_id="r", upstream_models={"nano": ScriptedModel("sim/nano")})
    gw.model("nano", "judge-nano").complete(req("q1"))
    gw.model("nano", "judge-nano").complete(req("q2"))
    assert (gw.cache.pending, gw.cache.synced) == (0, 0)  # free to ask again: a power cut may take them


def test_a_live_call_syncs_every_entry_recorded_before_it(tmp_path: Path, store: Store) -> None:
    tier = TierConfig(model=MODEL, api_base="http://127.0.0.1:9/v1")
    config = RatchetConfig(upstream="live", tiers={"nano": tier}, prices={MODEL: Price(input=1e-6, output=2e-6)})
    project = Project(root=tmp_path, config=config, home=tmp_path / "home")
    caches: list[cache_module.ResponseCache] = []
    upstream = WatchingUpstream(caches)
    gw = Gateway(project, store, run_id="r", upstream_models={"nano": ScriptedModel(MODEL)})
    caches.append(gw.cache)
    model = gw.model("nano", "judge-nano")
    model.complete(req("q1"))
    assert (gw.cache.pending, gw.cache.synced) == (1, 0)
    gw._upstreams["nano"] = upstream
    for text in ("q2", "q3"):
        upstream.before = gw.cache.synced
        model.complete(req(text))
    # A live call waits far longer for its model than an fsync takes: each syncs the entries before it.
    assert upstream.seen == [1, 1]
    assert (gw.cache.pending, gw.cache.synced) == (1, 2)
    gw.close()
    assert (gw.cache.pending, gw.cache.synced) == (0, 3)
