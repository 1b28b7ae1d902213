"""`ratchet check` end to end on real temp git repositories and the simulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.gate.check import check_edit
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.gitrepo import commit, git, snapshot_git_state, stage

runner = CliRunner()
EDIT = {edit.branch: edit for edit in EDITS}

LEVEL0_ONLY = resolve_gate_config("level0_only")


def run_check(repo: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["check", "--repo", str(repo), *args])
    return result.exit_code, result.stdout, result.stderr


def test_no_skill_changed_is_pass_for_free(demo_repo: Path) -> None:
    base = git(demo_repo, "rev-parse", "HEAD")
    commit(demo_repo, {"NOTES.md": "hello\n"}, "docs only")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY)
    assert (verdict.decision, verdict.summary, verdict.cost_usd, verdict.pairs) == ("PASS", "no skill changed", 0.0, [])


@pytest.mark.parametrize("branch", [e.branch for e in EDITS])
def test_demo_edits_get_their_decisions(demo_repo: Path, branch: str) -> None:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT[branch])
    verdict = check_edit(demo_repo, base=base, head=branch, config=resolve_gate_config("cascade"))
    assert verdict.decision == EDIT[branch].expected, verdict.summary
    assert verdict.skills_changed == [EDIT[branch].skill]
    if branch == "edit/cosmetic":  # nothing the model reads changed: nothing to replay (ratchet.gate.static)
        assert (verdict.pairs, verdict.cost_usd) == ([], 0.0)
        assert verdict.summary.startswith("no change in instructions: github-triage (HTML comments")
    else:
        assert verdict.pairs, "the edited skill's goldens were replayed"


def test_a_cosmetic_edit_passes_at_zero_cost_without_a_replay(demo_repo: Path) -> None:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT["edit/cosmetic"])
    verdict = check_edit(demo_repo, base=base, head="edit/cosmetic", config=LEVEL0_ONLY)
    assert verdict.decision == "PASS"
    assert (verdict.pairs, verdict.cost_usd, verdict.goldens_total) == ([], 0.0, 23)


def test_block_names_the_offending_call_and_exits_1(demo_repo: Path) -> None:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT["edit/new-side-effect"])
    code, out, _ = run_check(demo_repo, "--base", base, "--head", "edit/new-side-effect", "--json")
    assert code == 1
    verdict = json.loads(out)
    assert verdict["decision"] == "BLOCK"
    assert "new send call email_send(" in verdict["summary"]


def test_level0_only_warns_on_a_difference_and_exits_0(demo_repo: Path) -> None:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT["edit/changed-argument"])
    code, out, _ = run_check(demo_repo, "--base", base, "--head", "edit/changed-argument", "--level0-only")
    assert code == 0
    assert "WARN" in out and "needs judging" in out and "priority/medium" in out


def test_cascade_confirms_the_argument_change_and_blocks(demo_repo: Path) -> None:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT["edit/changed-argument"])
    code, out, _ = run_check(demo_repo, "--base", base, "--head", "edit/changed-argument")
    assert code == 1
    # Nano settles the regressions it is surest of on the changed argument; Super and Ultra confirm the rest (ADR
    # 0026). The simulated judges seed their errors on what they read, the state diff included (docs/level0.md).
    assert "BLOCK" in out and "decided by: nano x4, super x1, ultra x1" in out


def test_staged_edit_is_checked_and_the_repo_is_untouched(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home-outside-the-repo"))
    skill = demo_repo / "skills" / "fx-expense-converter" / "SKILL.md"
    edited = EDIT["edit/new-side-effect"].apply(skill.read_text(encoding="utf-8"))
    stage(demo_repo, {"skills/fx-expense-converter/SKILL.md": edited})
    before = snapshot_git_state(demo_repo)
    code, out, _ = run_check(demo_repo, "--base", "HEAD", "--staged", "--json")
    assert code == 1 and json.loads(out)["head"] == "<index>"
    assert snapshot_git_state(demo_repo) == before


def test_check_under_hook_environment_leaves_repo_identical(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home-outside-the-repo"))
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT["edit/changed-argument"])
    before = snapshot_git_state(demo_repo)
    monkeypatch.setenv("GIT_DIR", str(demo_repo / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(demo_repo / ".git" / "index"))
    monkeypatch.chdir(demo_repo)
    verdict = check_edit(demo_repo, base=base, head="edit/changed-argument", config=LEVEL0_ONLY)
    assert verdict.decision == "WARN"  # Level 0 only: no judge
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert snapshot_git_state(demo_repo) == before


def test_bad_inputs_are_one_line_exit_2(demo_repo: Path, tmp_path: Path) -> None:
    base = git(demo_repo, "rev-parse", "main")
    commit(demo_repo, {"skills/github-triage/SKILL.md": "no frontmatter here\n"}, "broken skill")
    code, out, err = run_check(demo_repo, "--base", base)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "skills/github-triage/SKILL.md@" in err and ":1: " in err and "frontmatter" in err

    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    code, _, err = run_check(outside, "--base", "HEAD")
    assert code == 2 and err.startswith("error: ") and "not a git repository" in err

    code, _, err = run_check(demo_repo, "--base", "no-such-rev")
    assert code == 2 and "no-such-rev" in err


def test_malformed_goldens_tasks_and_config_name_the_file(demo_repo: Path) -> None:
    golden = next((demo_repo / "goldens" / "github-triage").glob("*.json"))
    rel = golden.relative_to(demo_repo).as_posix()
    commit(demo_repo, {rel: "{ not json"}, "corrupt golden")
    base = git(demo_repo, "rev-parse", "HEAD")
    apply_edit(demo_repo, EDIT["edit/changed-argument"])
    code, _, err = run_check(demo_repo, "--base", base, "--head", "edit/changed-argument")
    assert code == 2 and golden.name in err and ":1: not valid JSON" in err

    # ratchet.yaml is read from the base (docs/adr/0011), so it is the base's that must be broken
    broken = commit(demo_repo, {"ratchet.yaml": "paths: [unclosed\n"}, "broken config")
    code, _, err = run_check(demo_repo, "--base", broken, "--head", "edit/changed-argument")
    assert code == 2 and f"ratchet.yaml@{broken[:10]}:" in err and "not valid YAML" in err


def test_malformed_tasks_yaml_names_file_and_line(demo_repo: Path) -> None:
    text = (demo_repo / "tasks.yaml").read_text(encoding="utf-8")
    commit(demo_repo, {"tasks.yaml": text.replace("prompt:", "promptt:", 1)}, "typo in tasks")
    base = git(demo_repo, "rev-parse", "HEAD")
    apply_edit(demo_repo, EDIT["edit/changed-argument"])
    code, _, err = run_check(demo_repo, "--base", base, "--head", "edit/changed-argument")
    assert code == 2 and f"tasks.yaml@{base[:10]}:" in err and err.count("\n") == 1
