"""The MCP pump: what a harness starts as "Ratchet's MCP server" when a warm server runs (ratchet/mcp/warm.py).

STDLIB ONLY, on purpose: no `ratchet` import, ever. The driver copies this file into each replay's
scratch folder and the harness runs it as `<python> -I -S <scratch>/mcp-pump.py SOCKET TICKET`
(the base interpreter, isolated, no site-packages), possibly inside a sandbox that holds nothing
of Ratchet, its venv or the repository. Starting it costs a bare interpreter (tens of ms), not the
MCP SDK's imports: those were paid once, by the warm server.

It connects to the warm server's unix socket, sends TICKET (one line: the one-time ticket the driver
got for the replay's options, registered with the server over a channel the harness cannot reach;
the pump never carries options) with its own stderr attached (SCM_RIGHTS, so the server's lines for people reach the harness
as a per-replay server's did), reads one status line, then copies stdin to the socket and the
socket to stdout until the server closes. Status `ok`: serving. `exit N`: the server refused the
ticket or its options, its one-line error is already on our stderr, and we exit N as `python -m ratchet.mcp`
would (2 for bad input). A server that cannot be reached is one line on stderr and exit 3: the
harness then starts without Ratchet's tools and the replay's not-ready guard says so.
"""

from __future__ import annotations

import os
import selectors
import socket
import sys

CHUNK = 1 << 16
UNREACHABLE = 3


def _say(message: str) -> None:
    print(f"error: {message}", file=sys.stderr, flush=True)


def handshake(sock: socket.socket, ticket: str) -> tuple[int | None, bytes]:
    """Send the ticket line (and our stderr); return (exit code, or None to serve; bytes read past the status)."""
    line = ticket.strip().encode("utf-8") + b"\n"
    try:
        sent = socket.send_fds(sock, [line], [2])
    except OSError:  # no stderr to lend (closed): the server's lines go to its own
        sent = 0
    if sent < len(line):  # not an empty send: a server that already answered and closed would make it EPIPE
        sock.sendall(line[sent:])
    got = b""
    while b"\n" not in got:
        chunk = sock.recv(CHUNK)
        if not chunk:
            _say("Ratchet's MCP server closed the connection before answering")
            return UNREACHABLE, b""
        got += chunk
    status, _, rest = got.partition(b"\n")
    if status == b"ok":
        return None, rest
    word, _, code = status.partition(b" ")
    if word == b"exit" and code.isdigit():
        return int(code), b""
    _say(f"Ratchet's MCP server answered {status[:80]!r}")
    return UNREACHABLE, b""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def pump(sock: socket.socket, pending: bytes) -> int:
    """stdin -> socket, socket -> stdout; stdin's end is passed on (half-close); the socket's end ends us."""
    _write_all(1, pending)
    selector = selectors.PollSelector()  # poll, not epoll: a regular file on stdin must not be refused
    selector.register(0, selectors.EVENT_READ, "stdin")
    selector.register(sock, selectors.EVENT_READ, "server")
    while True:
        for key, _ in selector.select():
            if key.data == "stdin":
                data = os.read(0, CHUNK)
                if data:
                    sock.sendall(data)
                else:
                    selector.unregister(0)
                    sock.shutdown(socket.SHUT_WR)
            else:
                data = sock.recv(CHUNK)
                if not data:
                    return 0
                _write_all(1, data)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        _say("usage: mcp-pump.py SOCKET TICKET")
        return 2
    path, ticket = argv[1], argv[2]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as exc:
        _say(f"cannot reach Ratchet's MCP server at {path} ({exc.strerror or exc})")
        return UNREACHABLE
    try:
        code, pending = handshake(sock, ticket)
        return code if code is not None else pump(sock, pending)
    except (BrokenPipeError, ConnectionResetError):  # the harness or the server went: nothing left to carry
        return 0
    finally:
        sock.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
