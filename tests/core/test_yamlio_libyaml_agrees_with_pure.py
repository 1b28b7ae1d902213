"""ratchet.core.yamlio's libyaml path: the same values, nodes, lines, limits and errors as the pure loader.

Identical output is the point of the fast path, so it is held to the pure loader on every YAML
file the repository ships (skills/, bench/, ratchet/data/, tests/data, SKILL.md frontmatter), on
the hostile inputs the limits exist for, and on generated documents (errors included).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from ratchet.core import yamlio
from ratchet.core.errors import InputError
from ratchet.core.yamlio import (
    MAX_ALIAS_NODES,
    MAX_YAML_DEPTH,
    FastLoader,
    PureLoader,
    YamlLimitError,
    compose_yaml,
    item_lines,
    load_yaml_text,
    load_yaml_text_with_lines,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("skills", "bench", "ratchet/data", "tests/data")


def _shipped_yaml() -> list[tuple[str, str]]:
    """(repo path, YAML text) of every YAML file and SKILL.md frontmatter under SHIPPED."""
    found: list[tuple[str, str]] = []
    for top in SHIPPED:
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file():
                continue
            name = path.relative_to(ROOT).as_posix()
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:  # refused before any YAML is read (tests/data holds such files)
                continue
            if path.suffix in (".yaml", ".yml"):
                found.append((name, text))
            elif path.name == "SKILL.md" and text.startswith("---\n") and "\n---\n" in text[3:]:
                found.append((name, text[4 : text.index("\n---\n", 3)]))
    return found


SHIPPED_YAML = _shipped_yaml()


def _load(loader: type[Any], text: str) -> Any:
    return yaml.load(text, Loader=loader)


def _node_shape(node: yaml.Node | None) -> Any:
    """A node tree as plain data: tag, scalar value and style or children, and where it starts.

    A collection's flow_style is left out: libyaml calls an indentless block sequence (`key:` then
    `- item` at the key's column) False where the pure parser says None, and nothing reads it.
    """
    if node is None:
        return None
    where = (node.start_mark.line, node.start_mark.column)
    if isinstance(node, yaml.ScalarNode):
        return (node.tag, node.value, node.style, where)
    if isinstance(node, yaml.SequenceNode):
        return (node.tag, [_node_shape(item) for item in node.value], where)
    assert isinstance(node, yaml.MappingNode)
    return (node.tag, [(_node_shape(k), _node_shape(v)) for k, v in node.value], where)


def _outcome(text: str) -> tuple[str, str]:
    """What load_yaml_text answers: the value (repr keeps 1, 1.0 and True apart) or the one-line error."""
    try:
        return "value", repr(load_yaml_text(text, source="x.yaml"))
    except InputError as exc:
        return "error", exc.one_line()


def _pure_outcome(text: str) -> tuple[str, str]:
    """The same answer from the pure loader alone, mapped to a line as load_yaml_text maps it."""
    try:
        return "value", repr(_load(PureLoader, text))
    except YamlLimitError as exc:
        return "error", InputError(exc.message, path="x.yaml", line=exc.line).one_line()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line = mark.line + 1 if mark is not None else None
        return "error", InputError(f"not valid YAML: {problem}", path="x.yaml", line=line).one_line()


def test_this_machine_has_the_fast_path() -> None:
    # Without libyaml the fast loader is the pure one, and every test below compares it with itself.
    assert yaml.__with_libyaml__
    assert yamlio.HAS_LIBYAML
    assert any(base.__name__ == "CParser" for base in FastLoader.__mro__)


def test_the_corpus_is_the_repository_s_yaml() -> None:
    names = [name for name, _ in SHIPPED_YAML]
    assert "ratchet/data/demo/tasks.yaml" in names
    assert "bench/world/fx.yaml" in names
    assert any(name.startswith("skills/") and name.endswith("SKILL.md") for name in names)
    assert any(name.startswith("tests/data/") for name in names)
    assert len(names) >= 40


@pytest.mark.parametrize(("name", "text"), SHIPPED_YAML, ids=[name for name, _ in SHIPPED_YAML])
def test_every_shipped_yaml_file_loads_the_same_both_ways(name: str, text: str) -> None:
    # Some are templates (@SKILLS@) or broken on purpose (tests/data/skills/bad): the error must match then.
    assert _outcome(text) == _pure_outcome(text)
    if _pure_outcome(text)[0] == "value":
        pure, fast = _load(PureLoader, text), _load(FastLoader, text)
        assert fast == pure
        assert repr(fast) == repr(pure)  # types too: 1, 1.0 and True are == but not the same value


@pytest.mark.parametrize(("name", "text"), SHIPPED_YAML, ids=[name for name, _ in SHIPPED_YAML])
def test_every_shipped_yaml_file_composes_the_same_nodes_and_lines(name: str, text: str) -> None:
    try:
        pure = yaml.compose(text, Loader=PureLoader)
    except yaml.YAMLError as exc:
        with pytest.raises(type(exc)) as caught:
            compose_yaml(text)
        assert str(caught.value) == str(exc)
        return
    assert _node_shape(yaml.compose(text, Loader=FastLoader)) == _node_shape(pure)
    assert _node_shape(compose_yaml(text)) == _node_shape(pure)
    if isinstance(pure, yaml.MappingNode):
        for key, value in pure.value:
            if isinstance(value, yaml.SequenceNode):
                lines = [item.start_mark.line + 1 for item in value.value]
                assert item_lines(text, key.value) == lines
                loaded, one_parse = load_yaml_text_with_lines(text, list_key=key.value, source=name)
                assert (repr(loaded), one_parse) == (repr(_load(PureLoader, text)), lines)


def _bomb(levels: int) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        (
            "a: 1\nb: " + "[" * MAX_YAML_DEPTH + "]" * MAX_YAML_DEPTH + "\n",
            f"refused: YAML nested more than {MAX_YAML_DEPTH} levels deep",
            2,
        ),
        (_bomb(9), f"refused: YAML aliases expand past {MAX_ALIAS_NODES} nodes (an alias bomb?)", 6),
        ("top: &t\n  child: *t\n", "refused: recursive YAML alias", 2),
    ],
    ids=["depth", "alias-bomb", "recursive-alias"],
)
def test_the_fast_loader_counts_every_limit_itself(text: str, message: str, line: int) -> None:
    # libyaml's own composer counts nothing; these are refused by the Python composer over its events.
    for loader in (FastLoader, PureLoader):
        with pytest.raises(YamlLimitError) as caught:
            _load(loader, text)
        assert (caught.value.message, caught.value.line) == (message, line)


def test_nesting_far_past_the_limit_is_refused_not_a_crash() -> None:
    depth = 200_000
    with pytest.raises(InputError, match="nested more than"):
        load_yaml_text("[" * depth + "]" * depth, source="x.yaml")


def test_recursion_passes_only_where_it_is_asked_for() -> None:
    node = compose_yaml("top: &t\n  child: *t\n", allow_recursion=True)
    assert isinstance(node, yaml.MappingNode)
    with pytest.raises(YamlLimitError, match="recursive"):
        compose_yaml("top: &t\n  child: *t\n")


@pytest.mark.parametrize(
    "text",
    [
        "a: b: c\n",
        "a: [1, 2\n",
        "- a\nb: c\n",
        "a: 'unterminated\n",
        "a:\n\t- tab\n",
        "key: value\n  bad: indent\n",
        "*undefined\n",
        "a: !!python/object:os.system x\n",
        "a: \x07bell\n",
        "a: b\n---\nc: d\n",
        "? [a, b]\n: c\n",
        "a: \ud800\n",
    ],
)
def test_an_invalid_document_gives_the_pure_loader_s_error(text: str) -> None:
    assert _outcome(text) == _pure_outcome(text)


_PIECES = [  # YAML's indicators, the values its resolver types, and what libyaml and pure parse otherwise
    "a",
    "b",
    ": ",
    ":",
    "- ",
    "\n",
    "  ",
    "\t",
    "[",
    "]",
    "{",
    "}",
    ", ",
    "&x ",
    "*x",
    "? ",
    "'q'",
    '"\\u00e9"',
    '"',
    "'",
    "!!str ",
    "!!int ",
    "2024-01-02",
    "2024-01-02T03:04:05Z",
    "0x1F",
    "0o17",
    "1_000",
    "1e3",
    ".inf",
    "~",
    "null",
    "yes",
    "on",
    "#c",
    "|\n",
    ">-\n",
    "é",
    "\u2028",
    "\x85",
    "%YAML 1.1\n",
    "---\n",
    "...\n",
    "\r\n",
    "12:30:00",
    "-1",
    "+.5",
    "<<: ",
    "=",
    "@",
    "`",
    "! ",
    "!a ",
    "a?b",
    "why?",
    "[a:b]",
    "|1#c",
    "'it''s'",
]


@pytest.mark.parametrize(
    ("text", "kind"),
    [("a: !!int\n", "int"), ("a: !!float\n", "float"), ("a: !!bool\n", "bool"), ("a: !!timestamp\n", "timestamp")],
)
def test_an_empty_typed_scalar_is_one_line_not_a_traceback(text: str, kind: str) -> None:
    # PyYAML's constructors index into the empty string (IndexError, KeyError, AttributeError).
    with pytest.raises(InputError) as caught:
        load_yaml_text(text, source="x.yaml")
    assert caught.value.one_line() == f"x.yaml:1: refused: value '' is not a valid {kind}"


def test_generated_documents_answer_the_same_both_ways() -> None:
    rng = random.Random(16)
    for _ in range(4000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 12)))
        assert _outcome(text) == _pure_outcome(text), repr(text)


def test_edited_shipped_files_answer_the_same_both_ways() -> None:
    # The shapes real files have, broken a few characters at a time (this is how `[why?]` was found).
    texts = [text for _, text in SHIPPED_YAML if len(text) < 20_000]
    inserts = [*" :-?[]{},#&*!|>'\"%@`\n\\", "  ", ": ", "- ", "\n  ", "é", "!!int ", "~", "...", "---", "? ", "! "]
    rng = random.Random(16)
    for _ in range(1500):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(text) + 1)
            if rng.random() < 0.5:
                text = text[:at] + rng.choice(inserts) + text[at:]
            else:
                text = text[:at] + text[at + rng.randint(1, 5) :]
        assert _outcome(text) == _pure_outcome(text), text
