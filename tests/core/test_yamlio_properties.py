"""Properties of ratchet.core.yamlio: safe_load under limits, every failure one line of the caller's error.

What the module promises: load_yaml_text is yaml.safe_load, except that nesting past MAX_YAML_DEPTH,
aliases expanding past MAX_ALIAS_NODES, a recursive alias, an integer past Python's int/str limit and
a value its constructor rejects are refused; every failure is one `error` (the class the caller
names) naming the source and, where known, the line. Never a RecursionError, a ValueError or a hang.
(The libyaml path against the pure one is tests/core/test_yamlio_libyaml_agrees_with_pure.py's.)
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from ratchet.core.errors import ConfigError
from ratchet.core.yamlio import (
    MAX_ALIAS_NODES,
    MAX_YAML_BYTES,
    MAX_YAML_DEPTH,
    item_lines,
    load_yaml_text,
    load_yaml_text_with_lines,
)

SOURCE = "ratchet.yaml"

# Pieces of YAML syntax (indicators, typed scalars, anchors and aliases, tags, block scalars), so
# generated texts reach past the scanner into composing and constructing.
_PIECES = st.sampled_from(
    [
        "a", "b", ": ", "- ", "\n", "  ", "\t", "[", "]", "{", "}", ", ", "&x ", "*x", "? ", "'q'", '"\\u00e9"',
        '"\\ud800"', '"', "!!str ", "!!int ", "!!float ", "!!timestamp ", "!!binary ", "!!set ", "!!omap ",
        "!!python/name:os.system ", "!x ", "2024-13-01", "2024-01-02T03:04:05Z", "0x1F", "0o17", "0b2",
        "1_000", "1e3", ".nan", "~", "yes", "#c", "|\n", ">-\n", "%YAML 1.1\n", "---\n", "...\n", "<<: ",
        "=", "é", "\u2028", "\x85", "\r\n", "9" * 5000,
    ]
)  # fmt: skip
YAMLISH = st.lists(_PIECES, max_size=16).map("".join)
ANY_TEXT = YAMLISH | st.text(max_size=80)

_KEYS = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FF), max_size=8)
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
DATA: st.SearchStrategy[Any] = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4), max_leaves=20
)


def _outcome(text: str) -> tuple[str, Any]:
    try:
        return "value", load_yaml_text(text, source=SOURCE, error=ConfigError)
    except ConfigError as exc:
        return "error", exc


@given(ANY_TEXT)
@example("a: &a [*a]\n")
@example("a: " + "[" * 5000 + "]" * 5000)
@example("a: !!int\n")
@example("a: 2024-13-01\n")
@example("a: 0x" + "f" * 4000 + "\n")
def test_any_text_is_a_value_or_one_line_of_the_callers_error(text: str) -> None:
    kind, answer = _outcome(text)
    if kind == "error":
        assert type(answer) is ConfigError  # the caller's class, not InputError or a PyYAML error
        assert str(answer) == answer.one_line() and "\n" not in str(answer)
        assert answer.path == SOURCE and str(answer).startswith(f"{SOURCE}:")
        assert answer.line is None or 1 <= answer.line <= len(text.splitlines()) + 1


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for pair in value.items() for part in pair for text in _strings(part)]
    if isinstance(value, (list, set)):
        return [text for part in value for text in _strings(part)]
    return []


@given(ANY_TEXT)
@example('a: "\\ud800"\n')
def test_a_value_can_be_written_as_utf8(text: str) -> None:
    kind, answer = _outcome(text)
    if kind == "value" and "*" not in text:  # (an alias may make the value cyclic; the walk above does not end)
        assert all(part.encode("utf-8") for part in _strings(answer) if part)


@given(ANY_TEXT)
def test_a_value_is_what_safe_load_reads(text: str) -> None:
    kind, answer = _outcome(text)
    if kind == "value":
        assert repr(answer) == repr(yaml.safe_load(text))  # repr keeps 1, 1.0 and True apart


@given(DATA, st.sampled_from([None, False, True]))
def test_dumped_data_reads_back_as_the_same_data(data: Any, flow: bool | None) -> None:
    # (not allow_unicode: PyYAML's emitter then writes a NEL inside quotes, which reads back as a space)
    text = yaml.safe_dump(data, default_flow_style=flow, sort_keys=False)
    assert load_yaml_text(text, source=SOURCE) == data


@given(st.lists(DATA, max_size=6), st.sampled_from(["tasks", "items"]))
def test_item_lines_come_from_the_same_parse(items: list[Any], key: str) -> None:
    text = yaml.safe_dump({"version": 1, key: items}, default_flow_style=False, sort_keys=False)
    value, lines = load_yaml_text_with_lines(text, list_key=key, source=SOURCE)
    assert value == {"version": 1, key: items}
    assert lines == item_lines(text, key)
    assert len(lines) == len(items) and lines == sorted(set(lines))
    assert all(text.splitlines()[line - 1].lstrip().startswith("-") for line in lines)


@given(st.integers(min_value=1, max_value=3 * MAX_YAML_DEPTH), st.sampled_from(["flow", "block"]))
def test_nesting_is_refused_exactly_past_the_limit(depth: int, style: str) -> None:
    if style == "flow":
        text = "a: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n"  # the top mapping is one level
    else:
        text = "".join("  " * level + "k:\n" for level in range(depth)) + "  " * depth + "leaf\n"
    kind, answer = _outcome(text)
    if depth <= MAX_YAML_DEPTH:
        assert kind == "value"
    else:
        assert kind == "error"
        assert answer.message == f"refused: YAML nested more than {MAX_YAML_DEPTH} levels deep"
        assert answer.line == (1 if style == "flow" else MAX_YAML_DEPTH + 1)  # where the one too deep opens


@given(st.integers(min_value=0, max_value=2000), st.integers(min_value=1, max_value=300))
@example(size=999, aliases=100)  # expands to 100 * 1000 nodes: exactly the limit
@example(size=999, aliases=101)
def test_aliases_are_refused_exactly_when_their_expansion_passes_the_limit(size: int, aliases: int) -> None:
    # An anchored list of `size` scalars is size + 1 nodes, and every alias of it adds as many.
    text = "a: &a [" + ", ".join(["x"] * size) + "]\nb: [" + ", ".join(["*a"] * aliases) + "]\n"
    kind, answer = _outcome(text)
    if aliases * (size + 1) <= MAX_ALIAS_NODES:
        assert kind == "value" and len(answer["b"]) == aliases
    else:
        assert kind == "error" and answer.line == 2
        assert answer.message == f"refused: YAML aliases expand past {MAX_ALIAS_NODES} nodes (an alias bomb?)"


@given(st.integers(min_value=1, max_value=2 * sys.get_int_max_str_digits()), st.sampled_from(["", "-", "0x", "0"]))
def test_an_integer_is_refused_exactly_when_python_cannot_print_it(digits: int, prefix: str) -> None:
    text = f"n: {prefix}{'7' * digits}\n"  # YAML 1.1: 0x hex, a leading 0 octal
    limit = sys.get_int_max_str_digits()
    base = {"0x": 16, "0": 8}.get(prefix, 10)
    printable = digits <= limit if base == 10 else int("7" * digits, base) < 10**limit  # (only base 10 has a limit)
    kind, answer = _outcome(text)
    if printable:
        assert kind == "value" and str(answer["n"])  # loaded, and printable
    else:
        assert kind == "error" and answer.line == 1
        assert answer.message == f"refused: an integer longer than {limit} digits"


@pytest.mark.parametrize("char", ["x", "é", "€"])
@given(st.integers(min_value=-2, max_value=2))
def test_the_size_limit_counts_utf8_bytes(char: str, off: int) -> None:
    width = len(char.encode())
    count = (MAX_YAML_BYTES - 2) // width + off  # a comment: "# " and `count` characters
    text = "# " + char * count
    kind, answer = _outcome(text)
    size = 2 + count * width
    if size <= MAX_YAML_BYTES:
        assert kind == "value" and answer is None
    else:
        assert kind == "error"
        assert str(answer) == f"{SOURCE}: refused: {size} bytes; the limit for a YAML file is {MAX_YAML_BYTES} bytes"
