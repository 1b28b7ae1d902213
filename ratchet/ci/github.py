"""One sticky comment per pull request and gate config, kept up to date through GitHub's REST API.

Why a hidden marker: re-runs of the job must edit the comment they wrote before instead of
adding another, and the only state GitHub keeps for us is the comment itself. The marker names
the gate config so two jobs (say cascade and level0_only) keep one comment each. Only a comment
whose body *starts* with the marker is ours: a reviewer quoting it (`> <!-- ...`) is not.

The token is read once into a SecretStr and is never part of a message: every error text passes
through `_redact` before it is raised, because GitHub (or a proxy in front of it) may echo it.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import httpx
from pydantic import AliasChoices, BaseModel, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ratchet.core.errors import ConfigError, InfraError, InputError
from ratchet.core.jsonio import load_json_text, read_utf8

DEFAULT_API_URL = "https://api.github.com"
MARKER_PREFIX = "<!-- ratchet:sticky config="
PER_PAGE = 100
TIMEOUT_S = 30.0
_MAX_PAGES = 100  # 10,000 comments: past that something is wrong, not a long discussion
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9._/=+-]")


def sticky_marker(key: str) -> str:
    """The hidden first line that finds this config's comment again (`--` cannot end it early)."""
    safe = re.sub("-{2,}", "-", _KEY_UNSAFE.sub("-", key.strip()))
    return f"{MARKER_PREFIX}{safe or 'default'} -->"


class GitHubEnv(BaseSettings):
    """What a GitHub Actions runner tells a step about the run (the variables GitHub sets)."""

    model_config = SettingsConfigDict(env_ignore_empty=True, extra="ignore", frozen=True)

    token: SecretStr = Field(validation_alias=AliasChoices("GITHUB_TOKEN"))
    repository: str = Field(validation_alias=AliasChoices("GITHUB_REPOSITORY"), description="owner/name.")
    event_path: Path = Field(
        validation_alias=AliasChoices("GITHUB_EVENT_PATH"), description="The webhook event JSON that started the run."
    )
    api_url: str = Field(
        default=DEFAULT_API_URL,
        validation_alias=AliasChoices("GITHUB_API_URL"),
        description="GitHub Enterprise Server sets its own.",
    )
    server_url: str | None = Field(default=None, validation_alias=AliasChoices("GITHUB_SERVER_URL"))
    run_id: str | None = Field(default=None, validation_alias=AliasChoices("GITHUB_RUN_ID"))

    @property
    def run_url(self) -> str | None:
        """The job's page (log and artifacts), when the runner said where it is."""
        if not (self.server_url and self.run_id):
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"

    @field_validator("repository")
    @classmethod
    def _owner_slash_name(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", value):
            raise ValueError(f"must be owner/name, not {value!r}")
        return value


_ENV_NAMES = {
    "token": "GITHUB_TOKEN",
    "repository": "GITHUB_REPOSITORY",
    "event_path": "GITHUB_EVENT_PATH",
    "api_url": "GITHUB_API_URL",
}
_HOW_TO_SET = {"GITHUB_TOKEN": "pass it to the step (env: GITHUB_TOKEN: ${{ github.token }})"}


def read_github_env() -> GitHubEnv:
    """The runner's GitHub variables; one ConfigError line naming the first missing or bad one."""
    try:
        return GitHubEnv()
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = str(first["loc"][0]) if first["loc"] else ""
        name = _ENV_NAMES.get(loc, loc)
        if first["type"] == "missing":
            how = _HOW_TO_SET.get(name, "run this inside a GitHub Actions job, which sets it")
            raise ConfigError(f"{name} is not set; {how}") from None
        raise ConfigError(f"{name} {str(first['msg']).removeprefix('Value error, ')}") from None


def pull_request_number(event_path: Path) -> int:
    """The pull request's number from a pull_request (or pull_request_target) event file."""
    data = load_json_text(read_utf8(event_path, error=InputError), source=str(event_path), error=InputError)
    pull = data.get("pull_request") if isinstance(data, dict) else None
    number = pull.get("number") if isinstance(pull, dict) else None
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise InputError(
            "not a pull_request event (no pull_request.number); run this on: pull_request", path=event_path
        )
    return number


class StickyResult(BaseModel):
    """What posting did: made the comment, rewrote it, or found it already saying the same."""

    action: Literal["created", "updated", "unchanged"]
    comment_id: int
    url: str = Field(description="The comment's html_url, for the job log.")


class GitHubAPIError(InfraError):
    """GitHub answered an error status; `status` lets a caller tell 'not yours to edit' from an outage."""

    def __init__(self, message: str, *, status: int):
        self.status = status
        super().__init__(message)


class GitHubClient:
    """The three issue-comment endpoints, over httpx, with every failure as one redacted InfraError."""

    def __init__(self, *, api_url: str, repository: str, token: str, transport: httpx.BaseTransport | None = None):
        self._api_url = api_url.rstrip("/")
        self._repository = repository
        self._token = token
        self._http = httpx.Client(
            base_url=self._api_url,
            timeout=TIMEOUT_S,
            transport=transport,
            follow_redirects=False,  # a redirect elsewhere would carry the token with it
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "ratchet-ci",
            },
        )

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._http.close()

    def list_comments(self, issue: int) -> list[dict[str, Any]]:
        """Every comment on the issue or pull request, following the Link header's rel="next"."""
        url: str | None = f"/repos/{self._repository}/issues/{issue}/comments?per_page={PER_PAGE}"
        comments: list[dict[str, Any]] = []
        for _ in range(_MAX_PAGES):
            if url is None:
                return comments
            response = self._send("GET", url)
            page = response.json()
            if not isinstance(page, list):
                raise InfraError(f"GitHub API GET {self._path(url)} answered something that is not a list of comments")
            comments.extend(c for c in page if isinstance(c, dict))
            url = response.links.get("next", {}).get("url")
        raise InfraError(f"GitHub API listed more than {_MAX_PAGES} pages of comments on #{issue}; giving up")

    def create_comment(self, issue: int, body: str) -> dict[str, Any]:
        return self._object(self._send("POST", f"/repos/{self._repository}/issues/{issue}/comments", body))

    def update_comment(self, comment_id: int, body: str) -> dict[str, Any]:
        return self._object(self._send("PATCH", f"/repos/{self._repository}/issues/comments/{comment_id}", body))

    def _send(self, method: str, url: str, body: str | None = None) -> httpx.Response:
        path = self._path(url)
        if not self._same_host(url):
            raise InfraError(f"GitHub API pointed {method} {path} at another host; refusing to send the token there")
        try:
            response = self._http.request(method, url, json=None if body is None else {"body": body})
        except httpx.HTTPError as exc:
            raise InfraError(self._redact(f"cannot reach the GitHub API at {self._api_url}: {exc}")) from None
        if response.status_code >= 400:
            raise GitHubAPIError(
                self._redact(
                    f"GitHub API {method} {path} answered {response.status_code}: "
                    f"{_github_message(response)}{_hint(response.status_code)}"
                ),
                status=response.status_code,
            )
        return response

    def _object(self, response: httpx.Response) -> dict[str, Any]:
        data = response.json()
        if not isinstance(data, dict) or not isinstance(data.get("id"), int):
            raise InfraError(
                f"GitHub API {response.request.method} {self._path(str(response.request.url))} "
                "answered without a comment id"
            )
        return data

    def _same_host(self, url: str) -> bool:
        return not url.startswith(("http://", "https://")) or httpx.URL(url).host == httpx.URL(self._api_url).host

    def _path(self, url: str) -> str:
        return httpx.URL(url).path if url.startswith(("http://", "https://")) else url.split("?", 1)[0]

    def _redact(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text


def _github_message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.reason_phrase or "no message"
    message = data.get("message") if isinstance(data, dict) else None
    return str(message) if message else response.reason_phrase or "no message"


def _hint(status: int) -> str:
    if status in (401, 403, 404):
        return "; check the token and the job's permissions (pull-requests: write)"
    return ""


def post_sticky_comment(client: GitHubClient, issue: int, body: str, *, key: str) -> StickyResult:
    """Create this key's comment on the pull request, or rewrite the one an earlier run made.

    A comment that starts with the marker but that the token may not edit (403: a person pasted
    the marker) is skipped, so we need not know which login the token posts as.
    """
    marker = sticky_marker(key)
    text = f"{marker}\n{body}"
    for ours in (c for c in client.list_comments(issue) if str(c.get("body") or "").startswith(marker)):
        if ours.get("body") == text:
            return StickyResult(action="unchanged", comment_id=ours["id"], url=str(ours.get("html_url", "")))
        try:
            updated = client.update_comment(ours["id"], text)
        except GitHubAPIError as exc:
            if exc.status == 403:
                continue
            raise
        return StickyResult(action="updated", comment_id=updated["id"], url=str(updated.get("html_url", "")))
    made = client.create_comment(issue, text)
    return StickyResult(action="created", comment_id=made["id"], url=str(made.get("html_url", "")))
