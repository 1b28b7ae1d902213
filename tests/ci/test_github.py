"""The sticky comment against a fake GitHub REST API on loopback: found again, paginated, redacted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ratchet.ci.github import (
    GitHubClient,
    post_sticky_comment,
    pull_request_number,
    read_github_env,
    sticky_marker,
)
from ratchet.core.errors import ConfigError, InfraError, InputError
from tests.helpers.fake_github import BOT, FakeGitHub

TOKEN = "ghs_fake_token_0123456789"


def client(gh: FakeGitHub, token: str = TOKEN) -> GitHubClient:
    return GitHubClient(api_url=gh.base_url, repository=gh.repo, token=token)


def test_the_first_post_creates_and_the_second_updates_in_place_behind_pagination() -> None:
    with FakeGitHub(token=TOKEN, page_size=2) as gh:
        for n in range(5):
            gh.seed(7, f"review note {n}")
        with client(gh) as api:
            first = post_sticky_comment(api, 7, "BLOCK body", key="cascade")
            for n in range(3):
                gh.seed(7, f"later note {n}")
            second = post_sticky_comment(api, 7, "PASS body", key="cascade")
            third = post_sticky_comment(api, 7, "PASS body", key="cascade")
        ours = [c for c in gh.comments(7) if c.author == BOT]
    assert (first.action, second.action, third.action) == ("created", "updated", "unchanged")
    assert first.comment_id == second.comment_id == third.comment_id == ours[0].id
    assert len(ours) == 1
    assert ours[0].body == "<!-- ratchet:sticky config=cascade -->\nPASS body"
    assert second.url.endswith(f"/acme/skills/pull/7#issuecomment-{ours[0].id}")
    # three list pages (5 + 1 comments at 2 a page), then a PATCH; the unchanged run only lists
    methods = [m for m, _, _ in gh.requests]
    assert methods == ["GET"] * 3 + ["POST"] + ["GET"] * 5 + ["PATCH"] + ["GET"] * 5


def test_two_configs_keep_two_comments_and_a_quoted_marker_is_not_ours() -> None:
    with FakeGitHub(token=TOKEN) as gh:
        gh.seed(3, "> <!-- ratchet:sticky config=cascade -->\n> quoted by a reviewer")
        gh.seed(3, "<!-- ratchet:sticky config=cascade -->\nwritten by a person", author="octocat")
        with client(gh) as api:
            a = post_sticky_comment(api, 3, "cascade says", key="cascade")
            b = post_sticky_comment(api, 3, "nano says", key="nano_only")
            again = post_sticky_comment(api, 3, "cascade again", key="cascade")
        ours = {c.id: c.body for c in gh.comments(3) if c.author == BOT}
    assert (a.action, b.action, again.action) == ("created", "created", "updated")
    assert ours == {
        a.comment_id: "<!-- ratchet:sticky config=cascade -->\ncascade again",
        b.comment_id: "<!-- ratchet:sticky config=nano_only -->\nnano says",
    }


def test_the_marker_cannot_be_closed_early_by_a_config_name() -> None:
    assert sticky_marker("configs/x --> y.yaml") == "<!-- ratchet:sticky config=configs/x-y.yaml -->"


def test_bad_credentials_are_infra_errors_with_status_and_message_and_no_token() -> None:
    with (
        FakeGitHub(token=TOKEN) as gh,
        client(gh, token="ghs_wrong_secret_987") as api,
        pytest.raises(InfraError) as caught,
    ):
        post_sticky_comment(api, 7, "body", key="cascade")
    message = caught.value.one_line()
    assert message == (
        "GitHub API GET /repos/acme/skills/issues/7/comments answered 401: Bad credentials; "
        "check the token and the job's permissions (pull-requests: write)"
    )
    assert caught.value.exit_code == 3
    assert gh.requests[0][2] == "Bearer ghs_wrong_secret_987"


def test_an_error_that_echoes_the_token_is_redacted() -> None:
    with FakeGitHub(token=TOKEN) as gh, client(gh) as api:
        gh.fail_next(500, f"internal error for token {TOKEN}")
        with pytest.raises(InfraError) as caught:
            post_sticky_comment(api, 7, "body", key="cascade")
    assert TOKEN not in str(caught.value)
    assert "answered 500: internal error for token ***" in caught.value.one_line()


def test_an_unreachable_api_is_an_infra_error_naming_the_host() -> None:
    with FakeGitHub(token=TOKEN) as gh:
        url = gh.base_url
    with GitHubClient(api_url=url, repository="acme/skills", token=TOKEN) as api, pytest.raises(InfraError) as caught:
        post_sticky_comment(api, 7, "body", key="cascade")
    assert caught.value.one_line().startswith(f"cannot reach the GitHub API at {url}: ")
    assert TOKEN not in str(caught.value)


def event(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_pr_number_comes_from_the_pull_request_event(tmp_path: Path) -> None:
    assert (
        pull_request_number(event(tmp_path, {"action": "synchronize", "number": 12, "pull_request": {"number": 12}}))
        == 12
    )


def test_an_event_that_is_not_a_pull_request_is_refused(tmp_path: Path) -> None:
    path = event(tmp_path, {"ref": "refs/heads/main", "pusher": {"name": "x"}})
    with pytest.raises(InputError) as caught:
        pull_request_number(path)
    assert caught.value.one_line() == (
        f"{path}: not a pull_request event (no pull_request.number); run this on: pull_request"
    )
    with pytest.raises(InputError, match="not valid JSON"):
        pull_request_number(_write(tmp_path, "{"))


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_environment_is_one_config_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "GITHUB_API_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/skills")
    monkeypatch.setenv("GITHUB_EVENT_PATH", "/tmp/event.json")
    with pytest.raises(ConfigError) as caught:
        read_github_env()
    assert caught.value.one_line() == (
        "GITHUB_TOKEN is not set; pass it to the step (env: GITHUB_TOKEN: ${{ github.token }})"
    )
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_REPOSITORY", "no-slash")
    with pytest.raises(ConfigError, match=r"^GITHUB_REPOSITORY must be owner/name, not 'no-slash'$"):
        read_github_env()
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/skills")
    env = read_github_env()
    assert (env.api_url, env.repository, env.token.get_secret_value()) == (
        "https://api.github.com",
        "acme/skills",
        TOKEN,
    )
    assert TOKEN not in repr(env)
