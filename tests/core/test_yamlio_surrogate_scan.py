"""YAML text that cannot hold a lone surrogate is not walked for one; every text that can is still refused.

Why: walking every scalar of a 10,000-task tasks.yaml was a fifth of parsing it. A lone surrogate
comes only from the text itself or from a \\u / \\U escape in a double-quoted scalar (a tag's %-escapes
decode as strict UTF-8), so a text holding neither needs no walk (ratchet.core.yamlio.may_hold_surrogate).
"""

from __future__ import annotations

import pytest

from ratchet.core.errors import ConfigError
from ratchet.core.yamlio import load_yaml_text, may_hold_surrogate

REFUSED = [
    'a: "\\ud800"\n',
    'a: "\\uDBFF"\n',
    'a: "x\\uDc00y"\n',
    'a: "\\U0000d800"\n',
    'a: "\\U0000DFFF"\n',
    '"\\U0000dabc": 1\n',
    'a: "\\ud83d\\ude00"\n',
    'a:\n  - "ok"\n  - "\\udfff"\n',
]


@pytest.mark.parametrize("text", REFUSED)
def test_every_surrogate_escape_is_seen_and_refused(text: str) -> None:
    assert may_hold_surrogate(text)
    with pytest.raises(ConfigError):
        load_yaml_text(text, source="x.yaml", error=ConfigError)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('a: "\\u00e9t\\u00e9 \\U0001F600"\n', {"a": "\u00e9t\u00e9 \U0001f600"}),
        ("a: caf\u00e9 \\ud800\n", {"a": "caf\u00e9 \\ud800"}),  # plain: a backslash, not an escape (walked, kept)
        ("tasks:\n  - id: t1\n    prompt: what day is it?\n", {"tasks": [{"id": "t1", "prompt": "what day is it?"}]}),
    ],
)
def test_text_without_a_lone_surrogate_loads(text: str, value: object) -> None:
    assert load_yaml_text(text, source="x.yaml") == value


def test_only_surrogate_escapes_or_unencodable_text_need_the_walk() -> None:
    assert not may_hold_surrogate('a: "\\u00e9 \\U0001F600 \\x41"\nb: 100%\n')
    assert may_hold_surrogate("a: \ud800\n")


@pytest.mark.parametrize("text", ["a: !<tag:x%ED%A0%80> b\n", "%TAG !e! tag:%ED%A0%80\n---\na: !e!x b\n"])
def test_a_surrogate_spelled_as_a_tag_escape_is_no_yaml(text: str) -> None:
    assert not may_hold_surrogate(text)
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_yaml_text(text, source="x.yaml", error=ConfigError)
