"""A sentinel API key reaches the server and nothing else: no file, no printed line, no error."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ratchet.config.retry import RetryPolicy
from ratchet.core.chat import ChatRequest
from ratchet.core.errors import ModelCallError
from ratchet.store.db import open_store
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gateways import sim_gateway
from tests.llm.live_fixtures import KEY_ENV, SENTINEL, live_project

FAST = RetryPolicy(max_attempts=2, base_delay_s=0.001, max_delay_s=0.002)


def _files_containing(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


@pytest.mark.parametrize("failure", ["auth", "timeout"])
def test_sentinel_key_never_escapes(
    failure: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    caplog.set_level(logging.DEBUG)
    with FakeOpenAI() as server:
        project = live_project(tmp_path, server)
        store = open_store(project.home)
        gw = sim_gateway(project, store, run_id="k", retry=FAST, timeout_s=0.5)
        model = gw.model("nano", "judge-nano")
        model.complete(ChatRequest(messages=[{"role": "user", "content": "fine"}]))
        server.script(*([401] if failure == "auth" else [("sleep", 3), ("sleep", 3)]))
        with pytest.raises(ModelCallError) as info:
            model.complete(ChatRequest(messages=[{"role": "user", "content": "fails"}]))
        gw.close()
        store.close()
    # The key did reach the server (so the test would see a leak), and the 401 body echoed it.
    assert all(SENTINEL in r["authorization"] for r in server.requests)
    message = info.value.one_line()
    assert ("401" in message) if failure == "auth" else ("Timeout" in message)
    assert SENTINEL not in message and SENTINEL[:12] not in message
    chain: BaseException | None = info.value
    while chain is not None:
        assert SENTINEL not in str(chain) and SENTINEL not in repr(chain.args)
        chain = chain.__cause__ or chain.__context__
    out, err = capfd.readouterr()
    assert SENTINEL not in out + err
    assert all(SENTINEL not in r.getMessage() for r in caplog.records)
    assert _files_containing(tmp_path, SENTINEL.encode()) == []
    assert _files_containing(tmp_path, SENTINEL[:12].encode()) == []
    errors = [row.error or "" for row in open_store(project.home).ledger() if row.status == "error"]
    assert errors and all(SENTINEL not in e for e in errors)
