"""The proxy's request body limit and a client that goes away mid-body, against the real server on loopback.

A 60 MB body used to be read whole before anything looked at it, and a client that disconnected
mid-body left a full traceback in the proxy's log. Now a body over the limit (16 MiB by default,
`ratchet proxy --max-body-mib`) is 413 in the API's error shape, answered from Content-Length before
a byte of the body is read (or as soon as a chunked body passes it), and a disconnect is one line.
"""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.llm.endpoint import DEFAULT_MAX_BODY_BYTES
from tests.llm.proxy_rig import TOKEN, Rig, sim_rig

SIXTY_MB = 60 * 1024 * 1024
SMALL_LIMIT = 4096
CHAT = {"model": "agent", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 20}


def _raw(port: int, head: str, body: bytes = b"") -> socket.socket:
    """A raw client: the request line and headers (and any body bytes) sent, nothing more."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(head.encode() + b"\r\n" + body)
    return sock


def _headers(path: str, **extra: str) -> str:
    lines = [
        f"POST {path} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Authorization: Bearer {TOKEN}",
        "Content-Type: application/json",
        *(f"{name.replace('_', '-')}: {value}" for name, value in extra.items()),
    ]
    return "\r\n".join(lines) + "\r\n"


def _response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Read one HTTP response to its end (the server closes the connection after a 413)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode().split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), headers, body


def test_the_default_limit_is_16_mib() -> None:
    assert DEFAULT_MAX_BODY_BYTES == 16 * 1024 * 1024


def test_a_60_mb_body_is_413_from_its_content_length_before_any_of_it_is_sent(tmp_path: Path) -> None:
    with sim_rig(tmp_path) as rig:
        started = time.monotonic()
        with _raw(rig.port, _headers("/v1/messages", content_length=str(SIXTY_MB))) as sock:
            status, headers, body = _response(sock)
        assert status == 413 and headers["connection"] == "close"
        assert json.loads(body) == {
            "type": "error",
            "error": {
                "type": "request_too_large",
                "message": (
                    f"the body is {SIXTY_MB} bytes, over the proxy's limit of {DEFAULT_MAX_BODY_BYTES} bytes "
                    "(ratchet proxy --max-body-mib)"
                ),
            },
        }
        assert time.monotonic() - started < 5
        assert rig.store.ledger() == []


def test_a_chunked_body_is_413_once_it_passes_the_limit(tmp_path: Path) -> None:
    with sim_rig(tmp_path, max_body_bytes=SMALL_LIMIT) as rig:
        chunk = b"x" * (SMALL_LIMIT + 1)
        # One chunk past the limit and no last chunk: the proxy must answer without waiting for the rest.
        with _raw(
            rig.port,
            _headers("/v1/chat/completions", transfer_encoding="chunked"),
            f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n",
        ) as sock:
            status, _, body = _response(sock)
        assert status == 413
        assert json.loads(body)["error"]["message"] == (
            f"the body is over the proxy's limit of {SMALL_LIMIT} bytes (ratchet proxy --max-body-mib)"
        )


def test_a_body_within_the_limit_is_answered(tmp_path: Path) -> None:
    with sim_rig(tmp_path, max_body_bytes=SMALL_LIMIT) as rig, httpx.Client(timeout=30) as client:
        answer = client.post(f"{rig.v1}/chat/completions", json=CHAT, headers={"authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 200, answer.text
        padded = {**CHAT, "metadata": {"pad": "x" * SMALL_LIMIT}}
        too_big = client.post(f"{rig.v1}/chat/completions", json=padded, headers={"authorization": f"Bearer {TOKEN}"})
        assert too_big.status_code == 413
        assert too_big.json()["error"]["message"].startswith("the body is ")


def _wait_for(rig: Rig, count: int) -> None:
    deadline = time.monotonic() + 30
    while len(rig.refusals) < count and time.monotonic() < deadline:
        time.sleep(0.02)


def test_a_client_that_disconnects_mid_body_is_one_log_line_and_no_traceback(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    with sim_rig(tmp_path) as rig:
        sock = _raw(rig.port, _headers("/v1/messages", content_length="100000"), b'{"model": "agent", ')
        time.sleep(0.2)  # the proxy is reading the body when the client goes
        sock.close()
        _wait_for(rig, 1)
        # Still serving: the next client is answered.
        with httpx.Client(timeout=30) as client:
            answer = client.post(f"{rig.v1}/chat/completions", json=CHAT, headers={"authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 200
    assert rig.refusals == [
        "ratchet proxy: the client went away before its request body was complete (/v1/messages); nothing was asked"
    ]
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "ClientDisconnect" not in out + err


def test_the_limit_is_a_proxy_option(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["proxy", "--max-body-mib", "0", "--project", str(tmp_path)])
    flat = " ".join(re.sub(r"[╭╮╰╯│─]", " ", result.stderr).split())  # without the error panel's box
    assert result.exit_code == 2 and "Invalid value for '--max-body-mib'" in flat
