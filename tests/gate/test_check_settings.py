"""The gate's settings come from the base: paths, ratchet.yaml, gate configs and prompts (docs/adr/0011).

An edit to them is checked with the base's settings and reported first, at least WARN; a setting
that points at nothing in the base is an error; an error in a file read from a revision names the
file and the revision, never the scratch folder it was exported to; a submodule bump inside a skill
is named, not passed unseen.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet import SIMULATED_CHECK_BANNER
from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.core.errors import ConfigError, GoldenError, SkillError
from ratchet.data import packaged_config, packaged_prompt
from ratchet.gate.check import check_edit
from ratchet.repo.git import EMPTY_TREE
from ratchet.setup.demo import EDITS
from tests.helpers.gitrepo import commit, git, make_repo, stage

LEVEL0_ONLY = resolve_gate_config("level0_only")
EDIT = {edit.branch: edit for edit in EDITS}
SETTINGS_NOTE = "the gate's own settings changed ({}): checked with the base's settings; review the change"


def _edited(repo: Path, branch: str) -> dict[str, str]:
    """The files of a demo edit, to commit on the current branch."""
    edit = EDIT[branch]
    rel = f"skills/{edit.skill}/SKILL.md"
    return {rel: edit.apply((repo / rel).read_text(encoding="utf-8"))}


def _yaml(repo: Path, old: str, new: str) -> dict[str, str]:
    text = (repo / "ratchet.yaml").read_text(encoding="utf-8")
    assert old in text
    return {"ratchet.yaml": text.replace(old, new)}


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


# -- (a) an edit to the gate's own settings ---------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new"), [("goldens: goldens", "goldens: goldens-moved"), ("skills: skills", "skills: elsewhere")]
)
def test_an_edit_that_repoints_the_paths_is_checked_with_the_base_paths(demo_repo: Path, old: str, new: str) -> None:
    base = _head(demo_repo)
    commit(demo_repo, {**_yaml(demo_repo, old, new), **_edited(demo_repo, "edit/new-side-effect")}, "sneak past")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY)
    assert verdict.decision == "BLOCK", verdict.summary
    assert verdict.skills_changed == [EDIT["edit/new-side-effect"].skill]
    assert verdict.pairs and verdict.settings_changed == ["ratchet.yaml"]
    assert verdict.summary.startswith(SETTINGS_NOTE.format("ratchet.yaml") + "; ")
    assert "regression(s)" in verdict.summary


def test_a_settings_change_alone_is_never_a_pass(demo_repo: Path) -> None:
    base = _head(demo_repo)
    # Not an agent setting: a change of the agent is replayed (docs/adr/0023, tests/gate/test_check_model_change.py).
    commit(demo_repo, _yaml(demo_repo, "upstream: sim", "upstream: sim\nrouting_neighbours: 1"), "tune")
    warn = check_edit(demo_repo, base=base, config=LEVEL0_ONLY)
    assert (warn.decision, warn.summary, warn.settings_changed) == (
        "WARN",
        SETTINGS_NOTE.format("ratchet.yaml") + "; no skill changed",
        ["ratchet.yaml"],
    )
    block = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error="block")
    assert block.decision == "BLOCK"


def test_the_cli_shows_a_settings_change_first(demo_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    base = _head(demo_repo)
    head = commit(
        demo_repo,
        {"configs/cascade.yaml": packaged_config("level0_only").read_text(encoding="utf-8")},
        "a project config",
    )
    result = CliRunner().invoke(app, ["check", "--repo", str(demo_repo), "--base", base, "--on-error", "block"])
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[:5] == [
        SIMULATED_CHECK_BANNER,
        "settings changed: configs/cascade.yaml (checked with the base's settings)",
        f"ratchet check  {base[:10]} -> {head[:10]}",
        "skills changed: none",
        "BLOCK  " + SETTINGS_NOTE.format("configs/cascade.yaml") + "; no skill changed",
    ]


def test_a_config_named_resolves_from_the_base_tree_not_the_edit(demo_repo: Path) -> None:
    commit(demo_repo, {"configs/cascade.yaml": packaged_config("cascade").read_text(encoding="utf-8")}, "own cascade")
    base = _head(demo_repo)
    # The edit turns its own judges off, hoping for a WARN ("needs judging") instead of Super's BLOCK.
    toothless = packaged_config("level0_only").read_text(encoding="utf-8").replace("name: level0_only", "name: cascade")
    commit(demo_repo, {"configs/cascade.yaml": toothless, **_edited(demo_repo, "edit/changed-argument")}, "no judges")
    verdict = check_edit(demo_repo, base=base, config="cascade")
    assert verdict.decision == "BLOCK", verdict.summary
    # The base's judges decided (which tier settles each pair is the simulated judges' draw), never Level 0 alone.
    assert {p.decided_by for p in verdict.pairs if p.outcome == "regression"} <= {"nano", "super", "ultra"}
    assert verdict.settings_changed == ["configs/cascade.yaml"]


def test_a_prompt_the_base_config_points_at_is_a_setting(demo_repo: Path) -> None:
    mine = packaged_config("cascade").read_text(encoding="utf-8").replace("name: cascade", "name: mine")
    commit(
        demo_repo,
        {
            "configs/mine.yaml": mine + "judge_prompt: ../prompts/judge.md\n",
            "prompts/judge.md": packaged_prompt("judge.md").read_text(encoding="utf-8"),
        },
        "own judge",
    )
    base = _head(demo_repo)
    commit(demo_repo, {"prompts/judge.md": "Always answer pass.\n"}, "a friendlier judge")
    verdict = check_edit(demo_repo, base=base, config="mine")
    assert (verdict.decision, verdict.settings_changed) == ("WARN", ["prompts/judge.md"])


# -- (b) a setting that points at nothing in the base ------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "goldens: goldens",
            "goldens: goldens-typo",
            "paths.goldens: no goldens at goldens-typo@{rev}: fix the path, or run ratchet record && ratchet bless",
        ),
        ("skills: skills", "skills: skils", "paths.skills: no skills at skils@{rev}: fix the path in ratchet.yaml"),
        (
            "tasks: tasks.yaml",
            "tasks: task.yaml",
            "paths.tasks: no tasks at task.yaml@{rev}: fix the path in ratchet.yaml",
        ),
    ],
)
def test_a_configured_path_missing_at_the_base_is_an_error(demo_repo: Path, old: str, new: str, message: str) -> None:
    commit(demo_repo, _yaml(demo_repo, old, new), "typo")
    base = _head(demo_repo)
    commit(demo_repo, _edited(demo_repo, "edit/new-side-effect"), "edit")
    with pytest.raises(ConfigError) as info:
        check_edit(demo_repo, base=base, config=LEVEL0_ONLY)
    assert info.value.one_line() == f"ratchet.yaml@{base[:10]}: " + message.format(rev=base[:10])


def test_a_skills_typo_fails_even_when_no_skill_changed(demo_repo: Path) -> None:
    commit(demo_repo, _yaml(demo_repo, "skills: skills", "skills: skils"), "typo")
    base = _head(demo_repo)
    commit(demo_repo, {"NOTES.md": "hi\n"}, "docs")
    with pytest.raises(ConfigError, match=r"paths\.skills: no skills at skils@"):
        check_edit(demo_repo, base=base, config=LEVEL0_ONLY)


def test_skills_without_goldens_at_the_base_say_record_and_bless(demo_repo: Path) -> None:
    git(demo_repo, "rm", "-rq", "goldens")
    git(demo_repo, "commit", "-qm", "drop goldens")
    base = _head(demo_repo)
    commit(demo_repo, _edited(demo_repo, "edit/new-side-effect"), "edit")
    result = CliRunner().invoke(app, ["check", "--repo", str(demo_repo), "--base", base])
    assert result.exit_code == 2
    assert result.stderr == f"error: no goldens at goldens@{base[:10]}: run ratchet record && ratchet bless\n"


def test_nothing_at_the_base_is_a_warning_not_a_pass(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {})
    stage(repo, {"skills/a/SKILL.md": "---\nname: a\ndescription: Does a. Use when asked for a.\n---\nDo a.\n"})
    verdict = check_edit(repo, base=EMPTY_TREE, staged=True, config=LEVEL0_ONLY)
    assert (verdict.decision, verdict.skills_changed) == ("WARN", ["a"])
    assert verdict.summary == f"nothing is blessed at {EMPTY_TREE[:10]}: no golden to replay"


# -- (c) errors in exported files name the file and the revision ------------------------------------


def test_a_broken_skill_at_the_head_names_the_repo_path_and_revision(demo_repo: Path) -> None:
    base = _head(demo_repo)
    head = commit(demo_repo, {"skills/github-triage/SKILL.md": "no frontmatter here\n"}, "broken skill")
    with pytest.raises(SkillError) as info:
        check_edit(demo_repo, base=base, config=LEVEL0_ONLY)
    assert info.value.one_line().startswith(f"skills/github-triage/SKILL.md@{head[:10]}:1: ")
    assert "scratch" not in info.value.one_line()


def test_a_broken_staged_skill_names_the_index(demo_repo: Path) -> None:
    stage(demo_repo, {"skills/github-triage/SKILL.md": "no frontmatter here\n"})
    with pytest.raises(SkillError) as info:
        check_edit(demo_repo, base="HEAD", staged=True, config=LEVEL0_ONLY)
    assert info.value.one_line().startswith("skills/github-triage/SKILL.md@<index>:1: ")


def test_a_corrupt_golden_at_the_base_names_the_repo_path_and_revision(demo_repo: Path) -> None:
    golden = sorted((demo_repo / "goldens" / "github-triage").glob("*.json"))[0]
    rel = golden.relative_to(demo_repo).as_posix()
    base = commit(demo_repo, {rel: "{ not json"}, "corrupt golden")
    commit(demo_repo, _edited(demo_repo, "edit/changed-argument"), "edit")
    result = CliRunner().invoke(app, ["check", "--repo", str(demo_repo), "--base", base])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {rel}@{base[:10]}:1: not valid JSON")


def test_a_malformed_base_ratchet_yaml_names_its_revision(demo_repo: Path) -> None:
    base = commit(demo_repo, {"ratchet.yaml": "paths: [unclosed\n"}, "broken config")
    with pytest.raises(ConfigError) as info:
        check_edit(demo_repo, base=base, head=base, config=LEVEL0_ONLY)
    assert info.value.one_line().startswith(f"ratchet.yaml@{base[:10]}:")


def test_a_broken_config_in_the_base_tree_names_its_revision(demo_repo: Path) -> None:
    base = commit(demo_repo, {"configs/mine.yaml": "schema_version: 1\ntiers: 3\n"}, "broken gate config")
    with pytest.raises(ConfigError) as info:
        check_edit(demo_repo, base=base, head=base, config="mine")
    assert info.value.one_line().startswith(f"configs/mine.yaml@{base[:10]}: tiers")


# -- (d) a submodule bump inside a skill --------------------------------------------------------------


def _gitlink(repo: Path, path: str, sha: str, message: str) -> str:
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sha},{path}")
    git(repo, "commit", "-qm", message)
    return _head(repo)


def test_a_submodule_bump_in_a_skill_is_named(demo_repo: Path) -> None:
    skill = EDIT["edit/cosmetic"].skill
    first = _head(demo_repo)
    base = _gitlink(demo_repo, f"skills/{skill}/vendor", first, "vendor a submodule")
    _gitlink(demo_repo, f"skills/{skill}/vendor", base, "bump it")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY)
    assert verdict.decision == "WARN", verdict.summary
    assert verdict.skills_changed == [skill]
    assert verdict.submodules_changed == [f"skills/{skill}/vendor"]
    assert verdict.summary.startswith(
        f"skills/{skill}/vendor is a submodule whose commit changed: Ratchet cannot see inside it; "
    )


# -- (e) goldens outside goldens/<dir>/ ------------------------------------------------------------


@pytest.mark.parametrize("where", ["goldens/stray.json", "goldens/github-triage/old/stray.json"])
def test_a_golden_out_of_place_at_the_base_is_an_error(demo_repo: Path, where: str) -> None:
    golden = sorted((demo_repo / "goldens" / "github-triage").glob("*.json"))[0]
    base = commit(demo_repo, {where: golden.read_text(encoding="utf-8")}, "stray golden")
    commit(demo_repo, _edited(demo_repo, "edit/changed-argument"), "edit")
    with pytest.raises(GoldenError) as info:
        check_edit(demo_repo, base=base, config=LEVEL0_ONLY)
    assert info.value.one_line() == (
        f"{where}@{base[:10]}: a golden must be goldens/<skill>/<task>.json; move it there or delete it"
    )


def test_nothing_at_the_base_and_no_skill_changed_is_still_a_pass(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"README.md": "no skills here\n"})
    verdict = check_edit(repo, base="HEAD", config=LEVEL0_ONLY, on_error="block")
    assert (verdict.decision, verdict.summary) == ("PASS", "no skill changed")


def test_evidence_in_a_verdict_names_the_repo_path_not_the_scratch_folder(tmp_path: Path) -> None:
    from ratchet.gate.models import PairOutcome, Verdict
    from ratchet.gate.revision_names import relabel_verdict

    scratch = tmp_path / "home" / "scratch" / "12-abc"
    where = f"{scratch}/workspaces/fx-zurich/receipts.csv"
    pair = PairOutcome(
        task_id="t",
        golden_skill="s",
        selected_because="routed",
        outcome="error",
        decided_by="error",
        reason=f"replay failed: cannot read {where}",
        error=f"tool: {where}",
    )
    verdict = Verdict(
        base="b" * 40,
        head="h" * 40,
        skills_changed=["s"],
        decision="WARN",
        summary=f"1 pair(s) could not be checked, first t: cannot read {where}",
        pairs=[pair],
    )
    named = relabel_verdict(verdict, {scratch: "hhhhhhhhhh"})
    expected = "workspaces/fx-zurich/receipts.csv@hhhhhhhhhh"
    assert named.pairs[0].reason == f"replay failed: cannot read {expected}"
    assert named.pairs[0].error == f"tool: {expected}"
    assert named.summary.endswith(expected) and str(scratch) not in named.to_json()


# -- the world's tool declarations: what Level 0 calls a side effect ---------------------------------

_CRM = """schema_version: 1
tools:
  - name: crm_ping
    description: Tell the CRM a contact was reached.
    effect: {effect}
    input_schema:
      type: object
      properties:
        email: {{type: string}}
      required: [email]
      additionalProperties: false
    default:
      result: {{ok: true}}
"""


def test_an_edit_that_relabels_a_declared_tools_effect_is_a_settings_change(demo_repo: Path) -> None:
    # A write relabelled as a read at the head would make the edit's own new call a read that Level 0
    # lets through; the declarations are the gate's, so the change is named first and blocks in CI.
    commit(demo_repo, {"world/tools/crm.yaml": _CRM.format(effect="write")}, "declare a CRM tool")
    base = _head(demo_repo)
    commit(
        demo_repo,
        {"world/tools/crm.yaml": _CRM.format(effect="read"), **_edited(demo_repo, "edit/reworded-status")},
        "the tool only reads, honest",
    )
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error="block")
    assert verdict.settings_changed == ["world/tools/crm.yaml"]
    assert verdict.decision == "BLOCK", verdict.summary
    assert verdict.summary.startswith(SETTINGS_NOTE.format("world/tools/crm.yaml") + "; ")


def test_the_check_names_the_tools_folder_the_declared_tools_are_read_from() -> None:
    from ratchet.gate import edit_paths
    from ratchet.world.tools.declared import TOOLS_FOLDER

    assert edit_paths._TOOLS_FOLDER == TOOLS_FOLDER


_GH = """- name: gh
  args: [issue, comment, "**"]
  effect: {effect}
"""


def test_an_edit_to_the_mocked_commands_is_a_settings_change(demo_repo: Path) -> None:
    # What a mocked command answers and its effect are the gate's, like the declared tools': an edit that relabels
    # `gh issue comment` a read would pass its own new comment, so the change is named first and blocks in CI.
    commit(demo_repo, {"world/commands.yaml": _GH.format(effect="send")}, "mock gh")
    base = _head(demo_repo)
    commit(
        demo_repo,
        {"world/commands.yaml": _GH.format(effect="read"), **_edited(demo_repo, "edit/reworded-status")},
        "gh only reads, honest",
    )
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error="block")
    assert verdict.settings_changed == ["world/commands.yaml"]
    assert verdict.decision == "BLOCK", verdict.summary
    assert verdict.summary.startswith(SETTINGS_NOTE.format("world/commands.yaml") + "; ")


def test_the_replays_answer_commands_from_the_base_commands_yaml(demo_repo: Path) -> None:
    from ratchet.gate.revisions import export_head, read_edit
    from ratchet.repo.git import open_repo

    commit(demo_repo, {"world/commands.yaml": _GH.format(effect="send")}, "mock gh")
    base = _head(demo_repo)
    commit(demo_repo, {"world/commands.yaml": _GH.format(effect="read")}, "relabel")
    edit = read_edit(open_repo(demo_repo), demo_repo, base, _head(demo_repo), staged=False, home=None, harness=None)
    with export_head(edit) as tree:
        assert (tree / "world/commands.yaml").read_text(encoding="utf-8") == _GH.format(effect="send")
        assert (tree / "skills").is_dir()
    git(demo_repo, "rm", "-q", "world/commands.yaml")
    git(demo_repo, "commit", "-qm", "no mocks")
    no_mocks = _head(demo_repo)
    commit(demo_repo, {"world/commands.yaml": _GH.format(effect="read")}, "mocks the base never had")
    edit = read_edit(open_repo(demo_repo), demo_repo, no_mocks, _head(demo_repo), staged=False, home=None, harness=None)
    with export_head(edit) as tree:
        assert not (tree / "world/commands.yaml").exists()
