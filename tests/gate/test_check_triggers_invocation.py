"""An edit that stops the model from picking a skill itself is a catalog change, however it is written: Claude
Code's `disable-model-invocation: true` in the frontmatter, or Codex's `agents/openai.yaml` with
`policy.allow_implicit_invocation: false`. Both run the trigger step, and the skill's should-fire queries stop
firing (R6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gate.test_check_triggers import TRIAGE_MD, check, with_triggers
from tests.helpers.gitrepo import commit, git

POLICY = "skills/github-triage/agents/openai.yaml"


def _codex_policy(repo: Path) -> dict[str, str]:
    return {POLICY: "policy:\n  allow_implicit_invocation: false\n"}


def _frontmatter(repo: Path) -> dict[str, str]:
    text = (repo / TRIAGE_MD).read_text(encoding="utf-8")
    return {TRIAGE_MD: text.replace("\ndescription:", "\ndisable-model-invocation: true\ndescription:", 1)}


@pytest.mark.parametrize("edit", [_codex_policy, _frontmatter], ids=["codex-policy", "frontmatter"])
def test_a_skill_the_model_may_no_longer_pick_is_caught_on_its_should_fire_queries(
    demo_repo: Path, edit: object
) -> None:
    with_triggers(demo_repo)
    git(demo_repo, "checkout", "-q", "-b", "edit/invocation", "main")
    head = commit(demo_repo, edit(demo_repo), "github-triage: explicit mention only")  # type: ignore[operator]
    git(demo_repo, "checkout", "-q", "main")
    verdict = check(demo_repo, head)
    assert verdict.triggers is not None, verdict.summary
    worse = verdict.triggers.of("worse")
    assert worse and {q.regression for q in worse} == {"R6"}
    assert verdict.decision == "BLOCK"
