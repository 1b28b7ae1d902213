"""Skills at any depth, harness layouts, client keys, invocation flags and `</skill>` in a body."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import SkillError
from ratchet.skills.discovery import find_skill_folders, harness_roots, skill_folders_in_tree
from ratchet.skills.sets import load_skills, skill_folders, validate_paths
from ratchet.skills.skill import load_skill, read_skill_folder, validate_skill_folder


def skill(root: Path, rel: str, extra: str = "", body: str = "Body\n") -> Path:
    folder = root / rel
    folder.mkdir(parents=True, exist_ok=True)
    name = Path(rel).name
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name}.\n{extra}---\n{body}")
    return folder


def rels(root: Path, folders: list[Path]) -> list[str]:
    return [f.relative_to(root).as_posix() for f in folders]


# --- discovery -------------------------------------------------------------------------------


def test_finds_skills_at_any_depth_but_not_inside_a_skill(tmp_path: Path) -> None:
    skill(tmp_path, "flat")
    skill(tmp_path, "cat/nested")
    skill(tmp_path, "a/b/c/deep")
    outer = skill(tmp_path, "outer")
    skill(outer, "references/template")  # a SKILL.md inside a skill's own folder is not another skill
    (outer / "references" / "guide.md").write_text("# guide\n")
    skill(tmp_path, "node_modules/pkg/junk")
    skill(tmp_path, ".hidden/secret")
    skill(tmp_path, ".claude/skills/cc")
    skill(tmp_path, ".agents/skills/ag")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.md").write_text("x\n")
    assert rels(tmp_path, find_skill_folders(tmp_path)) == [
        ".agents/skills/ag",
        ".claude/skills/cc",
        "a/b/c/deep",
        "cat/nested",
        "flat",
        "outer",
    ]


def test_a_linked_skill_is_found_once_and_a_link_cycle_ends(tmp_path: Path) -> None:
    skill(tmp_path, "skills/real")
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    (tmp_path / ".claude" / "skills" / "real").symlink_to(tmp_path / "skills" / "real")
    (tmp_path / "skills" / "loop").symlink_to(tmp_path / "skills")
    assert rels(tmp_path, find_skill_folders(tmp_path)) == [".claude/skills/real"]


def test_harness_roots_are_the_known_layouts(tmp_path: Path) -> None:
    for rel in (
        "skills",
        ".claude/skills",
        ".agents/skills",
        ".codex/skills",
        "plugins/p1/skills",
        "my-plugin/skills",
        "my-plugin/.claude-plugin",
        "not-a-plugin/skills",
        "other/skills-ish",
    ):
        (tmp_path / rel).mkdir(parents=True)
    (tmp_path / "my-plugin" / ".claude-plugin" / "plugin.json").write_text("{}\n")
    assert rels(tmp_path, harness_roots(tmp_path)) == [
        ".agents/skills",
        ".claude/skills",
        ".codex/skills",
        "my-plugin/skills",
        "plugins/p1/skills",
        "skills",
    ]


def test_skill_folders_in_a_git_file_list_follow_the_same_rule() -> None:
    files = [
        "skills/flat/SKILL.md",
        "skills/flat/references/SKILL.md",
        "skills/cat/nested/SKILL.md",
        "skills/cat/README.md",
        "skills/node_modules/x/SKILL.md",
        "skills/.hidden/y/SKILL.md",
        "skills/lower/skill.md",
        "skills/SKILL.md",
        "other/z/SKILL.md",
    ]
    assert skill_folders_in_tree(files, "skills") == {"skills/flat", "skills/cat/nested", "skills/lower"}
    assert skill_folders_in_tree(["a/SKILL.md", ".claude/skills/b/SKILL.md"], ".") == {"a", ".claude/skills/b"}


def test_load_skills_reads_nested_layouts_and_names_duplicates_by_path(tmp_path: Path) -> None:
    skill(tmp_path, "flat")
    skill(tmp_path, "cat/nested")
    assert list(load_skills(tmp_path)) == ["flat", "nested"]
    skill(tmp_path, "other/nested")
    with pytest.raises(SkillError) as caught:
        load_skills(tmp_path)
    assert caught.value.one_line() == (
        f"{tmp_path}: skill folders 'cat/nested' and 'other/nested' are one skill: both names normalize "
        "to 'nested' (NFKC); remove or rename one of them"
    )


def test_a_folder_of_folders_is_not_a_broken_skill_but_an_empty_path_is_said(tmp_path: Path) -> None:
    skill(tmp_path, "skills/cat/good")
    (tmp_path / "skills" / "cat" / "assets").mkdir()
    (tmp_path / "skills" / "docs").mkdir()
    (tmp_path / "skills" / "docs" / "README.md").write_text("x\n")
    assert validate_paths([tmp_path / "skills"]) == []
    assert skill_folders(tmp_path / "skills/docs") == [tmp_path / "skills/docs"]  # a leaf: a skill missing its file
    (tmp_path / "empty-tree" / "a" / "b").mkdir(parents=True)
    assert skill_folders(tmp_path / "empty-tree") == []
    [problem] = validate_paths([tmp_path / "empty-tree"])
    assert (
        problem.render()
        == f"{tmp_path / 'empty-tree'}: error: no skill found: no folder here or below holds a SKILL.md"
    )


# --- client keys -----------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["when_to_use", "paths", "effort", "shell", "arguments", "argument-hint"])
def test_client_keys_warn(tmp_path: Path, key: str) -> None:
    folder = skill(tmp_path, "s", extra=f"{key}: x\n")
    assert [p.render() for p in validate_skill_folder(folder)] == [
        f"{folder / 'SKILL.md'}:4: warning: '{key}' is a client-specific key, not in the agentskills.io spec; "
        "other clients ignore it"
    ]


def test_an_unknown_key_is_still_an_error(tmp_path: Path) -> None:
    folder = skill(tmp_path, "s", extra="when-to-use: x\n")  # a typo of when_to_use
    [problem] = validate_skill_folder(folder)
    assert (problem.line, problem.severity) == (4, "error")
    assert problem.message.startswith("unknown frontmatter key 'when-to-use'")


# --- </skill> in a body ----------------------------------------------------------------------


def test_a_closing_skill_tag_in_the_body_is_an_error_on_its_line(tmp_path: Path) -> None:
    folder = skill(
        tmp_path, "s", body="# S\n\nStep one.\nthen </skill> ends it\n```\n</ SKILL >\n```\n</skills> is fine\n"
    )
    problems = validate_skill_folder(folder)
    assert [(p.line, p.severity) for p in problems] == [(8, "error"), (10, "error")]
    assert problems[0].message == (
        "the body contains '</skill>', which closes the skill block a runner wraps the body in: "
        "reword it or write it as '&lt;/skill>'"
    )
    # The gate still loads it: the runner escapes the tag, and a step after it must be replayed and judged.
    assert "then </skill> ends it" in load_skill(folder).body


# --- invocation flags ------------------------------------------------------------------------


def test_claude_code_disable_model_invocation_makes_a_skill_not_model_invocable(tmp_path: Path) -> None:
    assert load_skill(skill(tmp_path, "plain")).model_invocable is True
    assert load_skill(skill(tmp_path, "off", extra="disable-model-invocation: true\n")).model_invocable is False
    assert load_skill(skill(tmp_path, "on", extra="disable-model-invocation: false\n")).model_invocable is True


def test_codex_policy_file_makes_a_skill_not_model_invocable(tmp_path: Path) -> None:
    folder = skill(tmp_path, "codex")
    (folder / "agents").mkdir()
    policy = folder / "agents" / "openai.yaml"
    policy.write_text("interface:\n  display_name: Codex\npolicy:\n  allow_implicit_invocation: false\n")
    found, problems = read_skill_folder(folder)
    assert found is not None and found.model_invocable is False
    assert problems == []  # valid: validate prints nothing for it
    policy.write_text("policy:\n  allow_implicit_invocation: true\n")
    assert load_skill(folder).model_invocable is True


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("policy: [unclosed\n", 2, "not valid YAML: expected ',' or ']', but got '<stream end>'"),
        ("policy: off\n", 1, "'policy' must be a mapping (allow_implicit_invocation: true|false)"),
        ("policy:\n  allow_implicit_invocation: nope\n", 2, "'policy.allow_implicit_invocation' must be true or false"),
        ("- a list\n", 1, "must be a YAML mapping (interface:, policy:, ...)"),
    ],
)
def test_a_malformed_codex_policy_file_is_a_warning_with_its_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    folder = skill(tmp_path, "codex")
    (folder / "agents").mkdir()
    (folder / "agents" / "openai.yaml").write_text(text)
    found, problems = read_skill_folder(folder)
    assert found is not None and found.model_invocable is True
    assert [p.render() for p in problems] == [
        f"{folder / 'agents' / 'openai.yaml'}:{line}: warning: {message}; Codex may read it otherwise"
    ]


# --- routing respects the flag ---------------------------------------------------------------


def test_match_skill_never_fires_a_skill_the_model_may_not_pick(tmp_path: Path) -> None:
    from ratchet.agent.trigger import match_skill, route_scores

    skill(tmp_path, "invoice-export", extra="")
    folder = tmp_path / "invoice-export"
    (folder / "SKILL.md").write_text("---\nname: invoice-export\ndescription: Export invoices to CSV.\n---\nB\n")
    other = tmp_path / "weather-report"
    other.mkdir()
    (other / "SKILL.md").write_text("---\nname: weather-report\ndescription: Report the weather forecast.\n---\nB\n")
    skills = load_skills(tmp_path)
    prompt = "export the invoices to csv"
    assert match_skill(prompt, skills) == "invoice-export"
    before = route_scores(prompt, skills)
    (folder / "SKILL.md").write_text(
        "---\nname: invoice-export\ndescription: Export invoices to CSV.\ndisable-model-invocation: true\n---\nB\n"
    )
    skills = load_skills(tmp_path)
    assert match_skill(prompt, skills) is None
    assert route_scores(prompt, skills) == before  # the numbers stay; only the firing is filtered
    assert match_skill("the weather forecast report", skills) == "weather-report"


def test_loading_refuses_with_the_error_that_stops_it_not_the_runner_guarded_one(tmp_path: Path) -> None:
    folder = skill(tmp_path, "s", extra="colour: red\n", body="# S\n\n</skill> here\n")
    problems = validate_skill_folder(folder)
    assert sorted(p.stops_loading for p in problems if p.severity == "error") == [False, True]
    with pytest.raises(SkillError, match="unknown frontmatter key 'colour'"):
        load_skill(folder)
