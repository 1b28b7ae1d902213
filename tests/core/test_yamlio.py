"""ratchet.core.yamlio: values PyYAML's constructors reject are one line naming the file and line."""

from __future__ import annotations

import sys

import pytest

from ratchet.core.errors import ConfigError, InputError
from ratchet.core.yamlio import load_yaml_text

LIMIT = sys.get_int_max_str_digits()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "id: a\nschema_version: " + "1" * (LIMIT + 1) + "\n",
            f"tasks.yaml:2: refused: an integer longer than {LIMIT} digits",
        ),
        ("a:\n  - " + "1_" + "0" * LIMIT + "\n", f"tasks.yaml:2: refused: an integer longer than {LIMIT} digits"),
        # Hex has no conversion limit in int(), but every later str() of the value would fail.
        ("a: 0x" + "f" * LIMIT + "\n", f"tasks.yaml:1: refused: an integer longer than {LIMIT} digits"),
        ("a: ok\nwhen: 2024-13-45\n", "tasks.yaml:2: refused: value '2024-13-45' (month must be in 1..12)"),
    ],
)
def test_a_value_the_constructor_rejects_is_one_line_with_its_line(text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        load_yaml_text(text, source="tasks.yaml")
    assert caught.value.one_line() == message


def test_the_callers_error_type_is_kept() -> None:
    with pytest.raises(ConfigError, match=r"^ratchet.yaml:1: refused: an integer"):
        load_yaml_text("max_agent_turns: " + "9" * (LIMIT + 1), source="ratchet.yaml", error=ConfigError)


def test_an_integer_at_the_limit_still_loads() -> None:
    assert load_yaml_text("a: " + "1" * LIMIT, source="x.yaml") == {"a": int("1" * LIMIT)}


def test_a_lone_surrogate_escape_is_refused_at_its_line() -> None:
    message = "refused: a string holds a surrogate escape (\\ud800-\\udfff) that is not a character"
    for text, line in [
        ('a: 1\nb: "\\ud800"\n', 2),
        ('a:\n  - ok\n  - "x\\udfffy"\n', 3),
        ('"\\udc00": 1\n', 1),
        ('a: &x ["\\ud800"]\nb: *x\n', 1),
    ]:
        with pytest.raises(ConfigError) as caught:
            load_yaml_text(text, source="ratchet.yaml", error=ConfigError)
        assert (caught.value.message, caught.value.line) == (message, line)
    # PyYAML reads a pair of escapes as two surrogates (not one character, as JSON does): refused too.
    with pytest.raises(ConfigError):
        load_yaml_text('a: "\\ud83d\\ude00"\n', source="ratchet.yaml", error=ConfigError)
    assert load_yaml_text('a: "\\U0001F600"\n', source="ratchet.yaml") == {"a": "\U0001f600"}
