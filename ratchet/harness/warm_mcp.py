"""The run's one warm MCP server (ratchet/mcp/warm.py), and the pump each harness replay starts to reach it.

A harness replay used to start its own `python -m ratchet.mcp`, paying the MCP SDK's imports each
time; on a loaded machine the harness could ask the model before that server was up (the
not-ready guard then spent a second start). Now the first replay of a process starts one warm
parent (like driver.shared_endpoint(): once, under a lock, stopped atexit) and waits until it
answers a ping; every replay's MCP config names the pump, a stdlib-only script copied into the
replay's scratch folder and run by the base interpreter, which hands the parent the replay's
one-time ticket and carries MCP both ways. The replay's ServeOptions never pass through the
harness: `register` writes them, with a fresh random ticket, to the parent's stdin, a pipe only
this process holds, so a sandboxed agent that reaches the socket can name no options of its own
(ADR 0032). Each replay still gets a fresh server process over a
freshly loaded world (a fork), so worlds and records stay per replay.

A parent that died is started once more; after that the socket is left as it is, the pump
cannot connect, the harness starts without Ratchet's tools and the replay's not-ready guard
says so. For the sandbox (ratchet/harness/bwrap.py): the socket's folder holds only the socket,
the pump needs only `pump_python()`'s installation (sys.base_prefix) and the scratch folder.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import suppress
from functools import lru_cache
from pathlib import Path
from typing import IO

from ratchet.core.errors import InfraError
from ratchet.mcp import pump
from ratchet.mcp.options import ServeOptions

PUMP_NAME = "mcp-pump.py"
"""The pump's file name in each replay's scratch root."""
START_TIMEOUT_S = 120.0
"""How long the parent may take to import and answer its first ping (a loaded CI runner is slow)."""
RESTARTS = 1
"""A parent found dead is started this many more times in one process."""
_PING_TIMEOUT_S = 10.0
_PUMP_SOURCE = Path(pump.__file__)


def available() -> bool:
    """Whether this platform can run the warm server (fork, unix sockets); elsewhere each replay starts its own."""
    return hasattr(os, "fork") and hasattr(socket, "AF_UNIX")


@lru_cache(maxsize=1)
def pump_python() -> Path:
    """The interpreter the pump runs on: the base installation's python3, resolved (not the venv's), so a
    sandbox needs sys.base_prefix and nothing of the venv or the repository."""
    base = Path(sys.base_prefix) / "bin" / "python3"
    return base.resolve() if base.is_file() else Path(sys.executable).resolve()


def ping(path: Path, timeout_s: float = _PING_TIMEOUT_S) -> bool:
    """True when a warm server listens at `path` and forks a child that answers."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout_s)
            sock.connect(str(path))
            sock.sendall(b"ping\n")
            answer = b""
            while b"\n" not in answer:
                chunk = sock.recv(64)
                if not chunk:
                    return False
                answer += chunk
    except OSError:
        return False
    return answer.startswith(b"pong\n")


class WarmServer:
    """One warm parent: its private folder (the socket in `sock/`, alone, and the parent's log), its process."""

    def __init__(self) -> None:
        base = tempfile.gettempdir()
        if len(base) > 60:  # a unix socket path has ~100 bytes
            base = "/tmp"
        self.folder = Path(tempfile.mkdtemp(prefix="ratchet-mcp-", dir=base))
        self.socket = self.folder / "sock" / "mcp.sock"
        self.socket.parent.mkdir(mode=0o700)
        self.log = self.folder / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._writing = threading.Lock()

    def register(self, options: ServeOptions) -> str:
        """A fresh one-time ticket for `options`, handed to the parent before the harness can name it. A parent
        that is gone gets nothing: the pump is then refused or cannot connect, and the not-ready guard says so."""
        ticket = secrets.token_urlsafe(32)
        line = f"{ticket} {options.model_dump_json()}\n".encode()
        with self._writing:
            if self.proc is not None and self.proc.stdin is not None:
                with suppress(OSError, ValueError):  # a dead parent's pipe (ValueError: closed by a restart)
                    self.proc.stdin.write(line)
                    self.proc.stdin.flush()
        return ticket

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start the parent and return once it answers a ping; InfraError if it exits or never answers."""
        self.starts += 1
        if self.proc is not None:  # a dead parent's lifeline
            _close(self.proc.stdin)
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "ratchet.mcp.warm", "--socket", str(self.socket)],
                stdin=subprocess.PIPE,  # its lifeline: when we are gone, it reads EOF and ends
                stdout=subprocess.DEVNULL,
                stderr=log,
                cwd="/",
                env=_server_env(self.folder),
                start_new_session=True,  # a replay's process-group kill never reaches it
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ping(self.socket):
            code = self.proc.poll()
            if code is not None:
                raise InfraError(f"Ratchet's MCP server exited ({code}) before serving: {self._log_tail()}")
            if time.monotonic() > deadline:
                self._end()
                raise InfraError(f"Ratchet's MCP server did not answer within {START_TIMEOUT_S:.0f} s")
            time.sleep(0.02)

    def _log_tail(self) -> str:
        lines = self.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    def _end(self) -> None:
        proc = self.proc
        if proc is None:
            return
        _close(proc.stdin)
        if proc.poll() is not None:
            return
        try:
            proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def stop(self) -> None:
        """End the parent (replays still being served keep their own processes) and remove the folder."""
        self._end()
        shutil.rmtree(self.folder, ignore_errors=True)


def _close(stream: IO[bytes] | None) -> None:
    if stream is not None:
        with suppress(OSError):
            stream.close()


def _server_env(folder: Path) -> dict[str, str]:
    """Built from nothing, as a harness's environment is (ADR 0016), plus the path of the very `ratchet`
    this process runs, so the server serves with the same code."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(folder),
        "TMPDIR": str(folder),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "PYTHONPATH": str(_PUMP_SOURCE.resolve().parents[2]),  # the folder holding this `ratchet` package
    }


_lock = threading.Lock()
_server: WarmServer | None = None


def warm_server() -> WarmServer:
    """This process's warm server, started (and answering) on first use; a dead one restarted RESTARTS times."""
    global _server
    with _lock:
        if _server is None:
            _server = WarmServer()
            atexit.register(_server.stop)
            _server.start()
        elif not _server.alive() and _server.starts <= RESTARTS:
            with suppress(InfraError):  # the replay's not-ready guard names what followed
                _server.start()
        return _server


def warm_socket() -> Path:
    """The unix socket of this process's warm server (its folder holds nothing else)."""
    return warm_server().socket


def pump_argv(scratch: Path, options: ServeOptions) -> list[str]:
    """The MCP server command for one replay: the pump, copied into `scratch`, naming the ticket for `options`."""
    server = warm_server()
    script = scratch / PUMP_NAME
    if not script.is_file():
        shutil.copyfile(_PUMP_SOURCE, script)
    return [str(pump_python()), "-I", "-S", str(script), str(server.socket), server.register(options)]
