"""The run's warm MCP server, seen from the driver: what a harness is told to start, and a parent that dies.

The process-wide server (ratchet/harness/warm_mcp.py) is swapped for a test's own where a test kills
it, so the other tests of the process keep theirs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ratchet.harness import warm_mcp
from ratchet.harness.driver import WorldSource
from ratchet.mcp.options import ServeOptions
from ratchet.world.faults import FaultPlan

CLOCK = "2026-10-14T16:00:00Z"
FAULTS = {"task_id": "fx-01", "faults": [{"tool": "fx_get_rate", "kind": "transient", "call": 1}]}


@pytest.fixture
def own_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(warm_mcp, "_server", None)
    yield
    if warm_mcp._server is not None:
        warm_mcp._server.stop()


def test_a_harness_is_told_to_start_the_pump_with_a_ticket_for_the_replays_options(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    registered: list[ServeOptions] = []
    real = warm_mcp.WarmServer.register

    def register(server: warm_mcp.WarmServer, options: ServeOptions) -> str:
        registered.append(options)
        return real(server, options)

    monkeypatch.setattr(warm_mcp.WarmServer, "register", register)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    source = WorldSource(
        world_dir=Path("world"),  # relative: the header carries absolute paths, the server runs elsewhere
        workspaces_dir=tmp_path / "workspaces",
        workspace="fx-berlin-offsite",
        frozen_time=CLOCK,
        overlays=(tmp_path / "d1.yaml",),
        faults=FaultPlan.model_validate(FAULTS),
    )
    argv = source.mcp_argv(scratch / "mcp-calls.jsonl", scratch / "mcp-volatile.jsonl")
    python = Path(argv[0])
    assert python == warm_mcp.pump_python() and python.is_relative_to(Path(sys.base_prefix).resolve())
    assert argv[1:5] == ["-I", "-S", str(scratch / warm_mcp.PUMP_NAME), str(warm_mcp.warm_socket())]
    assert (scratch / warm_mcp.PUMP_NAME).read_bytes() == Path(warm_mcp.pump.__file__).read_bytes()
    # the harness (and a sandboxed agent) sees a one-time ticket, never the options: those went to the parent
    assert len(argv) == 6 and str(tmp_path) not in argv[5] and len(argv[5]) >= 40
    assert source.mcp_argv(scratch / "mcp-calls.jsonl", scratch / "mcp-volatile.jsonl")[5] != argv[5]
    assert registered[0] == ServeOptions(
        world=Path.cwd() / "world",
        workspaces=tmp_path / "workspaces",
        workspace="fx-berlin-offsite",
        clock=CLOCK,
        overlays=(tmp_path / "d1.yaml",),
        record=scratch / "mcp-calls.jsonl",
        volatile=scratch / "mcp-volatile.jsonl",
        faults=FaultPlan.model_validate(FAULTS),
    )
    assert sorted(p.name for p in warm_mcp.warm_socket().parent.iterdir()) == ["mcp.sock"]  # all a sandbox binds


def _kill_parent() -> None:
    server = warm_mcp._server
    assert server is not None and server.proc is not None
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait()


def _pump_exit(sock: Path) -> int:
    argv = [str(warm_mcp.pump_python()), "-I", "-S", warm_mcp.pump.__file__, str(sock), "{}"]
    return subprocess.run(argv, capture_output=True, timeout=60, check=False).returncode


def test_a_killed_parent_is_restarted_once_then_left_to_the_not_ready_guard(own_server: None) -> None:
    sock = warm_mcp.warm_socket()
    first = warm_mcp.warm_server().proc
    assert first is not None and warm_mcp.ping(sock)
    _kill_parent()
    assert warm_mcp.warm_socket() == sock and warm_mcp.ping(sock)  # up and answering again, same socket
    assert warm_mcp.warm_server().proc is not first and warm_mcp.warm_server().starts == 2
    _kill_parent()
    assert warm_mcp.warm_socket() == sock and not warm_mcp.warm_server().alive()
    assert _pump_exit(sock) == 3  # the harness starts without Ratchet's tools: the replay is not-ready


def test_stop_ends_the_parent_and_removes_its_folder(own_server: None) -> None:
    server = warm_mcp.warm_server()
    server.stop()
    assert server.proc is not None and server.proc.poll() is not None
    assert not server.folder.exists()


def test_where_no_warm_server_can_run_a_replay_starts_the_module_entry(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(warm_mcp, "available", lambda: False)
    plan = FaultPlan.model_validate(FAULTS)
    source = WorldSource(world_dir=tmp_path, workspaces_dir=None, workspace=None, frozen_time=CLOCK, faults=plan)
    argv = source.mcp_argv(tmp_path / "r", tmp_path / "v")
    assert argv[:3] == [sys.executable, "-m", "ratchet.mcp"]
    assert argv[argv.index("--faults") + 1] == plan.model_dump_json()
