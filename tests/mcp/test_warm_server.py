"""`python -m ratchet.mcp.warm`: one pre-imported parent, a forked server per connection, reached through the pump.

Each test drives the real parent through the real pump (ratchet/mcp/pump.py, run as the harness runs
it: the base interpreter, `-I -S`) with the official MCP client over stdio, as Claude Code or Codex
would. What a replay sees must be what a per-replay `python -m ratchet.mcp` gives it.
"""

from __future__ import annotations

import ast
import json
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from ratchet.data import demo_files
from ratchet.goldens.trace import ToolCall
from ratchet.harness.warm_mcp import ping, pump_python
from ratchet.mcp import pump
from ratchet.mcp.options import ServeOptions
from ratchet.mcp.record import read_record
from ratchet.world import load_world
from tests.mcp.test_module_entry_serves_the_replay_world import INITIALIZE, drive, fast, replay_calls, served_digest

CLOCK = "2026-10-14T16:00:00Z"
PUMP = Path(pump.__file__)
RATE = ToolCall(
    index=0, name="fx_get_rate", arguments={"base": "EUR", "quote": "USD", "date": "2026-10-09"}, effect="read"
)


@pytest.fixture(scope="module")
def demo() -> Iterator[Path]:
    with demo_files() as source:
        yield Path(source)


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """One parent for the module, as a run has one: stdin is its lifeline."""
    sock = tmp_path_factory.mktemp("warm") / "mcp.sock"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ratchet.mcp.warm", "--socket", str(sock)],
        stdin=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not ping(sock):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    yield proc, sock
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=10)


def pump_cmd(sock: Path, ticket: str) -> list[str]:
    return [str(pump_python()), "-I", "-S", str(PUMP), str(sock), ticket]


def register(proc: subprocess.Popen[bytes], options: str) -> str:
    """What the driver does (ratchet/harness/warm_mcp.py): hand the options over the parent's stdin, host-only."""
    assert proc.stdin is not None
    ticket = secrets.token_urlsafe(32)
    proc.stdin.write(f"{ticket} {options}\n".encode())
    proc.stdin.flush()
    return ticket


def options(demo: Path, folder: Path, **extra: Any) -> str:
    folder.mkdir()
    return ServeOptions(
        world=demo / "world",
        workspaces=demo / "workspaces",
        clock=CLOCK,
        record=folder / "calls.jsonl",
        volatile=folder / "volatile.jsonl",
        **extra,
    ).model_dump_json()


def test_it_serves_what_the_module_entry_serves(warm: Any, demo: Path, tmp_path: Path) -> None:
    proc, sock = warm
    ticket = register(proc, options(demo, tmp_path / "warm"))
    drive(pump_cmd(sock, ticket), replay_calls([RATE]), tmp_path / "warm/stderr.txt")
    (tmp_path / "cold").mkdir()
    files = ["--record", str(tmp_path / "cold/calls.jsonl"), "--volatile", str(tmp_path / "cold/volatile.jsonl")]
    world_args = ["--world", str(demo / "world"), "--workspaces", str(demo / "workspaces"), "--clock", CLOCK]
    drive(fast(*world_args, *files), replay_calls([RATE]), tmp_path / "cold/stderr.txt")
    for name in ("calls.jsonl", "volatile.jsonl"):
        assert (tmp_path / "warm" / name).read_bytes() == (tmp_path / "cold" / name).read_bytes()
    # the server's line for people reached the pump's stderr (the harness's), digest and all
    assert served_digest(tmp_path / "warm/stderr.txt") == served_digest(tmp_path / "cold/stderr.txt")


def test_two_concurrent_replays_get_their_own_worlds_and_records(warm: Any, demo: Path, tmp_path: Path) -> None:
    proc, sock = warm
    drift = tmp_path / "drift.yaml"
    drift.write_text("fx: {rates: {'2026-10-09': {EUR: 1.2}}}\n", encoding="utf-8")
    headers = {
        "plain": options(demo, tmp_path / "plain"),
        "drift": options(demo, tmp_path / "drift", overlays=(drift,)),
    }
    both_open = threading.Barrier(2, timeout=60)
    answers: dict[str, Any] = {}

    def replay(name: str) -> None:
        async def body(session: ClientSession) -> Any:
            both_open.wait()  # both servers are up and initialized before either calls
            return await replay_calls([RATE])(session)

        answers[name] = drive(pump_cmd(sock, register(proc, headers[name])), body, tmp_path / name / "stderr.txt")

    threads = [threading.Thread(target=replay, args=(name,)) for name in headers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers["plain"][1][0]["rate"] != answers["drift"][1][0]["rate"]
    for name in headers:
        recorded = read_record(tmp_path / name / "calls.jsonl")
        assert [(c.index, c.result) for c in recorded] == [(0, answers[name][1][0])]
    plain = load_world(demo / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert served_digest(tmp_path / "plain/stderr.txt") == plain.digest()
    assert served_digest(tmp_path / "drift/stderr.txt") != plain.digest()


def refused(demo: Path, tmp_path: Path) -> list[tuple[str, str]]:
    base = {"world": str(demo / "world"), "workspaces": str(demo / "workspaces"), "clock": CLOCK}
    return [
        (json.dumps({**base, "clock": "noon"}), "error: --clock must be an ISO-8601 UTC instant like"),
        (json.dumps({**base, "workspace": "fx-mars"}), f"error: {demo / 'workspaces/fx-mars'}: workspace 'fx-mars'"),
        (json.dumps({**base, "overlays": [str(tmp_path / "nope.yaml")]}), f"error: {tmp_path / 'nope.yaml'}: file"),
        (json.dumps({**base, "colour": "red"}), "error: options: colour: Extra inputs are not permitted"),
        ("{not json", "error: options: Invalid JSON"),
    ]


def test_bad_options_are_one_line_exit_2_and_the_parent_lives_on(warm: Any, demo: Path, tmp_path: Path) -> None:
    proc, sock = warm
    for header, expected in refused(demo, tmp_path):
        done = subprocess.run(
            pump_cmd(sock, register(proc, header)), input=INITIALIZE, capture_output=True, text=True, timeout=60
        )
        assert (done.returncode, done.stdout, len(done.stderr.splitlines())) == (2, "", 1), (header, done.stderr)
        assert done.stderr.startswith(expected), (header, done.stderr)
    assert proc.poll() is None and ping(sock)


def refused_ticket(sock: Path, ticket: str) -> None:
    done = subprocess.run(pump_cmd(sock, ticket), input=INITIALIZE, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "error: Ratchet's MCP server: unknown or already used ticket\n"


def test_a_forged_header_is_refused_and_nothing_is_read_or_written(warm: Any, tmp_path: Path) -> None:
    """The red-team escape: a sandboxed agent reached the socket and sent options of its own (a host folder
    as its workspaces, a record in a host folder); only options the driver registered are served."""
    proc, sock = warm
    secret = tmp_path / "home" / "x"
    secret.mkdir(parents=True)
    (secret / "id_rsa").write_text("PRIVATE KEY", encoding="utf-8")
    forged = {
        "world": "/nonexistent-world",
        "workspaces": str(tmp_path / "home"),
        "workspace": "x",
        "clock": CLOCK,
        "record": str(tmp_path / "home" / "written.jsonl"),
    }
    refused_ticket(sock, json.dumps(forged))
    refused_ticket(sock, "not-a-ticket-it-issued")
    assert sorted(p.name for p in (tmp_path / "home").iterdir()) == ["x"]
    assert proc.poll() is None and ping(sock)


def test_a_ticket_serves_once(warm: Any, demo: Path, tmp_path: Path) -> None:
    proc, sock = warm
    ticket = register(proc, options(demo, tmp_path / "once"))
    drive(pump_cmd(sock, ticket), replay_calls([RATE]), tmp_path / "once/stderr.txt")
    (tmp_path / "once/calls.jsonl").unlink()
    refused_ticket(sock, ticket)
    assert not (tmp_path / "once/calls.jsonl").exists()
    assert proc.poll() is None and ping(sock)


def test_a_server_that_cannot_be_reached_is_one_line_exit_3(tmp_path: Path) -> None:
    done = subprocess.run(pump_cmd(tmp_path / "none.sock", "{}"), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (3, "")
    assert (
        done.stderr
        == f"error: cannot reach Ratchet's MCP server at {tmp_path / 'none.sock'} (No such file or directory)\n"
    )


def test_the_parent_ends_when_its_lifeline_closes(tmp_path: Path) -> None:
    sock = tmp_path / "mcp.sock"
    proc = subprocess.Popen([sys.executable, "-m", "ratchet.mcp.warm", "--socket", str(sock)], stdin=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not ping(sock):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    assert not sock.exists()


def test_the_pump_imports_only_the_standard_library() -> None:
    tree = ast.parse(PUMP.read_text(encoding="utf-8"))
    names = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    names |= {str(node.module).split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert names <= sys.stdlib_module_names | {"__future__"}, names
