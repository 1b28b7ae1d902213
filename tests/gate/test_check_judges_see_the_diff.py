"""`ratchet check` hands its behavioural diff to the judges: each judge request fences a `skill_diff` section.

Live, against a local OpenAI-compatible server that records what it is sent (the simulated judges
ignore the section, so only a real request shows it): the judges of an edit that renames a label
get the diff's own lines for that skill, the same text ratchet.diff reads from git.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.gate import resolve_gate_config
from ratchet.core.fence import fence_token, read_fenced
from ratchet.diff.edit import diff_revisions
from ratchet.gate.check import check_edit
from ratchet.gate.judge_prompt import SKILL_DIFF, skill_diff_text
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gitrepo import commit

KEY_ENV = "RATCHET_TEST_KEY"
EDIT = {edit.branch: edit for edit in EDITS}["edit/changed-argument"]


def go_live(repo: Path, server: FakeOpenAI) -> str:
    """Every tier on the local server, committed as the base (a check reads ratchet.yaml from the base)."""
    tier = f'{{model: openai/fake-model, api_base: "{server.base_url}", api_key_env: {KEY_ENV}, max_tokens: 64}}'
    return commit(
        repo,
        {
            "ratchet.yaml": (
                "schema_version: 1\nupstream: live\nretry: {max_attempts: 1, base_delay_s: 0.01, max_delay_s: 0.02}\n"
                "paths: {skills: skills, tasks: tasks.yaml, goldens: goldens, world: world, workspaces: workspaces}\n"
                f"tiers:\n  agent: {tier}\n  nano: {tier}\n  super: {tier}\n  ultra: {tier}\n"
                "prices:\n  openai/fake-model: {input: 0.000001, output: 0.000002}\n"
            )
        },
        "live",
    )


def test_a_live_checks_judges_get_the_edits_skill_diff(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "live-home"))
    with FakeOpenAI() as server:
        base = go_live(demo_repo, server)
        apply_edit(demo_repo, EDIT)
        check_edit(demo_repo, base=base, head=EDIT.branch, config=resolve_gate_config("nano_only"), on_error="warn")
    expected = skill_diff_text(diff_revisions(demo_repo, base=base, head=EDIT.branch).skills)
    assert expected is not None and "priority/normal" in expected and "priority/medium" in expected
    judged = [r["body"]["messages"] for r in server.requests if "Fence token" in r["body"]["messages"][0]["content"]]
    assert judged, "the agent's answers differ from the goldens, so the judges were asked"
    for messages in judged:
        nonce = fence_token(messages[0]["content"])
        assert nonce is not None
        assert read_fenced(messages[1]["content"], nonce)[SKILL_DIFF] == expected
