"""A fake of the three GitHub REST endpoints a sticky PR comment needs, on 127.0.0.1.

    with FakeGitHub(token="ghs_x", page_size=2) as gh:
        gh.seed(7, "someone else's comment", author="octocat")
        ... GITHUB_API_URL=gh.base_url ...
        gh.comments(7)      # what is on PR 7 now
        gh.requests         # (method, path, authorization) of every request that reached it

Endpoints, shaped as GitHub's: GET and POST /repos/{owner}/{repo}/issues/{n}/comments (the list
paginated with a Link header, `per_page` capped at page_size so a test sees several pages) and
PATCH /repos/{owner}/{repo}/issues/comments/{id}. Every request must carry
`Authorization: Bearer <token>` or `token <token>`, else 401 "Bad credentials" as GitHub answers.
`fail_next(status, message)` makes the next request answer that error.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tests.helpers.fake_openai import ThreadedServer

BOT = "github-actions[bot]"


@dataclass
class Comment:
    id: int
    issue: int
    body: str
    author: str

    def to_json(self, base: str, repo: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "body": self.body,
            "user": {"login": self.author, "type": "Bot" if self.author.endswith("[bot]") else "User"},
            "html_url": f"https://github.example/{repo}/pull/{self.issue}#issuecomment-{self.id}",
            "url": f"{base}/repos/{repo}/issues/comments/{self.id}",
        }


@dataclass
class FakeGitHub:
    token: str = "ghs_fake_token_0123456789"
    repo: str = "acme/skills"
    page_size: int = 100
    store: list[Comment] = field(default_factory=list)
    requests: list[tuple[str, str, str]] = field(default_factory=list)
    _next_id: int = 1000
    _failures: list[tuple[int, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadedServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.port}"

    def seed(self, issue: int, body: str, *, author: str = "octocat") -> Comment:
        with self._lock:
            self._next_id += 1
            comment = Comment(self._next_id, issue, body, author)
            self.store.append(comment)
            return comment

    def comments(self, issue: int) -> list[Comment]:
        with self._lock:
            return [c for c in self.store if c.issue == issue]

    def fail_next(self, status: int, message: str) -> None:
        with self._lock:
            self._failures.append((status, message))

    def __enter__(self) -> FakeGitHub:
        self._server = ThreadedServer(self._build()).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.stop()

    # the app --------------------------------------------------------------------------------

    def _gate(self, request: Request) -> JSONResponse | None:
        """Record the request; the error it must get (scripted, or bad credentials), if any."""
        auth = request.headers.get("authorization", "")
        with self._lock:
            self.requests.append((request.method, request.url.path, auth))
            failure = self._failures.pop(0) if self._failures else None
        if auth not in (f"Bearer {self.token}", f"token {self.token}"):
            return _error(401, "Bad credentials")
        if failure is not None:
            return _error(*failure)
        return None

    def _build(self) -> FastAPI:
        app = FastAPI()
        prefix = f"/repos/{self.repo}"

        @app.get(prefix + "/issues/{issue}/comments")
        async def list_comments(issue: int, request: Request, per_page: int = 30, page: int = 1) -> JSONResponse:
            if (refused := self._gate(request)) is not None:
                return refused
            size = max(1, min(per_page, self.page_size))
            found = self.comments(issue)
            chunk = found[(page - 1) * size : page * size]
            headers = {}
            last = max(1, -(-len(found) // size))
            if page < last:
                url = f"{self.base_url}{prefix}/issues/{issue}/comments?per_page={size}"
                headers["Link"] = f'<{url}&page={page + 1}>; rel="next", <{url}&page={last}>; rel="last"'
            return JSONResponse([c.to_json(self.base_url, self.repo) for c in chunk], headers=headers)

        @app.post(prefix + "/issues/{issue}/comments")
        async def create(issue: int, request: Request) -> JSONResponse:
            if (refused := self._gate(request)) is not None:
                return refused
            body = (await request.json()).get("body")
            if not isinstance(body, str) or not body:
                return _error(422, "Validation Failed")
            comment = self.seed(issue, body, author=BOT)
            return JSONResponse(comment.to_json(self.base_url, self.repo), status_code=201)

        @app.patch(prefix + "/issues/comments/{comment_id}")
        async def update(comment_id: int, request: Request) -> JSONResponse:
            if (refused := self._gate(request)) is not None:
                return refused
            body = (await request.json()).get("body")
            with self._lock:
                target = next((c for c in self.store if c.id == comment_id), None)
                if target is None:
                    return _error(404, "Not Found")
                if target.author != BOT:
                    return _error(403, "Resource not accessible by integration")
                target.body = body
            return JSONResponse(target.to_json(self.base_url, self.repo))

        return app


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse(
        {"message": message, "documentation_url": "https://docs.github.com/rest", "status": str(status)},
        status_code=status,
    )
