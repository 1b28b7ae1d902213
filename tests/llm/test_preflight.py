"""Gateway.preflight: every tier a check will use exists, has its key and answers, before any call.

And a connection failure is named as one, never as a provider's "InternalServerError (500)".
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ratchet.config.project import Price, Project, RatchetConfig, TierConfig
from ratchet.config.retry import RetryPolicy
from ratchet.core.chat import ChatRequest
from ratchet.core.errors import ConfigError, InfraError, ModelCallError
from ratchet.llm.live import LiteLLMModel
from ratchet.llm.preflight import Listing
from ratchet.llm.retry import UpstreamError
from ratchet.store.db import Store, open_store
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gateways import sim_gateway
from tests.llm.live_fixtures import KEY_ENV, MODEL, SENTINEL, live_project

FAST = RetryPolicy(max_attempts=2, base_delay_s=0.001, max_delay_s=0.002)
HELLO = ChatRequest.model_validate({"messages": [{"role": "user", "content": "hello"}]})


def closed_port() -> int:
    """A local port nobody listens on: connecting to it is refused at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as s:
        yield s


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path / "home")
    yield s
    s.close()


def _live(tmp_path: Path, tiers: dict[str, TierConfig]) -> Project:
    config = RatchetConfig(upstream="live", tiers=tiers, prices={MODEL: Price(input=1e-6, output=2e-6)})
    return Project(root=tmp_path, config=config, home=tmp_path / "home")


def test_reachable_tiers_with_keys_pass_without_a_model_call(
    tmp_path: Path, server: FakeOpenAI, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with sim_gateway(live_project(tmp_path, server), store, run_id="pf") as gw:
        gw.preflight(["agent", "nano", "super"])
    assert server.requests == []
    assert store.ledger() == []


def test_a_missing_key_names_the_tier_and_the_variable(
    tmp_path: Path, server: FakeOpenAI, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with sim_gateway(live_project(tmp_path, server), store, run_id="pf") as gw, pytest.raises(InfraError) as info:
        gw.preflight(["agent", "nano"])
    assert info.value.exit_code == 3
    assert info.value.one_line().startswith(f"tier agent: {KEY_ENV} is not set (the key for {MODEL})")
    assert server.requests == []


def test_an_unreachable_base_is_found_once_and_fast(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    tiers = {name: TierConfig(model=MODEL, api_base=base) for name in ("agent", "nano", "super", "ultra")}
    started = time.perf_counter()
    with sim_gateway(_live(tmp_path, tiers), store, run_id="pf") as gw, pytest.raises(InfraError) as info:
        gw.preflight(["agent", "nano", "super", "ultra"])
    assert time.perf_counter() - started < 2
    assert info.value.one_line().startswith(f"tier agent: cannot reach {base} (connection refused)")


def test_any_http_status_counts_as_reachable(tmp_path: Path, store: Store) -> None:
    # A server that answers 404 to /models is up: preflight asks whether it answers, not what.
    with FakeOpenAI() as server:
        base = f"http://127.0.0.1:{server.port}/nothing-here"
        tiers = {"agent": TierConfig(model=MODEL, api_base=base)}
        with sim_gateway(_live(tmp_path, tiers), store, run_id="pf") as gw:
            gw.preflight(["agent"])


def test_each_distinct_base_is_probed_once(tmp_path: Path, store: Store, server: FakeOpenAI) -> None:
    refused = f"http://127.0.0.1:{closed_port()}/v1"
    tiers = {
        "agent": TierConfig(model=MODEL, api_base=server.base_url),
        "nano": TierConfig(model=MODEL, api_base=server.base_url),
        "super": TierConfig(model=MODEL, api_base=refused),
    }
    with sim_gateway(_live(tmp_path, tiers), store, run_id="pf") as gw:
        probed: list[str] = []
        original = gw._probe_base

        def counting(base: str, key: str | None) -> Listing:
            probed.append(base)
            return original(base, key)

        gw._probe_base = counting  # type: ignore[method-assign]
        with pytest.raises(InfraError, match=r"^tier super: cannot reach"):
            gw.preflight(["agent", "nano", "super", "nano"])
    assert probed == [server.base_url, refused]


def test_an_unknown_tier_is_a_config_error_naming_who_named_it(tmp_path: Path, store: Store) -> None:
    project = Project(root=tmp_path, config=RatchetConfig(upstream="sim"), home=tmp_path / "home")
    with sim_gateway(project, store, run_id="pf") as gw, pytest.raises(ConfigError) as info:
        gw.preflight(["agent", "mega"], named_by="configs/bogus.yaml")
    assert info.value.exit_code == 2
    line = info.value.one_line()
    assert line.startswith("configs/bogus.yaml: unknown model tier 'mega'"), line
    assert "ratchet.yaml" in line


def test_the_simulator_checks_only_that_tiers_exist(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NEBIUS_TOKEN_FACTORY_KEY", raising=False)
    project = Project(root=tmp_path, config=RatchetConfig(upstream="sim"), home=tmp_path / "home")
    with sim_gateway(project, store, run_id="pf") as gw:
        gw.preflight(["agent", "nano", "super", "ultra"])  # default tiers: Nebius, no key, never probed


def test_a_refused_connection_is_named_as_such(tmp_path: Path, store: Store) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    model = LiteLLMModel(TierConfig(model=MODEL, api_base=base), timeout_s=5)
    with pytest.raises(UpstreamError) as info:
        model.complete(HELLO)
    model.close()
    message = str(info.value)
    assert message.startswith(f"connection refused to {base}"), message
    assert "InternalServerError" not in message and "500" not in message
    assert info.value.status is None and info.value.retryable


def test_the_gateway_reports_a_refused_connection_not_a_500(tmp_path: Path, store: Store) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    tiers = {"agent": TierConfig(model=MODEL, api_base=base)}
    with (
        sim_gateway(_live(tmp_path, tiers), store, run_id="pf", retry=FAST) as gw,
        pytest.raises(ModelCallError) as info,
    ):
        gw.model("agent", "replay").complete(HELLO)
    assert info.value.one_line() == (f"agent model {MODEL}: gave up after 2 attempts: connection refused to {base}")
