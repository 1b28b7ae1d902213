"""`python -m ratchet.mcp.warm --socket PATH`: one MCP server parent per run, imported once, a fork per replay.

Why: a harness starts its MCP servers while it starts, and a per-replay `python -m ratchet.mcp`
paid the MCP SDK's imports every time (most of a replay's CPU); on a loaded machine the harness
could ask the model before the server was up. This parent imports the server once, listens on
a unix socket and, per connection, forks a child that serves one replay with the same code as
`python -m ratchet.mcp` (launch.prepare, server.serve), its stdio replaced by the connection. A
fork shares the parent's imports, so a replay's server is up in milliseconds.

The parent is single-threaded. It serves only options the driver registered: a client on the socket
(which a sandboxed harness can reach) names a one-time ticket, never options (ADR 0032). The driver
writes each replay's `TICKET OPTIONS-JSON` line to the parent's stdin, a pipe only the driver holds;
the parent reads a connection's short ticket line without blocking (selectors), takes the ticket's
options out of its table (so a ticket serves once) and forks a child with them; the child serves,
or writes the refusal. It reaps ended children between connections, and ends when its stdin
closes (the run that started it is gone: ratchet/harness/warm_mcp.py holds the other end) or on
SIGTERM; children still serving keep their connections until their replays end.

One connection, as ratchet/mcp/pump.py speaks it:
1. client -> server: one line, the replay's ticket, with the client's stderr attached
   (SCM_RIGHTS); or `ping`.
2. server -> client: one status line. `ok`: MCP follows, raw, both ways, until the client
   half-closes (the server's stdin ends) and the child exits. `pong`: the answer to `ping`.
   `exit N`: refused (a ticket not registered or already used, or options `python -m ratchet.mcp`
   would refuse); the one-line error went to the client's stderr, and the client exits N (2).
"""

from __future__ import annotations

import argparse
import gc
import os
import selectors
import socket
import sys
import time
import traceback
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path

from pydantic import ValidationError

from ratchet.config.env import debug_enabled
from ratchet.core.errors import RatchetError
from ratchet.mcp.launch import ServeOptions, prepare
from ratchet.mcp.record import CallRecorder, VolatileRecorder
from ratchet.mcp.server import serve
from ratchet.world.state import World

_Served = tuple[World, CallRecorder, VolatileRecorder]

PING = b"ping"
HEADER_LIMIT = 1 << 10
"""A ticket line longer than this is dropped: a ticket is tens of characters."""
HEADER_TIMEOUT_S = 60.0
"""A client that connects and does not finish its line within this is dropped."""
REAP_EVERY_S = 0.5
"""How long an ended child may wait to be reaped when no connection wakes the parent first."""
_CHUNK = 1 << 16


def _prewarm() -> None:
    """Import what a child would otherwise import lazily on its first request, then freeze the heap.

    anyio picks its backend module at `anyio.run`; the SDK's stdio transport is imported by
    server.serve. gc.freeze keeps the collector from touching (and so copying) the parent's pages
    in every child."""
    import anyio._backends._asyncio  # noqa: F401
    import mcp.server.stdio  # noqa: F401

    gc.collect()
    gc.freeze()


def _refusal(header: bytes) -> tuple[int, _Served | None]:
    """(0, what prepare returned) for good options; (exit code, None) after writing the one-line error."""
    try:
        options = ServeOptions.model_validate_json(header)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        print(f"error: options: {where + ': ' if where else ''}{first['msg']}", file=sys.stderr, flush=True)
        return 2, None
    try:
        return 0, prepare(options)
    except RatchetError as exc:
        if debug_enabled():
            traceback.print_exc()
            return 1, None
        print(f"error: {exc.one_line()}", file=sys.stderr, flush=True)
        return exc.exit_code, None


UNKNOWN_TICKET = "Ratchet's MCP server: unknown or already used ticket"


def serve_connection(conn: socket.socket, fds: list[int], request: bytes | None) -> int:
    """One child's whole life: `request` is PING, the registered options, or None (a refused ticket); its exit code."""
    conn.setblocking(True)
    for extra in fds[1:]:
        os.close(extra)
    if fds:  # the client's stderr becomes ours: what the server says for people reaches the harness
        os.dup2(fds[0], 2)
        os.close(fds[0])
    if request == PING:
        conn.sendall(b"pong\n")
        return 0
    if request is None:
        print(f"error: {UNKNOWN_TICKET}", file=sys.stderr, flush=True)
        conn.sendall(b"exit 2\n")
        return 2
    code, served = _refusal(request)
    if served is None:
        conn.sendall(f"exit {code}\n".encode())
        return code
    conn.sendall(b"ok\n")
    os.dup2(conn.fileno(), 0)
    os.dup2(conn.fileno(), 1)
    conn.close()
    serve(*served)
    return 0


def _fork_child(
    conn: socket.socket, fds: list[int], request: bytes | None, listener: socket.socket, lifeline: int
) -> None:
    pid = os.fork()
    if pid != 0:
        conn.close()
        for fd in fds:
            os.close(fd)
        return
    code = 1
    try:
        listener.close()
        if lifeline > 2:  # stdin (0) is replaced by the connection when serving starts
            os.close(lifeline)
        code = serve_connection(conn, fds, request)
    except BaseException:  # a child never returns into the parent's loop, whatever happened
        with suppress(Exception):
            traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with suppress(Exception):
                stream.flush()
        os._exit(code)


def reap() -> None:
    """Wait for every child that has ended (their CPU then counts in ours, as a per-replay server's did)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


class _Pending:
    """A connection whose ticket line has not fully arrived."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.data = b""
        self.fds: list[int] = []
        self.deadline = time.monotonic() + HEADER_TIMEOUT_S

    def drop(self) -> None:
        self.conn.close()
        for fd in self.fds:
            os.close(fd)


class Tickets:
    """The options the driver registered, by ticket, read from the parent's stdin (`TICKET OPTIONS-JSON` lines)."""

    def __init__(self, lifeline: int) -> None:
        self.lifeline = lifeline
        self.table: dict[bytes, bytes] = {}
        self.partial = b""
        self.ended = False

    def read(self) -> None:
        """Take in what the lifeline holds now (it is non-blocking); `ended` once it reached its end."""
        while not self.ended:
            try:
                data = os.read(self.lifeline, _CHUNK)
            except BlockingIOError:
                return
            if not data:
                self.ended = True
                return
            *lines, self.partial = (self.partial + data).split(b"\n")
            for line in lines:
                ticket, _, options = line.partition(b" ")
                if ticket and options:
                    self.table[ticket] = options

    def take(self, ticket: bytes) -> bytes | None:
        """The ticket's options, once: the driver registered the ticket before it started the harness, so
        whatever the lifeline holds is read first."""
        self.read()
        return self.table.pop(ticket, None) if ticket else None


def _arrived(pending: _Pending) -> bytes | None:
    """Read what the connection has; its line once complete. ValueError when it closed or overran."""
    data, fds, _flags, _addr = socket.recv_fds(pending.conn, _CHUNK, 4)
    pending.fds += fds
    if not data:
        raise ValueError("connection closed inside the line")
    pending.data += data
    if b"\n" in pending.data:
        return pending.data.split(b"\n", 1)[0].strip()
    if len(pending.data) > HEADER_LIMIT:
        raise ValueError("line too long")
    return None


def serve_forever(listener: socket.socket, lifeline: int) -> None:
    """Accept, read each ticket line, fork; until `lifeline` (a pipe's read end) reaches its end; reap as it goes."""
    os.set_blocking(lifeline, False)
    tickets = Tickets(lifeline)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, None)
    selector.register(lifeline, selectors.EVENT_READ, None)
    while not tickets.ended:
        for key, _ in selector.select(timeout=REAP_EVERY_S):
            if key.fileobj == lifeline:
                tickets.read()
            elif key.fileobj is listener:
                try:
                    conn, _ = listener.accept()
                except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                    continue
                conn.setblocking(False)
                selector.register(conn, selectors.EVENT_READ, _Pending(conn))
            else:
                _step(selector, key.data, tickets, listener, lifeline)
        now = time.monotonic()
        for key in list(selector.get_map().values()):
            if isinstance(key.data, _Pending) and key.data.deadline < now:
                selector.unregister(key.fileobj)
                key.data.drop()
        reap()


def _step(
    selector: selectors.BaseSelector, pending: _Pending, tickets: Tickets, listener: socket.socket, lifeline: int
) -> None:
    try:
        line = _arrived(pending)
    except BlockingIOError:
        return
    except (OSError, ValueError):
        selector.unregister(pending.conn)
        pending.drop()
        return
    if line is None:
        return
    selector.unregister(pending.conn)
    request = PING if line == PING else tickets.take(line)
    _fork_child(pending.conn, pending.fds, request, listener, lifeline)


def listen(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with suppress(FileNotFoundError):
        path.unlink()
    listener.bind(str(path))
    listener.listen(64)
    listener.setblocking(False)
    return listener


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m ratchet.mcp.warm",
        description="Serve each connection's replay world over MCP from one pre-imported parent; ends when stdin closes.",
    )
    parser.add_argument("--socket", type=Path, required=True, help="The unix socket to listen on.")
    args = parser.parse_args(argv)
    _prewarm()
    listener = listen(args.socket)
    try:
        serve_forever(listener, sys.stdin.fileno())
    finally:
        listener.close()
        with suppress(OSError):
            args.socket.unlink()


if __name__ == "__main__":
    main()
