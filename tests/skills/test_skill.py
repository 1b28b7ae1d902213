"""SKILL.md parsing and validation: rules, lines, hashes, and loading."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from ratchet.core.errors import InputError, SkillError
from ratchet.skills.problems import Problem
from ratchet.skills.sets import load_skills, validate_paths
from ratchet.skills.skill import load_skill, parse_skill_text, substance_of, validate_skill_folder

DATA = Path(__file__).parents[1] / "data" / "skills"
BAD = DATA / "bad"
PROJECT = DATA / "project"

GOOD = """---
name: my-skill
description: Summarize a pull request.
---
# My skill

<!-- internal note -->
1. Run `git log` and   read it.
2. Write the summary.
"""


def write_skill(root: Path, name: str, text: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


def rendered(folder: Path) -> list[str]:
    """Problems of a fixture folder, with paths relative to the fixture folder."""
    return [p.render().replace(str(folder) + "/", "") for p in validate_skill_folder(folder)]


# --- each bad fixture: exactly these problems -----------------------------------------------

BAD_CASES = {
    "no-frontmatter": [
        "SKILL.md:1: error: frontmatter missing: SKILL.md must start with a '---' line, then YAML, then '---'"
    ],
    "unterminated": ["SKILL.md:1: error: frontmatter not terminated: add a '---' line after the YAML"],
    "not-mapping": [
        "SKILL.md:2: error: frontmatter must be a YAML mapping (name: ..., description: ...), not a sequence"
    ],
    "empty-frontmatter": [
        "SKILL.md:2: error: frontmatter must be a YAML mapping (name: ..., description: ...), not empty"
    ],
    "bad-yaml": ["SKILL.md:3: error: frontmatter is not valid YAML: expected ',' or ']', but got '<stream end>'"],
    "duplicate-key": ["SKILL.md:4: error: duplicate frontmatter key 'description' (first on line 3)"],
    "missing-name": ["SKILL.md:1: error: required key 'name' missing: add name: <folder name>"],
    "missing-description": [
        "SKILL.md:1: error: required key 'description' missing: say what the skill does and when to use it"
    ],
    "blank-description": ["SKILL.md:3: error: 'description' is empty: say what the skill does and when to use it"],
    "Upper_Case": [
        "SKILL.md:2: error: 'name' 'Upper_Case' may contain only letters, digits and hyphens",
        "SKILL.md:2: error: 'name' 'Upper_Case' must be lowercase",
    ],
    "-edge-": ["SKILL.md:2: error: 'name' '-edge-' must not start or end with a hyphen"],
    "double--hyphen": ["SKILL.md:2: error: 'name' 'double--hyphen' must not contain consecutive hyphens"],
    "unknown-key": [
        "SKILL.md:4: error: unknown frontmatter key 'version': allowed keys are name, description, "
        "license, compatibility, metadata, allowed-tools"
    ],
    "nested-metadata": [
        "SKILL.md:6: error: 'metadata' values must be strings (nested lists and mappings are not allowed)"
    ],
    "metadata-not-mapping": ["SKILL.md:4: error: 'metadata' must be a mapping of string keys to string values"],
    "allowed-tools-list": ["SKILL.md:4: error: 'allowed-tools' must be a string, not a YAML sequence"],
    "empty-compatibility": ["SKILL.md:4: error: 'compatibility' is empty: remove it or name what the skill needs"],
    "name-mapping": ["SKILL.md:2: error: 'name' must be a string, not a YAML mapping"],
    "not-utf8": ["SKILL.md: error: not UTF-8 text (byte 35): save the file as UTF-8"],
    "lowercase-file": [
        "SKILL.md: error: SKILL.md missing: every skill folder needs one "
        "(found a differently-cased file: rename it to SKILL.md)"
    ],
}


def test_every_bad_fixture_has_a_case() -> None:
    assert sorted(p.name for p in BAD.iterdir()) == sorted(BAD_CASES)


@pytest.mark.parametrize("name", sorted(BAD_CASES))
def test_bad_fixture_problems(name: str) -> None:
    assert rendered(BAD / name) == BAD_CASES[name]


@pytest.mark.parametrize("name", sorted(BAD_CASES))
def test_load_skill_raises_first_error_as_one_line(name: str) -> None:
    with pytest.raises(SkillError) as info:
        load_skill(BAD / name)
    line = info.value.one_line()
    assert "\n" not in line
    assert line.replace(str(BAD / name) + "/", "") == BAD_CASES[name][0].replace(": error: ", ": ", 1)


# --- valid skills ----------------------------------------------------------------------------


def test_valid_skill_loads(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "my-skill", GOOD)
    skill = load_skill(folder)
    assert skill.name == "my-skill"
    assert skill.description == "Summarize a pull request."
    assert skill.folder == str(folder)
    assert skill.body_line == 5
    assert skill.body.startswith("# My skill\n")
    assert skill.frontmatter == {"name": "my-skill", "description": "Summarize a pull request."}
    assert skill.content_hash == hashlib.sha256(GOOD.encode()).hexdigest()
    assert validate_skill_folder(folder) == []


def test_all_optional_keys_and_scalars_read_as_text() -> None:
    skill = load_skill(PROJECT / "good-skill")
    assert skill.frontmatter["metadata"] == {"author": "ratchet", "version": "1.0"}
    assert skill.frontmatter["allowed-tools"] == "Bash(git:*) Read"
    assert skill.frontmatter["license"] == "Apache-2.0"


def test_client_keys_warn_but_load() -> None:
    folder = PROJECT / "client-keys"
    assert rendered(folder) == [
        "SKILL.md:4: warning: 'model' is a client-specific key, not in the agentskills.io spec; other clients ignore it",
        "SKILL.md:5: warning: 'disable-model-invocation' is a client-specific key, not in the agentskills.io spec; "
        "other clients ignore it",
    ]
    assert load_skill(folder).frontmatter["disable-model-invocation"] == "true"


def test_limits_are_inclusive(tmp_path: Path) -> None:
    name = "a" * 64
    text = f"---\nname: {name}\ndescription: {'d' * 1024}\ncompatibility: {'c' * 500}\n---\nBody\n"
    assert validate_skill_folder(write_skill(tmp_path, name, text)) == []
    name = "a" * 65
    text = f"---\nname: {name}\ndescription: {'d' * 1025}\ncompatibility: {'c' * 501}\n---\nBody\n"
    assert rendered(write_skill(tmp_path, name, text)) == [
        "SKILL.md:2: error: 'name' is 65 characters; the limit is 64",
        "SKILL.md:3: error: 'description' is 1025 characters; the limit is 1024",
        "SKILL.md:4: error: 'compatibility' is 501 characters; the limit is 500",
    ]


def test_unicode_names_are_nfkc_normalized(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "café", "---\nname: cafe\u0301\ndescription: d\n---\n")
    assert load_skill(folder).name == "café"
    assert validate_skill_folder(write_skill(tmp_path, "技能", "---\nname: 技能\ndescription: d\n---\n")) == []
    assert rendered(write_skill(tmp_path, "НАВЫК", "---\nname: НАВЫК\ndescription: d\n---\n")) == [
        "SKILL.md:2: error: 'name' 'НАВЫК' must be lowercase"
    ]


def test_name_must_match_folder(tmp_path: Path) -> None:
    assert rendered(PROJECT / "wrong-name") == [
        "SKILL.md:2: error: 'name' 'right-name' must equal the folder name 'wrong-name': rename one of them"
    ]


def test_long_body_warns_at_the_first_line_past_the_limit(tmp_path: Path) -> None:
    body = "".join(f"step {i}\n" for i in range(501))
    folder = write_skill(tmp_path, "long", f"---\nname: long\ndescription: d\n---\n{body}")
    assert rendered(folder) == [
        "SKILL.md:505: warning: body is 501 lines; the spec recommends under 500: move detail into references/ files"
    ]
    assert load_skill(folder).name == "long"
    ok = write_skill(tmp_path, "ok", "---\nname: ok\ndescription: d\n---\n" + "x\n" * 500)
    assert validate_skill_folder(ok) == []


def test_crlf_file_parses_and_hashes_its_bytes(tmp_path: Path) -> None:
    data = GOOD.replace("\n", "\r\n").encode()
    folder = tmp_path / "my-skill"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(data)
    skill = load_skill(folder)
    assert skill.content_hash == hashlib.sha256(data).hexdigest()
    assert skill.substance_hash == load_skill(write_skill(tmp_path / "lf", "my-skill", GOOD)).substance_hash


def test_parse_skill_text_uses_source_in_errors(tmp_path: Path) -> None:
    with pytest.raises(SkillError, match=r"^HEAD:skills/x/SKILL.md:1: frontmatter missing"):
        parse_skill_text("no frontmatter", folder=tmp_path / "x", source="HEAD:skills/x/SKILL.md")
    skill = parse_skill_text(GOOD, folder=tmp_path / "my-skill", source="HEAD:skills/my-skill/SKILL.md")
    assert skill.name == "my-skill"


def test_frontmatter_yaml_tags_are_not_constructed(tmp_path: Path) -> None:
    text = "---\nname: tagged\ndescription: !!python/object:os.system echo\n---\n"
    assert load_skill(write_skill(tmp_path, "tagged", text)).description == "echo"


def test_recursive_alias_is_an_error_not_a_crash(tmp_path: Path) -> None:
    text = "---\nname: loop\ndescription: d\nmetadata: &m\n  self: *m\n---\n"
    assert rendered(write_skill(tmp_path, "loop", text)) == [
        "SKILL.md:4: error: frontmatter key 'metadata': recursive YAML alias"
    ]


# --- substance -------------------------------------------------------------------------------


def substance_hash(tmp_path: Path, text: str) -> str:
    shutil.rmtree(tmp_path / "my-skill", ignore_errors=True)
    return load_skill(write_skill(tmp_path, "my-skill", text)).substance_hash


@pytest.mark.parametrize(
    "cosmetic",
    [
        GOOD.replace("and   read", "and read"),
        GOOD.replace("<!-- internal note -->\n", ""),
        GOOD.replace("<!-- internal note -->", "<!-- a different\nmulti-line note -->"),
        GOOD.replace("\n\n", "\n\n\n").replace("1. Run", "1.  Run  "),
        GOOD + "\n\n",
        GOOD.replace("read it.", "read it. <!-- why -->"),
    ],
)
def test_cosmetic_edits_keep_the_substance_hash(tmp_path: Path, cosmetic: str) -> None:
    assert substance_hash(tmp_path, cosmetic) == substance_hash(tmp_path, GOOD)


@pytest.mark.parametrize(
    "substantive",
    [
        GOOD.replace("read it", "skim it"),
        GOOD.replace("Summarize a pull", "Summarize any pull"),
        GOOD.replace("2. Write", "2. Do not write"),
        GOOD.replace("Run `git log`", "Run`git log`"),
    ],
)
def test_word_changes_change_the_substance_hash(tmp_path: Path, substantive: str) -> None:
    assert substance_hash(tmp_path, substantive) != substance_hash(tmp_path, GOOD)


def test_comments_inside_code_fences_are_content() -> None:
    fenced = "```html\n<!-- shown to the user -->\n```\n"
    assert substance_of(fenced) == fenced.strip()
    assert substance_of("a <!-- x --> b") == "a b"


# --- paths -----------------------------------------------------------------------------------


def test_validate_paths_walks_a_folder_of_skills() -> None:
    problems = validate_paths([PROJECT])
    assert [(Path(p.path).parent.name, p.line, p.severity) for p in problems] == [
        ("client-keys", 4, "warning"),
        ("client-keys", 5, "warning"),
        ("wrong-name", 2, "error"),  # no-skill-md holds no SKILL.md: a folder, not a broken skill
    ]
    assert problems == sorted(problems, key=Problem.sort_key)


def test_validate_paths_accepts_a_skill_md_file_and_deduplicates() -> None:
    folder = PROJECT / "wrong-name"
    assert validate_paths([folder / "SKILL.md", folder, PROJECT]) == validate_paths([PROJECT])


def test_validate_paths_rejects_missing_and_non_skill_paths(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="path does not exist"):
        validate_paths([tmp_path / "nope"])
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match="not a skill folder"):
        validate_paths([tmp_path / "notes.txt"])


def test_empty_folder_is_a_skill_folder_missing_its_file(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert [p.message for p in validate_paths([tmp_path / "empty"])] == [
        "SKILL.md missing: every skill folder needs one"
    ]


def test_load_skills_by_name(tmp_path: Path) -> None:
    write_skill(tmp_path, "b-skill", "---\nname: b-skill\ndescription: b\n---\n")
    write_skill(tmp_path, "a-skill", "---\nname: a-skill\ndescription: a\n---\n")
    assert list(load_skills(tmp_path)) == ["a-skill", "b-skill"]
    write_skill(tmp_path, "c-skill", "---\nname: other\ndescription: c\n---\n")
    with pytest.raises(SkillError, match=r"c-skill/SKILL\.md:2: 'name' 'other' must equal the folder name"):
        load_skills(tmp_path)


@pytest.mark.parametrize("breakage", ["dangling-symlink", "lowercase"])
def test_load_skills_refuses_what_validate_refuses(tmp_path: Path, breakage: str) -> None:
    write_skill(tmp_path, "a-skill", "---\nname: a-skill\ndescription: a\n---\n")
    folder = write_skill(tmp_path, "b-skill", "---\nname: b-skill\ndescription: b\n---\n")
    skill_md = folder / "SKILL.md"
    if breakage == "lowercase":
        skill_md.rename(folder / "skill.md")
    else:
        skill_md.unlink()
        skill_md.symlink_to(tmp_path / "nonexistent" / "SKILL.md")
    (tmp_path / "assets").mkdir()  # a folder with nothing like a SKILL.md is not a skill
    [problem] = validate_skill_folder(folder)
    with pytest.raises(SkillError) as caught:
        load_skills(tmp_path)
    assert caught.value.one_line() == f"{problem.path}: {problem.message}"
    assert caught.value.path == str(skill_md)


def test_load_skills_of_a_missing_folder_is_empty(tmp_path: Path) -> None:
    assert load_skills(tmp_path / "nope") == {}


# --- agreement with the reference validator (skills-ref) -------------------------------------
#
# Every input of skills-ref 0.1.1's own test suite (tests/test_validator.py and tests/test_parser.py
# in its sdist), reproduced here, plus the inputs its upstream main branch has added since. Each is
# run through skills_ref.validator.validate and validate_skill_folder; they must agree on
# error / no error, except for the deliberate differences below (docs/adr/0002-skill-validation.md).

SUITE: dict[str, tuple[str, str, str]] = {
    # id: (folder name, file name, content); file name "" means no file, "-" means the path is a file
    "validator/valid_skill": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n",
    ),
    "validator/nonexistent_path": ("nonexistent", "", ""),
    "validator/not_a_directory": ("file.txt", "-", "test"),
    "validator/missing_skill_md": ("my-skill", "", ""),
    "validator/invalid_name_uppercase": (
        "MySkill",
        "SKILL.md",
        "---\nname: MySkill\ndescription: A test skill\n---\nBody\n",
    ),
    "validator/name_too_long": ("a" * 70, "SKILL.md", f"---\nname: {'a' * 70}\ndescription: A test skill\n---\nBody\n"),
    "validator/name_leading_hyphen": (
        "-my-skill",
        "SKILL.md",
        "---\nname: -my-skill\ndescription: A test skill\n---\nBody\n",
    ),
    "validator/name_consecutive_hyphens": (
        "my--skill",
        "SKILL.md",
        "---\nname: my--skill\ndescription: A test skill\n---\nBody\n",
    ),
    "validator/name_invalid_characters": (
        "my_skill",
        "SKILL.md",
        "---\nname: my_skill\ndescription: A test skill\n---\nBody\n",
    ),
    "validator/name_directory_mismatch": (
        "wrong-name",
        "SKILL.md",
        "---\nname: correct-name\ndescription: A test skill\n---\nBody\n",
    ),
    "validator/unexpected_fields": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\nunknown_field: should not be here\n---\nBody\n",
    ),
    "validator/valid_with_all_fields": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test\n---\nBody\n",
    ),
    "validator/allowed_tools_accepted": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)\n---\nBody\n",
    ),
    "validator/i18n_chinese_name": (
        "技能",
        "SKILL.md",
        "---\nname: 技能\ndescription: A skill with Chinese name\n---\nBody\n",
    ),
    "validator/i18n_russian_name_with_hyphens": (
        "мой-навык",
        "SKILL.md",
        "---\nname: мой-навык\ndescription: A skill with Russian name\n---\nBody\n",
    ),
    "validator/i18n_russian_lowercase_valid": (
        "навык",
        "SKILL.md",
        "---\nname: навык\ndescription: A skill with Russian lowercase name\n---\nBody\n",
    ),
    "validator/i18n_russian_uppercase_rejected": (
        "НАВЫК",
        "SKILL.md",
        "---\nname: НАВЫК\ndescription: A skill with Russian uppercase name\n---\nBody\n",
    ),
    "validator/description_too_long": (
        "my-skill",
        "SKILL.md",
        f"---\nname: my-skill\ndescription: {'x' * 1100}\n---\nBody\n",
    ),
    "validator/valid_compatibility": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\ncompatibility: Requires Python 3.11+\n---\nBody\n",
    ),
    "validator/compatibility_too_long": (
        "my-skill",
        "SKILL.md",
        f"---\nname: my-skill\ndescription: A test skill\ncompatibility: {'x' * 550}\n---\nBody\n",
    ),
    "validator/nfkc_normalization": (
        "café",
        "SKILL.md",
        "---\nname: cafe\u0301\ndescription: A test skill\n---\nBody\n",
    ),
    # parser tests: their content, placed in a folder named like the skill
    "parser/valid_frontmatter": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n\nInstructions here.\n",
    ),
    "parser/missing_frontmatter": ("my-skill", "SKILL.md", "# No frontmatter here"),
    "parser/unclosed_frontmatter": ("my-skill", "SKILL.md", "---\nname: my-skill\ndescription: A test skill\n"),
    "parser/invalid_yaml": ("my-skill", "SKILL.md", "---\nname: [invalid\ndescription: broken\n---\nBody here\n"),
    "parser/non_dict_frontmatter": ("my-skill", "SKILL.md", "---\n- just\n- a\n- list\n---\nBody\n"),
    "parser/read_valid_skill": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\nlicense: MIT\n---\n# My Skill\n",
    ),
    "parser/read_with_metadata": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\nmetadata:\n  author: Test Author\n  version: 1.0\n---\nBody\n",
    ),
    "parser/missing_skill_md": ("tmp", "", ""),
    "parser/missing_name": ("my-skill", "SKILL.md", "---\ndescription: A test skill\n---\nBody\n"),
    "parser/missing_description": ("my-skill", "SKILL.md", "---\nname: my-skill\n---\nBody\n"),
    "parser/find_skill_md_prefers_uppercase": ("my-skill", "SKILL.md", "uppercase"),
    "parser/find_skill_md_accepts_lowercase": ("my-skill", "skill.md", "lowercase"),
    "parser/find_skill_md_returns_none_when_missing": ("my-skill", "", ""),
    "parser/read_properties_with_lowercase_skill_md": (
        "my-skill",
        "skill.md",
        "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n",
    ),
    "parser/read_with_allowed_tools": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)\n---\nBody\n",
    ),
    # added on upstream main after 0.1.1 (agentskills/agentskills, skills-ref/tests/test_validator.py)
    "main/allowed_tools_inline_list": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\nallowed-tools: [Read, Write, Edit, Bash]\n---\nBody\n",
    ),
    "main/allowed_tools_block_list": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\nallowed-tools:\n  - Read\n  - Bash\n  - Grep\n---\nBody\n",
    ),
    "main/allowed_tools_list_items_must_be_strings": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\nallowed-tools:\n  - Read\n  - 123\n---\nBody\n",
    ),
    "main/allowed_tools_invalid_scalar_type": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: A test skill\nallowed-tools: 123\n---\nBody\n",
    ),
    # beyond the suite: the deliberate differences, and inputs where the two parsers are built differently
    "ratchet/client_specific_key": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: d\nmodel: sonnet\n---\nBody\n",
    ),
    "ratchet/empty_compatibility": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: d\ncompatibility: ''\n---\n",
    ),
    "ratchet/metadata_not_a_mapping": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: d\nmetadata: text\n---\n",
    ),
    "ratchet/metadata_nested": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: d\nmetadata:\n  a:\n    b: c\n---\n",
    ),
    "ratchet/license_a_list": ("my-skill", "SKILL.md", "---\nname: my-skill\ndescription: d\nlicense:\n  - MIT\n---\n"),
    "ratchet/metadata_flow_mapping": (
        "my-skill",
        "SKILL.md",
        "---\nname: my-skill\ndescription: d\nmetadata: {a: b}\n---\n",
    ),
    "ratchet/yaml_anchor": ("my-skill", "SKILL.md", "---\nname: &n my-skill\ndescription: *n\n---\n"),
    "ratchet/numeric_name": ("123", "SKILL.md", "---\nname: 123\ndescription: yes\n---\n"),
    "ratchet/duplicate_key": ("my-skill", "SKILL.md", "---\nname: my-skill\ndescription: a\ndescription: b\n---\n"),
    "ratchet/dashes_inside_a_value": ("my-skill", "SKILL.md", "---\nname: my-skill\ndescription: 'a --- b'\n---\n"),
}

# id -> why Ratchet deliberately decides differently (error/no error) from skills-ref 0.1.1
DIFFERENCES = {
    "parser/read_properties_with_lowercase_skill_md": (
        "skill.md is an error: the spec names SKILL.md, and Ratchet's gate only reads SKILL.md, "
        "so accepting skill.md would let an edit to it pass unchecked"
    ),
    "main/allowed_tools_block_list": "allowed-tools is one string in the spec (upstream main now accepts lists)",
    "main/allowed_tools_list_items_must_be_strings": "allowed-tools is one string in the spec",
    "ratchet/client_specific_key": "known client-specific keys warn instead of failing",
    "ratchet/empty_compatibility": "compatibility is 1-500 characters in the spec; skills-ref checks only the maximum",
    "ratchet/metadata_not_a_mapping": "metadata is a map of string to string; skills-ref does not check its type",
    "ratchet/metadata_nested": "metadata values are strings; skills-ref turns a nested map into its Python repr",
    "ratchet/license_a_list": "license is a string; skills-ref does not check its type",
    "ratchet/metadata_flow_mapping": "flow style is valid YAML; strictyaml (inside skills-ref) refuses it",
    "ratchet/yaml_anchor": "anchors and aliases are valid YAML; strictyaml refuses them",
    "ratchet/dashes_inside_a_value": (
        "skills-ref splits the file at the first '---' anywhere, even inside a value; "
        "Ratchet ends the frontmatter only at a line that is exactly '---'"
    ),
}


def _make_case(root: Path, case: tuple[str, str, str]) -> Path:
    folder_name, file_name, content = case
    folder = root / folder_name
    if file_name == "-":
        folder.write_text(content, encoding="utf-8")
    elif file_name:
        folder.mkdir()
        (folder / file_name).write_text(content, encoding="utf-8")
    elif folder_name != "nonexistent":
        folder.mkdir()
    return folder


@pytest.mark.parametrize("case_id", sorted(SUITE))
def test_agrees_with_skills_ref(tmp_path: Path, case_id: str) -> None:
    from skills_ref.validator import validate as reference_validate

    folder = _make_case(tmp_path, SUITE[case_id])
    reference_error = bool(reference_validate(folder))
    ratchet_error = any(p.severity == "error" for p in validate_skill_folder(folder))
    if case_id in DIFFERENCES:
        assert ratchet_error != reference_error, f"documented difference no longer holds: {DIFFERENCES[case_id]}"
    else:
        assert ratchet_error == reference_error


def test_every_difference_is_a_case() -> None:
    assert set(DIFFERENCES) <= set(SUITE)


def test_byte_order_mark_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "bom"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes("\ufeff---\nname: bom\ndescription: d\n---\n".encode())
    assert rendered(folder) == [
        "SKILL.md:1: error: SKILL.md starts with a byte-order mark: save it as UTF-8 without BOM"
    ]
