"""`ratchet ci comment` through the CLI: exact lines and exit codes (0 posted, 2 input, 3 GitHub)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.gate.models import Verdict
from tests.helpers.fake_github import BOT, FakeGitHub

runner = CliRunner()
TOKEN = "ghs_cli_secret_0123456789"
VERDICT = Verdict(
    base="a" * 40,
    head="b" * 40,
    skills_changed=["github-triage"],
    decision="PASS",
    summary="no difference from the goldens",
    goldens_total=3,
    gate_config="nano_only",
)


@pytest.fixture
def runner_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {"number": 7}}), encoding="utf-8")
    for name in ("GITHUB_API_URL", "GITHUB_SERVER_URL", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/skills")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    (tmp_path / "verdict.json").write_text(VERDICT.to_json(), encoding="utf-8")
    return tmp_path


def comment(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["ci", "comment", *args])
    return result.exit_code, result.stdout, result.stderr


def test_posts_the_verdict_under_its_gate_configs_marker(runner_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeGitHub(token=TOKEN) as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.base_url)
        code, out, err = comment("--verdict", str(runner_env / "verdict.json"))
        [body] = [c.body for c in gh.comments(7) if c.author == BOT]
    assert (code, err) == (0, "")
    assert out == "created comment 1001 on #7: https://github.example/acme/skills/pull/7#issuecomment-1001\n"
    assert body.startswith("<!-- ratchet:sticky config=nano_only -->\n✅ **Ratchet: PASS** · no difference")
    assert "job log" not in body


def test_a_check_that_wrote_no_verdict_says_why_in_the_comment(
    runner_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (runner_env / "verdict.json").write_text("", encoding="utf-8")
    stderr = runner_env / "check.stderr"
    stderr.write_text("warming up\nerror: ratchet.yaml:3: tiers.nano.model must be a string\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.example")
    monkeypatch.setenv("GITHUB_RUN_ID", "55")
    with FakeGitHub(token=TOKEN) as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.base_url)
        code, _, _ = comment(
            "--verdict",
            str(runner_env / "verdict.json"),
            "--key",
            "cascade",
            "--check-exit",
            "2",
            "--check-stderr",
            str(stderr),
        )
        [body] = [c.body for c in gh.comments(7)]
    assert code == 0
    assert body == (
        "<!-- ratchet:sticky config=cascade -->\n"
        "⚠️ **Ratchet could not check this pull request** (exit 2: bad input: fix what the error names)\n\n"
        "> ratchet.yaml:3: tiers.nano.model must be a string\n\n"
        "<sub>[job log and artifacts](https://github.example/acme/skills/actions/runs/55)</sub>\n"
    )


def test_an_empty_verdict_without_the_checks_exit_is_bad_input(runner_env: Path) -> None:
    path = runner_env / "verdict.json"
    path.write_text("", encoding="utf-8")
    code, out, err = comment("--verdict", str(path))
    assert (code, out) == (2, "")
    assert err == f"error: {path}: holds no verdict; pass --check-exit (and --check-stderr) to report a failed check\n"


def test_missing_environment_and_a_push_event_are_one_line_exit_2(
    runner_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    code, _, err = comment("--verdict", str(runner_env / "verdict.json"))
    assert (code, err) == (
        2,
        "error: GITHUB_TOKEN is not set; pass it to the step (env: GITHUB_TOKEN: ${{ github.token }})\n",
    )
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    event = runner_env / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}), encoding="utf-8")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    code, _, err = comment("--verdict", str(runner_env / "verdict.json"))
    assert (code, err) == (
        2,
        f"error: {event}: not a pull_request event (no pull_request.number); run this on: pull_request\n",
    )


def test_a_github_failure_is_exit_3_with_status_and_message_and_no_token(
    runner_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeGitHub(token=TOKEN) as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.base_url)
        gh.fail_next(502, f"upstream said Bearer {TOKEN}")
        code, out, err = comment("--verdict", str(runner_env / "verdict.json"))
    assert (code, out) == (3, "")
    assert err == "error: GitHub API GET /repos/acme/skills/issues/7/comments answered 502: upstream said Bearer ***\n"
