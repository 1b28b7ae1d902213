"""The Action's `config:` input as a path in the repository: read from the merge base, never the PR's copy.

The pull request softens `.github/ratchet-gate.yaml` (Level 0 off, nothing sure enough to block) in
the same commit that adds the demo's `email_send` step. Run as a runner runs action.yml, with the
runner's environment (`CI=true`, no `on-error` input), the job fails on BLOCK and the verdict, the
comment and the JUnit report name the config change first.
"""

from __future__ import annotations

import json
from pathlib import Path

from ratchet.data import packaged_config
from ratchet.setup.demo import EDITS
from tests.ci.test_action_gate import ours, run_pr
from tests.helpers.fake_github import FakeGitHub
from tests.helpers.gitrepo import commit, git

GATE = ".github/ratchet-gate.yaml"
TOKEN = "ghs_e2e_secret_token_ABCDEF123"
SETTINGS_NOTE = "the gate's own settings changed ({}): checked with the base's settings; review the change"


def test_a_pr_that_softens_its_config_file_is_blocked_by_the_action(demo_repo: Path, tmp_path: Path) -> None:
    gate = packaged_config("cascade").read_text(encoding="utf-8")
    commit(demo_repo, {GATE: gate}, "the team's gate config")
    git(demo_repo, "checkout", "-q", "-b", "soften", "main")
    edit = next(e for e in EDITS if e.branch == "edit/new-side-effect")
    skill = demo_repo / "skills" / edit.skill / "SKILL.md"
    soft = gate.replace("level0: true", "level0: false").replace("block_confidence: 0.7", "block_confidence: 1.0")
    commit(
        demo_repo,
        {GATE: soft, f"skills/{edit.skill}/SKILL.md": edit.apply(skill.read_text(encoding="utf-8"))},
        "soften the gate and email finance",
    )
    git(demo_repo, "checkout", "-q", "main")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(demo_repo), str(origin))

    with FakeGitHub(token=TOKEN) as gh:
        job, _ = run_pr(tmp_path, origin, gh, branch="soften", run_id=501, inputs={"config": GATE})
        assert job.exit_code("Decide") == 1, job.log
        assert (job.outputs["check"]["decision"], job.outputs["check"]["exit-code"]) == ("BLOCK", "1")
        [comment] = ours(gh)

    outputs = Path(job.outputs["check"]["dir"])
    verdict = json.loads((outputs / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["settings_changed"] == [GATE]
    assert verdict["summary"].startswith(SETTINGS_NOTE.format(GATE) + "; ")
    assert {p["decided_by"] for p in verdict["pairs"] if p["outcome"] == "regression"} == {"level0"}
    lines = comment.splitlines()
    assert lines[1].startswith("❌ **Ratchet: BLOCK** · the gate's own settings changed (.github/ratchet-gate.yaml)")
    assert "- **settings changed:** .github/ratchet-gate.yaml (checked with the base's settings)" in lines[:8]
    assert f'name="settings changed: {GATE}"' in (outputs / "junit.xml").read_text(encoding="utf-8")
