"""A server on 127.0.0.1 that answers every request one byte at a time: headers after `step` seconds,
then one body byte every `step` seconds for `lasts` seconds. Every single read is quick, the whole answer
is not: what a client timeout per read (httpx's) does not bound.

    with Trickle(step=0.1, lasts=6) as server:
        ... api_base=server.base_url ...
"""

from __future__ import annotations

import socket
import threading
import time


class Trickle:
    def __init__(self, step: float = 0.1, lasts: float = 6.0) -> None:
        self.step, self.lasts = step, lasts
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.stopped = threading.Event()
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed: the server stops
                return
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(4096)
                self.stopped.wait(self.step)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
                ends = time.monotonic() + self.lasts
                while time.monotonic() < ends and not self.stopped.wait(self.step):
                    conn.sendall(b" ")
            except OSError:  # the client hung up: what a bounded probe does
                return

    def __enter__(self) -> Trickle:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.sock.close()
