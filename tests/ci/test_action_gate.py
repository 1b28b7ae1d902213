"""action.yml's run steps end to end, as a runner runs them, against a fake GitHub API on loopback.

The pull request is the demo repository's: its origin is a bare clone, the runner's checkout a
shallow clone of the PR branch (actions/checkout's default depth), so the merge base must be found
by the action itself. Three runs on PR 7: BLOCK (creates the comment), BLOCK again on a new run
(updates it in place), then the branch force-pushed to a cosmetic edit: PASS (rewrites it).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.action_runner import Job, run_action
from tests.helpers.fake_github import BOT, FakeGitHub
from tests.helpers.gitrepo import git, git_env

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
TOKEN = "ghs_e2e_secret_token_ABCDEF123"
PR = 7
EDIT = {edit.branch: edit for edit in EDITS}


@pytest.fixture
def origin(demo_repo: Path, tmp_path: Path) -> Path:
    for branch in ("edit/new-side-effect", "edit/cosmetic"):
        apply_edit(demo_repo, EDIT[branch])
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(demo_repo), str(bare))
    return bare


def run_pr(
    tmp_path: Path,
    origin: Path,
    gh: FakeGitHub,
    *,
    branch: str,
    run_id: int,
    token: str = TOKEN,
    inputs: dict[str, str] | None = None,
    push_before: str | None = None,
) -> tuple[Job, Path]:
    """One workflow run on a fresh runner: check out the PR branch shallowly, run the action.

    push_before: a push event of `branch` instead (github.event.before = push_before)."""
    run = tmp_path / f"run-{run_id}"
    workspace, temp = run / "workspace", run / "runner-temp"
    temp.mkdir(parents=True)
    git(tmp_path, "clone", "--quiet", "--depth", "1", "--branch", branch, f"file://{origin}", str(workspace))
    event = run / "event.json"
    payload: dict[str, object] = {
        "action": "synchronize",
        "number": PR,
        "pull_request": {"number": PR, "base": {"ref": "main"}},
    }
    if push_before is not None:
        payload = {"ref": f"refs/heads/{branch}", "before": push_before}
        git(workspace, "fetch", "--quiet", "--unshallow")
    event.write_text(json.dumps(payload), encoding="utf-8")
    name, base_ref = ("push", "") if push_before is not None else ("pull_request", "main")
    env = {k: v for k, v in git_env().items() if not k.startswith(("RATCHET_", "GITHUB_", "RUNNER_"))}
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    env.update(
        {
            "GITHUB_ACTIONS": "true",
            "CI": "true",
            "GITHUB_EVENT_NAME": name,
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": gh.repo,
            "GITHUB_API_URL": gh.base_url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_RUN_ID": str(run_id),
            "GITHUB_BASE_REF": base_ref,
            "GITHUB_STEP_SUMMARY": str(run / "summary.md"),
            "RUNNER_TEMP": str(temp),
            "RUNNER_OS": "Linux",
        }
    )
    job = run_action(
        ACTION,
        workspace,
        with_=inputs or {},
        github={
            "action_path": str(ROOT),
            "base_ref": base_ref,
            "token": token,
            "event_name": name,
            "sha": git(workspace, "rev-parse", "HEAD").strip(),
            "event.before": push_before or "",
        },
        runner={"temp": str(temp), "os": "Linux"},
        env=env,
        skip={"Install Ratchet"},
    )
    return job, run


def wall_time_aside(body: str) -> str:
    """The comment without its wall time, the one part of a verdict that is not reproducible."""
    return re.sub(r" · [0-9.]+ s · ", " · <wall> s · ", body)


def ours(gh: FakeGitHub) -> list[str]:
    return [c.body for c in gh.comments(PR) if c.author == BOT]


def test_three_runs_keep_one_comment_block_then_pass(origin: Path, tmp_path: Path) -> None:
    main = git(origin, "rev-parse", "main").strip()
    with FakeGitHub(token=TOKEN, page_size=2) as gh:
        for n in range(3):
            gh.seed(PR, f"review note {n}")

        first, run1 = run_pr(tmp_path, origin, gh, branch="edit/new-side-effect", run_id=101)
        assert first.exit_code("Decide") == 1, first.log
        assert first.outputs["base"]["sha"] == main
        assert (first.outputs["check"]["decision"], first.outputs["check"]["exit-code"]) == ("BLOCK", "1")
        assert first.outputs["comment"]["exit-code"] == "0"
        assert "created comment " in first.log and f"on #{PR}: https://github.example/" in first.log
        [block] = ours(gh)
        assert block.startswith("<!-- ratchet:sticky config=cascade -->\n❌ **Ratchet: BLOCK**")
        assert "| new side-effecting call email\\_send \\[send\\] | hard | regression x9 |" in block
        # The edited skill's mutation score, read at the merge base: the demo has none (docs/mutate.md).
        assert "- fx-expense-converter: none measured: `ratchet mutate fx-expense-converter` saves it" in block
        assert block.endswith(
            "<sub>[job log and artifacts](https://github.example/acme/skills/actions/runs/101)</sub>\n"
        )
        comment_id = next(c.id for c in gh.comments(PR) if c.author == BOT)

        second, _ = run_pr(tmp_path, origin, gh, branch="edit/new-side-effect", run_id=102)
        assert second.exit_code("Decide") == 1
        assert "updated comment " in second.log
        [again] = ours(gh)
        assert wall_time_aside(again) == wall_time_aside(block.replace("/runs/101)", "/runs/102)"))

        third, _ = run_pr(tmp_path, origin, gh, branch="edit/cosmetic", run_id=103)
        assert third.exit_code("Decide") == 0, third.log
        assert (third.outputs["check"]["decision"], third.outputs["check"]["exit-code"]) == ("PASS", "0")
        [passed] = ours(gh)
        assert passed.startswith("<!-- ratchet:sticky config=cascade -->\n✅ **Ratchet: PASS**")
        assert "BLOCK" not in passed and "/runs/103)" in passed

        assert [c.id for c in gh.comments(PR) if c.author == BOT] == [comment_id]
        assert [c.body for c in gh.comments(PR) if c.author != BOT] == [f"review note {n}" for n in range(3)]
        assert [m for m, _, _ in gh.requests].count("POST") == 1
        assert [m for m, _, _ in gh.requests].count("PATCH") == 2
        assert {auth for _, _, auth in gh.requests} == {f"Bearer {TOKEN}"}

    outputs = Path(first.outputs["check"]["dir"])
    assert sorted(p.name for p in outputs.iterdir()) == ["check.stderr", "comment.md", "junit.xml", "verdict.json"]
    assert json.loads((outputs / "verdict.json").read_text(encoding="utf-8"))["decision"] == "BLOCK"
    assert (run1 / "summary.md").read_text(encoding="utf-8") == (outputs / "comment.md").read_text(encoding="utf-8")
    uses = {name: (action, with_) for name, action, with_ in first.uses}
    assert uses["Upload Ratchet outputs"] == (
        "actions/upload-artifact@v4",
        {"name": "ratchet-outputs", "path": str(outputs), "if-no-files-found": "ignore"},
    )
    assert uses["Restore RATCHET_HOME"][1]["key"] == f"ratchet-Linux-{main}"
    assert uses["Restore RATCHET_HOME"][1]["path"] == str(run1 / "runner-temp" / "ratchet-home")
    for job in (first, second, third):
        assert TOKEN not in job.log
    for path in tmp_path.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            assert TOKEN.encode() not in path.read_bytes(), path


def test_a_bad_token_fails_a_passing_job_as_infrastructure_without_printing_it(origin: Path, tmp_path: Path) -> None:
    wrong = "ghs_not_the_right_one_42"
    with FakeGitHub(token=TOKEN) as gh:
        job, _ = run_pr(tmp_path, origin, gh, branch="edit/cosmetic", run_id=201, token=wrong)
    assert job.outputs["check"]["decision"] == "PASS"
    assert job.outputs["comment"]["exit-code"] == "3"
    assert job.exit_code("Decide") == 3
    assert (
        "error: GitHub API GET /repos/acme/skills/issues/7/comments answered 401: Bad credentials; "
        "check the token and the job's permissions (pull-requests: write)"
    ) in job.log
    assert wrong not in job.log and TOKEN not in job.log


def test_a_harness_other_than_minimal_is_refused_before_the_check(origin: Path, tmp_path: Path) -> None:
    with FakeGitHub(token=TOKEN) as gh:
        job, _ = run_pr(tmp_path, origin, gh, branch="edit/cosmetic", run_id=301, inputs={"harness": "claude_code"})
    assert job.exit_code("Merge base") == 2
    assert "::error::harness 'claude_code' is not supported yet; use harness: minimal" in job.log
    assert job.exit_code("ratchet check") is None
    assert "comment: none, the check did not run" in job.log
    assert job.exit_code("Decide") == 1
    assert gh.requests == []


def test_a_push_to_main_gates_the_pushed_range_saves_the_cache_and_comments_nowhere(
    origin: Path, tmp_path: Path
) -> None:
    main = git(origin, "rev-parse", "main").strip()
    with FakeGitHub(token=TOKEN) as gh:
        job, run = run_pr(tmp_path, origin, gh, branch="edit/cosmetic", run_id=401, push_before=main)
    assert job.exit_code("Decide") == 0, job.log
    assert job.outputs["base"]["sha"] == main
    assert job.outputs["check"]["decision"] == "PASS"
    assert "comment: none on a push event (only a pull request has one)" in job.log
    assert gh.requests == []
    head = git(origin, "rev-parse", "edit/cosmetic").strip()
    save = next(with_ for name, _, with_ in job.uses if name == "Save RATCHET_HOME")
    assert save == {"path": str(run / "runner-temp" / "ratchet-home"), "key": f"ratchet-Linux-{head}"}
    assert (run / "runner-temp" / "ratchet-home").is_dir(), "the check filled the folder the cache saves"
