"""Properties of the SKILL.md parser (ratchet.skills.skill): a Skill or one SkillError, and honest hashes.

What it promises: any SKILL.md text is either a Skill or a SkillError (the first error validate
reports), never another exception; frontmatter scalars are read as the text written (`123`, `true`,
`1.0` stay strings, no tag constructs a value); content_hash is the sha256 of the bytes, and
substance_hash is blind to Markdown comments and whitespace (blank lines, indentation, runs of
spaces, line endings) while every word counts.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from ratchet.core.errors import SkillError
from ratchet.skills.skill import Skill, load_skill, parse_skill_text, substance_of, validate_skill_folder

# No agents/openai.yaml is ever read from here: parse_skill_text only asks whether one exists.
ABSENT = Path(tempfile.gettempdir()) / "ratchet-skill-properties-absent"

NAMES = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}", fullmatch=True)
# Text a YAML double-quoted scalar holds as written (no line breaks, controls or format characters).
_PRINTABLE = st.characters(categories=("L", "N", "P", "S", "Zs"), exclude_characters="\x85\u2028\u2029")
DESCRIPTIONS = st.text(_PRINTABLE, min_size=1, max_size=200).filter(str.strip)
# Tokens a YAML loader would construct as numbers, booleans, nulls or dates; the parser keeps the text.
TYPED_TOKENS = st.sampled_from(["123", "1.0", "true", "yes", "on", "~", "null", "2024-01-02", "0x1F", "1e3", ".nan"])
BODIES = st.text(max_size=200)

_FRONTMATTER_LINES = st.sampled_from(
    [
        "name: demo-skill", "description: Does things.", "name: Demo-Skill", "name: ''", "description:",
        "name: [a, b]", "description: {a: b}", "metadata:\n  version: 1.0", "metadata: [a]",
        "metadata:\n  deep: {a: b}", "license: MIT", "compatibility: ''", "compatibility: " + "c" * 501,
        "allowed-tools: [Read]", "unknown-key: x", "model: opus", "disable-model-invocation: true",
        "name: &a demo-skill", "description: *a", "description: *missing", "? [a]\n: b", "- a", "a: b: c",
        "name: demo-skill\nname: again", "description: !!int x", "description: !!binary Zm9v", "k: &r [*r]",
        "description: '</skill>'", "  bad: indent", "\t", "'", "{", "name: \uff44emo-skill", "# comment", "",
    ]
)  # fmt: skip
_BODY_PIECES = st.sampled_from(["text", "\n", "</skill>", "</ SKILL >", "<!--", "-->", "```", "---", "\r\n", " "])
_VALID_HEAD = "name: demo-skill\ndescription: Does things."
SKILL_TEXTS = st.builds(  # mostly a valid skill with a line or two added, so both answers come up often
    lambda opener, head, lines, closer, body: opener + "\n".join([*head, *lines]) + closer + body,
    st.sampled_from(["---\n"] * 6 + ["--- \n", "\ufeff---\n", "", "---"]),
    st.sampled_from([[_VALID_HEAD]] * 3 + [[]]),
    st.lists(_FRONTMATTER_LINES, max_size=3),
    st.sampled_from(["\n---\n"] * 6 + ["\n---", "\n--- \n", "\n"]),
    st.lists(_BODY_PIECES, max_size=8).map("".join),
)
ANY_TEXT = st.one_of(SKILL_TEXTS, SKILL_TEXTS, st.text(max_size=120))


def skill_md(name: str, description: str, body: str, extra: str = "") -> str:
    # json.dumps writes a string YAML reads back as written (a double-quoted scalar).
    return f"---\nname: {name}\ndescription: {json.dumps(description, ensure_ascii=False)}\n{extra}---\n{body}"


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in (key, *_leaves(item))]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _parse(text: str, name: str = "demo-skill") -> Skill | SkillError:
    try:
        return parse_skill_text(text, folder=ABSENT / name, source="SKILL.md")
    except SkillError as exc:
        return exc


@given(ANY_TEXT)
@example("---\nname: demo-skill\ndescription: x\nmetadata: &m\n  a: *m\n---\n")
@example("---\nname: demo-skill\ndescription: " + "[" * 300 + "]" * 300 + "\n---\n")
@example("---\nname: demo-skill\ndescription: ok\n---\n" + "line\n" * 600)
def test_any_text_is_a_skill_or_one_skill_error(text: str) -> None:
    answer = _parse(text)
    if isinstance(answer, SkillError):
        assert type(answer) is SkillError
        assert str(answer) == answer.one_line() and "\n" not in str(answer)
        assert answer.path == "SKILL.md" and (answer.line is None or 1 <= answer.line <= text.count("\n") + 2)
    else:
        assert all(isinstance(leaf, str) for leaf in _leaves(answer.frontmatter))  # every scalar is a string
        assert answer.content_hash == hashlib.sha256(text.encode()).hexdigest()


@given(NAMES, DESCRIPTIONS, BODIES, st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), TYPED_TOKENS))
def test_a_valid_skill_reads_back_as_written(name: str, description: str, body: str, metadata: dict[str, str]) -> None:
    extra = "metadata:\n" + "".join(f"  {key}: {token}\n" for key, token in metadata.items()) if metadata else ""
    text = skill_md(name, description, body, extra)
    skill = _parse(text, name)
    assert isinstance(skill, Skill), skill
    assert (skill.name, skill.description, skill.body) == (name, description, body)
    assert skill.frontmatter.get("metadata", {}) == metadata  # 1.0, true, ~ and 2024-01-02 stay as written
    assert "\n".join(text.split("\n")[skill.body_line - 1 :]) == body
    assert skill.key_lines["name"] == 2 and skill.key_lines["description"] == 3
    assert skill.content_hash == hashlib.sha256(text.encode()).hexdigest()
    assert skill.substance_hash == hashlib.sha256(substance_of(text).encode()).hexdigest()


# --- substance ---------------------------------------------------------------------------------

_WORDS = st.text(st.characters(categories=("L", "N"), exclude_characters="`~"), min_size=1, max_size=6)
_LINES = st.lists(st.lists(_WORDS, min_size=1, max_size=5), max_size=6)


@st.composite
def _laid_out(draw: st.DrawFn, lines: list[list[str]]) -> str:
    """The same words in the same lines, with any indentation, spacing, blank lines, comments and line endings."""
    gap = st.sampled_from([" ", "  ", "\t", " \t ", " <!-- a note --> "])
    out: list[str] = []
    for words in lines:
        out.extend(
            draw(st.sampled_from(["", "   ", "<!-- x -->", "<!--\nspread\n-->"]))
            for _ in range(draw(st.integers(0, 2)))
        )
        text = draw(st.sampled_from(["", " ", "    ", "\t"])) + words[0]
        for word in words[1:]:
            text += draw(gap) + word
        out.append(text + draw(st.sampled_from(["", " ", "\t"])))
    return draw(st.sampled_from(["\n", "\r\n", "\r"])).join(out) + draw(st.sampled_from(["", "\n", "\n\n"]))


@given(st.data(), _LINES)
def test_substance_is_blind_to_layout_and_comments(data: st.DataObject, lines: list[list[str]]) -> None:
    one, other = data.draw(_laid_out(lines)), data.draw(_laid_out(lines))
    assert substance_of(one) == substance_of(other) == "\n".join(" ".join(words) for words in lines)
    skills = [_parse(skill_md("demo-skill", "Does things.", body)) for body in (one, other)]
    assert isinstance(skills[0], Skill) and isinstance(skills[1], Skill)
    assert skills[0].substance_hash == skills[1].substance_hash
    assert (skills[0].content_hash == skills[1].content_hash) == (one == other)


@given(st.text(max_size=200).filter(lambda text: "<!--" not in text))
@example("a\r\nb\rc\u2028d\x85e")
@example("```\n  code   here\n```")
def test_every_word_counts(text: str) -> None:
    assert substance_of(text).split() == text.split()


# --- validate and load -------------------------------------------------------------------------


@given(ANY_TEXT | st.builds(skill_md, NAMES, DESCRIPTIONS, BODIES))
def test_load_raises_the_first_error_validate_reports_and_parse_agrees(text: str) -> None:
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / "demo-skill"
        folder.mkdir()
        (folder / "SKILL.md").write_bytes(text.encode())  # as written: no newline translation
        problems = validate_skill_folder(folder)
        stopping = [p for p in problems if p.severity == "error" and p.stops_loading]
        try:
            loaded: Skill | SkillError = load_skill(folder)
        except SkillError as exc:
            loaded = exc
        parsed = _parse(text)
        if stopping:
            assert isinstance(loaded, SkillError)
            assert (loaded.message, loaded.line) == (stopping[0].message, stopping[0].line)
            assert isinstance(parsed, SkillError) and (parsed.message, parsed.line) == (loaded.message, loaded.line)
        else:
            assert isinstance(loaded, Skill) and isinstance(parsed, Skill)
            assert loaded.model_dump(exclude={"folder"}) == parsed.model_dump(exclude={"folder"})
