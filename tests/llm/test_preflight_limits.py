"""Preflight stays one line and a bounded wait whatever the upstream or the environment does: a server that
trickles its answer, a resolver that hangs, proxy settings httpx cannot use or a proxy that is down.

Every server here is a real one on 127.0.0.1 (tests/helpers/trickle.py for the trickling one).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ratchet.config.project import Price, RatchetConfig, TierConfig
from ratchet.core.errors import InfraError
from ratchet.llm.preflight import preflight_config, probe_base
from tests.helpers.live_tiers import closed_port
from tests.helpers.trickle import Trickle

ROOT = Path(__file__).resolve().parents[2]
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def _config(base: str) -> RatchetConfig:
    tiers = {"agent": TierConfig(model="openai/fake-model", api_base=base)}
    return RatchetConfig(upstream="live", tiers=tiers, prices={"openai/fake-model": Price(input=1e-6, output=2e-6)})


def test_a_trickling_answer_is_cut_at_the_deadline() -> None:
    # httpx's timeout bounds each read, not the request: before the deadline this waited all 6 s.
    with Trickle() as server:
        started = time.perf_counter()
        listing = probe_base(server.base_url, timeout_s=0.3)
        waited = time.perf_counter() - started
    assert listing.problem == "no answer within 0.3 s"
    assert waited < 2, waited


def test_a_hanging_resolver_is_cut_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def hanging(*args: Any, **kwargs: Any) -> Any:
        release.wait(10)
        raise socket.gaierror(socket.EAI_AGAIN, "temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", hanging)
    started = time.perf_counter()
    try:
        listing = probe_base("http://models.example.invalid/v1", timeout_s=0.3)
    finally:
        release.set()
    assert listing.problem == "no answer within 0.3 s"
    assert time.perf_counter() - started < 2


def test_a_probe_still_running_does_not_keep_the_process_alive() -> None:
    with Trickle(lasts=20) as server:
        code = (
            "from ratchet.llm.preflight import probe_base; "
            f"print(probe_base({server.base_url!r}, timeout_s=0.3).problem)"
        )
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30)
        waited = time.perf_counter() - started
    assert (done.returncode, done.stdout, done.stderr) == (0, "no answer within 0.3 s\n", "")
    assert waited < 10, waited  # the interpreter's start and imports, not the server's 20 s


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("ALL_PROXY", "socks5://127.0.0.1:1080", "a SOCKS proxy needs the socksio package: pip install 'httpx[socks]'"),
        ("HTTPS_PROXY", "ftp://user:secret@x:1", "not an http, https or socks5 proxy URL"),
    ],
    ids=["socks without socksio", "unknown scheme"],
)
def test_proxy_settings_httpx_cannot_use_are_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, why: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(InfraError) as info:
        preflight_config(_config(f"http://127.0.0.1:{closed_port()}/v1"), ["agent"])
    assert info.value.exit_code == 3
    assert info.value.one_line() == (f"tier agent: the proxy in {name} cannot be used ({why}); fix or unset {name}")
    assert "secret" not in info.value.one_line()


def test_a_refused_connection_through_a_proxy_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = f"http://127.0.0.1:{closed_port()}"
    base = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv("HTTP_PROXY", proxy)
    with pytest.raises(InfraError) as info:
        preflight_config(_config(base), ["agent"])
    assert info.value.one_line() == (
        f"tier agent: cannot reach {base} through the proxy in HTTP_PROXY (connection refused); start the "
        "server, or fix HTTP_PROXY (or add the host to NO_PROXY)"
    )


def test_a_host_in_no_proxy_is_reached_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with pytest.raises(InfraError) as info:
        preflight_config(_config(base), ["agent"])
    assert info.value.one_line() == (
        f"tier agent: cannot reach {base} (connection refused); start the server or fix the tier's api_base in "
        "ratchet.yaml"
    )
