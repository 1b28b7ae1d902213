"""Preflight asks a live base which models it serves: a tier whose model it does not list fails the run
with one line (exit 3) before any model call; an answer that cannot tell (401, 404, no list) never does.

Every server here is a real one on 127.0.0.1 (tests/helpers/fake_openai.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ratchet.config.project import Price, Project, RatchetConfig, TierConfig
from ratchet.core.errors import InfraError
from ratchet.llm.preflight import preflight_config, sent_names
from ratchet.store.db import Store, open_store
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gateways import sim_gateway
from tests.llm.live_fixtures import KEY_ENV, SENTINEL


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path / "home")
    yield s
    s.close()


def _config(tiers: dict[str, TierConfig]) -> RatchetConfig:
    prices = {t.model: Price(input=1e-6, output=2e-6) for t in tiers.values()}
    return RatchetConfig(upstream="live", tiers=tiers, prices=prices)


def _project(tmp_path: Path, tiers: dict[str, TierConfig]) -> Project:
    return Project(root=tmp_path, config=_config(tiers), home=tmp_path / "home")


def test_a_model_the_server_does_not_list_is_one_line_naming_tier_model_and_what_it_lists(
    tmp_path: Path, store: Store
) -> None:
    listed = ("qwen2.5-coder-0.5b", "qwen2.5-coder-7b", "gemma-3-270m", "llama3.1:latest", "phi-4")
    with FakeOpenAI(listed=listed) as server:
        tiers = {
            "agent": TierConfig(model="openai/fake-model", api_base=server.base_url),
            "nano": TierConfig(model="openai/qwen2.5-coder-1.5b", api_base=server.base_url),
        }
        with sim_gateway(_project(tmp_path, tiers), store, run_id="pf") as gw, pytest.raises(InfraError) as info:
            gw.preflight(["nano", "agent"])
        assert (server.requests, server.probes) == ([], 1)
    assert info.value.exit_code == 3
    assert info.value.one_line() == (
        f"tier nano: {server.base_url} does not serve 'qwen2.5-coder-1.5b' (it lists qwen2.5-coder-0.5b, "
        "qwen2.5-coder-7b, gemma-3-270m and 2 more); set the tier's model in ratchet.yaml to a listed one, "
        "or serve that model"
    )


def test_the_model_is_matched_as_litellm_sends_it(tmp_path: Path, store: Store) -> None:
    # openai/ and hosted_vllm/ are stripped, an org path is kept, and Ollama's ":latest" is the untagged name.
    listed = ("fake-model", "org/served", "llama3.1:latest")
    with FakeOpenAI(listed=listed) as server:
        tiers = {
            name: TierConfig(model=model, api_base=server.base_url)
            for name, model in [
                ("agent", "openai/fake-model"),
                ("nano", "hosted_vllm/fake-model"),
                ("super", "nebius/org/served"),
                ("ultra", "openai/llama3.1"),
            ]
        }
        with sim_gateway(_project(tmp_path, tiers), store, run_id="pf") as gw:
            gw.preflight(["agent", "nano", "super", "ultra"])
        assert server.probes == 1  # one base, asked once for the four tiers
    assert sent_names("openai/llama3.1") == ("llama3.1", "openai/llama3.1", "llama3.1:latest")


def test_the_tiers_key_is_sent_so_a_hosted_list_can_be_read(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with FakeOpenAI(listed=("other-model",), models_key=SENTINEL) as server:
        tiers = {"agent": TierConfig(model="openai/fake-model", api_base=server.base_url, api_key_env=KEY_ENV)}
        with sim_gateway(_project(tmp_path, tiers), store, run_id="pf") as gw, pytest.raises(InfraError) as info:
            gw.preflight(["agent"])
        assert server.probe_auth == [f"Bearer {SENTINEL}"]
    assert "does not serve 'fake-model' (it lists other-model)" in info.value.one_line()
    assert SENTINEL not in info.value.one_line()


@pytest.mark.parametrize("path", ["/v1", "/nothing-here"], ids=["401 without a key", "404"])
def test_an_answer_that_cannot_tell_never_fails(tmp_path: Path, store: Store, path: str) -> None:
    with FakeOpenAI(listed=("other-model",), models_key="sk-not-ours") as server:
        base = f"http://127.0.0.1:{server.port}{path}"
        tiers = {"agent": TierConfig(model="openai/fake-model", api_base=base)}
        with sim_gateway(_project(tmp_path, tiers), store, run_id="pf") as gw:
            gw.preflight(["agent"])
        assert server.probe_auth in ([""], [])  # no key configured: none sent


def test_a_run_asks_each_base_once_however_often_it_preflights(tmp_path: Path, store: Store) -> None:
    with FakeOpenAI() as one, FakeOpenAI() as two:
        tiers = {
            "agent": TierConfig(model="openai/fake-model", api_base=one.base_url),
            "nano": TierConfig(model="openai/fake-model", api_base=two.base_url),
        }
        with sim_gateway(_project(tmp_path, tiers), store, run_id="pf") as gw:
            gw.preflight(["agent", "nano"])
            gw.preflight(["agent"])
            gw.preflight(["nano", "agent"])
        assert (one.probes, two.probes) == (1, 1)


def test_preflight_config_checks_what_the_gateway_checks(tmp_path: Path) -> None:
    with FakeOpenAI(listed=("other-model",)) as server:
        config = _config({"agent": TierConfig(model="openai/fake-model", api_base=server.base_url)})
        with pytest.raises(InfraError, match=r"^tier agent: .* does not serve 'fake-model' \(it lists other-model\)"):
            preflight_config(config, ["agent"])
        preflight_config(config.model_copy(update={"upstream": "sim"}), ["agent"])  # the simulator: names only
        assert server.probes == 1


def test_a_listed_id_under_models_slash_is_the_model(tmp_path: Path, store: Store) -> None:
    # Gemini's OpenAI-compatible endpoint lists `models/gemini-2.0-flash` for the `gemini-2.0-flash` it serves.
    with FakeOpenAI(listed=("models/gemini-2.0-flash", "models/gemini-1.5-pro")) as server:
        tiers = {
            "agent": TierConfig(model="openai/gemini-2.0-flash", api_base=server.base_url),
            "nano": TierConfig(model="openai/gemini-2.5-flash", api_base=server.base_url),
        }
        with sim_gateway(_project(tmp_path, tiers), store, run_id="pf") as gw:
            gw.preflight(["agent"])
            with pytest.raises(InfraError, match=r"does not serve 'gemini-2.5-flash' \(it lists models/gemini-2.0"):
                gw.preflight(["nano"])
