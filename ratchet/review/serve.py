"""`ratchet review --serve`: the review page on 127.0.0.1, with buttons that act.

Security model, in the order a request meets it: the socket binds 127.0.0.1 only; a Host header
that is not a loopback name is refused (a foreign page's DNS rebinding cannot reach us, as in
ratchet/llm/proxy.py); every request needs the per-run token, in the URL's `token` for the page
and in the `X-Ratchet-Token` header for a POST (a cross-site form can send neither: it cannot
read the token and cannot set the header without a CORS preflight we never answer). The page
reads the token from its own URL, so the token is not in the page's bytes.
"""

from __future__ import annotations

import hmac
import secrets
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import ValidationError

from ratchet.core.errors import InfraError, RatchetError
from ratchet.review.actions import DecideRequest, ReviewSession
from ratchet.review.page import render_page

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost"})


def _same(offered: str, token: str) -> bool:
    return bool(offered) and hmac.compare_digest(offered.encode(), token.encode())


def review_app(session: ReviewSession, token: str) -> FastAPI:
    """The app: GET / (the page, rebuilt from disk), POST /api/decide (one action)."""
    app = FastAPI(title="ratchet review", docs_url=None, redoc_url=None, openapi_url=None)

    def refuse(status: int, message: str) -> JSONResponse:
        return JSONResponse(status_code=status, content={"ok": False, "state": "refused", "message": message})

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Any:
        host = (request.headers.get("host") or "").rsplit(":", 1)[0].strip("[]")
        if host not in LOOPBACK_NAMES:
            return refuse(403, "foreign Host header refused: the review server serves 127.0.0.1 only")
        offered = (
            request.headers.get("x-ratchet-token", "")
            if request.method == "POST"
            else request.query_params.get("token", "")
        )
        if not _same(offered, token):
            return refuse(401, "missing or wrong review token: open the URL `ratchet review --serve` printed")
        return await call_next(request)

    @app.get("/")
    def page() -> Response:
        try:
            html = render_page(session.build(), served=True)
        except RatchetError as exc:
            return refuse(400, exc.one_line())
        return HTMLResponse(html, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    @app.post("/api/decide")
    async def decide(request: Request) -> Response:
        try:
            body = DecideRequest.model_validate(await request.json())
        except (ValueError, ValidationError):
            return refuse(400, "the body must be JSON: {item, action, decision?}")
        try:
            answer = session.decide(body)
        except RatchetError as exc:
            return refuse(400, exc.one_line())
        return JSONResponse(status_code=200 if answer.ok else 409, content=answer.model_dump(mode="json"))

    return app


def bind_loopback(port: int = 0) -> socket.socket:
    """A listening socket on 127.0.0.1 (port 0: a free one, read back with getsockname)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    return sock


class ReviewServer:
    """One served review: its token, its socket, the URL to open."""

    def __init__(self, session: ReviewSession, *, port: int = 0, token: str | None = None) -> None:
        import uvicorn

        self.token = token or secrets.token_urlsafe(24)
        self.socket = bind_loopback(port)
        self.port: int = self.socket.getsockname()[1]
        config = uvicorn.Config(
            review_app(session, self.token), log_level="warning", access_log=False, ws="none", lifespan="off"
        )
        self._server = uvicorn.Server(config)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def run(self) -> None:
        """Serve in the foreground until interrupted."""
        self._server.run(sockets=[self.socket])

    @contextmanager
    def running(self) -> Iterator[ReviewServer]:
        """Serve on a thread for the block's duration (tests, and callers that drive a browser)."""
        thread = threading.Thread(target=self.run, name="ratchet-review", daemon=True)
        thread.start()
        try:
            while not self._server.started:
                if not thread.is_alive():
                    raise InfraError("the review server stopped before it started (see the error above)")
                threading.Event().wait(0.01)
            yield self
        finally:
            self._server.should_exit = True
            thread.join(timeout=10)
            self.socket.close()
