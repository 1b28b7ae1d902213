"""The model endpoint inside a bubblewrap sandbox: a TCP port on the sandbox's loopback, relayed to a unix socket.

STDLIB ONLY, no ratchet import: this file is copied into each replay's scratch folder and run by the base
Python inside the sandbox (`python3 -I -S relay.py PORT SOCKET -- HARNESS ARGV...`), where neither the
repository nor the venv exists. The sandbox has its own network namespace with loopback alone, so the
harness's `http://127.0.0.1:PORT` would reach nothing; this script listens on that same address inside,
BEFORE it starts the harness (so the first request finds it), and pipes each connection to SOCKET, a unix
socket bound into the sandbox whose other end (ratchet/harness/bwrap.py, on the host) connects to the real
endpoint. Then it runs the harness as its child, with its stdin, stdout and stderr, and exits with its code;
the sandbox (and every process in it) ends with it.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import threading

_CHUNK = 65536


def _pipe(source: socket.socket, dest: socket.socket) -> None:
    """Copy until `source` closes, then tell `dest` no more is coming (a half-close keeps its answer flowing)."""
    try:
        while True:
            data = source.recv(_CHUNK)
            if not data:
                break
            dest.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            dest.shutdown(socket.SHUT_WR)


def pipe_both(client: socket.socket, upstream: socket.socket) -> None:
    """Pipe both ways until both sides are done, then close both (also the host side's forwarder)."""
    back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
    back.start()
    _pipe(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _connection(client: socket.socket, target: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(target)
    except OSError:
        client.close()
        upstream.close()
        return
    pipe_both(client, upstream)


def _serve(listener: socket.socket, target: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_connection, args=(client, target), daemon=True).start()


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: relay.py PORT SOCKET -- COMMAND...", file=sys.stderr)
        return 2
    port, target = int(argv[0]), argv[1]
    listener = socket.create_server(("127.0.0.1", port))
    threading.Thread(target=_serve, args=(listener, target), daemon=True).start()
    try:
        child = subprocess.Popen(argv[3:])
    except OSError as exc:
        print(f"relay: cannot start {argv[3]}: {exc.strerror}", file=sys.stderr)
        return 127
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda number, _frame: child.send_signal(number))
    code = child.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
