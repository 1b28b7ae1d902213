"""The live path end to end against a real model server on loopback (llama.cpp + Gemma 3 270M).

Needs RATCHET_LOCAL_MODEL_URL (scripts/local_model_server.sh --check sets it); skipped otherwise.
A base model of 270M parameters: this proves plumbing (HTTP, pricing, ledger, cache, JSON mode),
not judgment, so the assertions are about the gateway, never about the answer's quality.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ratchet.config.project import Price, Project, RatchetConfig, TierConfig
from ratchet.core.chat import ChatRequest
from ratchet.store.db import open_store
from tests.helpers.gateways import sim_gateway

URL = os.environ.get("RATCHET_LOCAL_MODEL_URL")
pytestmark = pytest.mark.skipif(not URL, reason="no local model server (scripts/local_model_server.sh --check)")
MODEL = "openai/gemma-3-270m"
TIMEOUT_S = 600  # timeout_s as docs/local-models.md sets it for a model on a small CPU


def _project(tmp_path: Path) -> Project:
    tier = TierConfig(model=MODEL, api_base=URL, max_tokens=64)
    config = RatchetConfig(
        upstream="live", tiers={"agent": tier, "nano": tier}, prices={MODEL: Price(input=0.0, output=0.0)}
    )
    return Project(root=tmp_path, config=config, home=tmp_path / "home")


def test_real_model_priced_ledgered_then_cached(tmp_path: Path) -> None:
    project = _project(tmp_path)
    store = open_store(project.home)
    with sim_gateway(project, store, run_id="local", timeout_s=TIMEOUT_S) as gw:
        model = gw.model("nano", "judge-nano")
        request = ChatRequest.model_validate(
            {
                "messages": [{"role": "user", "content": "Reply with a JSON object with key verdict."}],
                "response_format": {
                    "type": "json_object",
                    "schema": {
                        "type": "object",
                        "properties": {"verdict": {"type": "string", "enum": ["same", "regression"]}},
                        "required": ["verdict"],
                    },
                },
                "max_tokens": 64,
                "seed": 7,
            }
        )
        first = model.complete(request)
        assert json.loads(first.message.content or "")["verdict"] in ("same", "regression")
        assert first.usage.tokens_in > 0 and first.usage.tokens_out > 0
        assert first.usage.usd == 0.0 and not first.cache_hit and first.latency_ms > 0
        again = model.complete(request)
        assert again.cache_hit and again.message == first.message
    rows = store.ledger("local")
    # A cache hit is counted, not ledgered (docs/ledger.md; --ledger-hits writes it as a $0 row).
    assert [(r.cache_hit, r.status, r.model) for r in rows] == [(False, "ok", MODEL)]
    assert store.calls("local") == 2 and store.cache_hits("local") == 1
    assert rows[0].tokens_in == first.usage.tokens_in and rows[0].latency_ms > 0
    store.close()
