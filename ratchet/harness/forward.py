"""The host side of the model endpoint's relay into a bubblewrap sandbox (ratchet/harness/bwrap.py).

Inside the sandbox, relay.py listens on 127.0.0.1:PORT and pipes each connection to a unix socket bound in;
here, one thread per process and port accepts on that socket and pipes each connection to the real endpoint,
127.0.0.1:PORT on the host. The socket sits alone in a folder only this user can enter; when the replay runs
as another user (the host's root drops to bwrap.SANDBOX_UID), confine() gives that user the socket itself.
"""

from __future__ import annotations

import atexit
import shutil
import socket
import tempfile
import threading
from pathlib import Path

from ratchet.harness.relay import pipe_both


class _Forwarder:
    """A unix socket on the host whose every connection is piped to 127.0.0.1:port (the model endpoint)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.folder = Path(tempfile.mkdtemp(prefix="ratchet-model-"))
        self.path = self.folder / "model.sock"
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.path))
        self._listener.listen(128)
        threading.Thread(target=self._serve, name=f"ratchet-forward-{port}", daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._connection, args=(client,), daemon=True).start()

    def _connection(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)
        pipe_both(client, upstream)

    def stop(self) -> None:
        self._listener.close()
        shutil.rmtree(self.folder, ignore_errors=True)


_forwarders: dict[int, _Forwarder] = {}
_forwarders_lock = threading.Lock()


def endpoint_socket(port: int) -> Path:
    """The host's unix socket that reaches 127.0.0.1:port, started on first use (one per port and process)."""
    with _forwarders_lock:
        forwarder = _forwarders.get(port)
        if forwarder is None:
            forwarder = _Forwarder(port)
            atexit.register(forwarder.stop)
            _forwarders[port] = forwarder
        return forwarder.path
