"""A replay that fails while it is being set up leaves no command record open: the collector (a thread
accepting on a unix socket) is closed however the replay ends, its session opened or not."""

from __future__ import annotations

import os
import threading
from contextlib import suppress
from pathlib import Path

import pytest

from ratchet.core.chat import ChatModel
from ratchet.core.errors import InfraError
from ratchet.harness import driver
from ratchet.harness.driver import run_through_harness
from ratchet.llm.sessions import Session, SessionSpec
from tests.helpers.command_replay import MODELS, TASK, command_settings, command_world, shell_model


class _RefusingEndpoint:
    """An endpoint whose sessions cannot open (as when the run's endpoint has gone away)."""

    def open(self, spec: SessionSpec, model: ChatModel) -> Session:
        raise InfraError("the harness session endpoint is not started (call start() first)")


def _collectors() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "ratchet-commands"]


def _sockets() -> int:
    """How many sockets this process has open (listing /proc/self/fd opens one more descriptor, gone by now)."""
    links = []
    for fd in os.listdir("/proc/self/fd"):
        with suppress(FileNotFoundError):
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
    return sum(link.startswith("socket:") for link in links)


def test_a_session_that_cannot_open_leaves_no_collector_thread_or_socket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver, "shared_endpoint", _RefusingEndpoint)
    source, settings = command_world(tmp_path), command_settings(tmp_path, sandbox="off")
    before, sockets = _collectors(), _sockets()
    with pytest.raises(InfraError, match="endpoint is not started"):
        run_through_harness(
            TASK,
            {},
            source,
            shell_model("true"),
            settings=settings,
            home=tmp_path / "home",
            seed=1,
            models=dict(MODELS),
        )
    assert [thread for thread in _collectors() if thread not in before] == []
    assert _sockets() == sockets, "the collector's listening socket is closed"
