"""The gateway takes its retry policy, timeout and cache mode from the project unless told otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.project import load_project
from ratchet.config.retry import RetryPolicy
from ratchet.core.chat import ChatRequest
from ratchet.core.errors import ConfigError, ModelCallError
from ratchet.llm.cache import CacheMode
from ratchet.llm.fake import ScriptedModel
from ratchet.llm.retry import UpstreamError
from ratchet.store.db import open_store
from tests.helpers.gateways import sim_gateway

FAST_YAML = "upstream: sim\nretry: {max_attempts: 3, base_delay_s: 0, max_delay_s: 0}\ntimeout_s: 7\n"


def req(text: str) -> ChatRequest:
    return ChatRequest.model_validate({"messages": [{"role": "user", "content": text}]})


def flaky(failures: int) -> ScriptedModel:
    return ScriptedModel("sim/nano", [UpstreamError("HTTP 503", retryable=True, status=503)] * failures + ["ok"])


def test_retry_policy_and_timeout_come_from_ratchet_yaml(tmp_path: Path) -> None:
    (tmp_path / "ratchet.yaml").write_text(FAST_YAML, encoding="utf-8")
    project = load_project(tmp_path, home=tmp_path / "home")
    store = open_store(project.home)
    try:
        gw = sim_gateway(project, store, run_id="r", upstream_models={"nano": flaky(2)})
        assert (gw.retry, gw.timeout_s) == (RetryPolicy(max_attempts=3, base_delay_s=0, max_delay_s=0), 7.0)
        assert gw.model("nano", "x").complete(req("third time lucky")).message.content == "ok"
        assert [row.attempts for row in store.ledger("r")] == [3]

        gave_up = sim_gateway(project, store, run_id="g", upstream_models={"nano": flaky(3)})
        with pytest.raises(ModelCallError, match="gave up after 3 attempts: HTTP 503"):
            gave_up.model("nano", "x").complete(req("never"))
    finally:
        store.close()


def test_an_explicit_policy_and_timeout_win(tmp_path: Path) -> None:
    (tmp_path / "ratchet.yaml").write_text(FAST_YAML, encoding="utf-8")
    project = load_project(tmp_path, home=tmp_path / "home")
    store = open_store(project.home)
    try:
        once = RetryPolicy(max_attempts=1)
        gw = sim_gateway(project, store, run_id="r", retry=once, timeout_s=0.5, upstream_models={"nano": flaky(1)})
        assert (gw.retry, gw.timeout_s) == (once, 0.5)
        with pytest.raises(ModelCallError, match="gave up after 1 attempts"):
            gw.model("nano", "x").complete(req("one try"))
    finally:
        store.close()


def test_cache_mode_is_converted_once(tmp_path: Path) -> None:
    project = load_project(tmp_path, home=tmp_path / "home")
    store = open_store(project.home)
    try:
        assert sim_gateway(project, store, run_id="a", cache_mode="new").cache_mode is CacheMode.NEW
        assert sim_gateway(project, store, run_id="b", cache_mode=CacheMode.ALL).cache_mode is CacheMode.ALL
        with pytest.raises(ConfigError) as caught:
            sim_gateway(project, store, run_id="c", cache_mode="sometimes")
        assert caught.value.one_line() == "cache mode must be one of once, new, none, all, not 'sometimes'"
    finally:
        store.close()
