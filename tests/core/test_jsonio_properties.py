"""Properties of ratchet.core.jsonio: canonical JSON is one spelling of the data, and the reader is bounded.

What the module promises: canonical_dumps sorts keys and fixes separators, so equal data is equal bytes;
load_json_text turns every way a text can fail into one `error` naming the source (a syntax error with
its line), and refuses nesting past MAX_JSON_DEPTH and integers past Python's digit limit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ratchet.core.errors import ConfigError
from ratchet.core.jsonio import MAX_JSON_DEPTH, canonical_dumps, decode_utf8, digest, load_json_text

SOURCE = "x.json"

# JSON's values as Python reads them back: no NaN (it is not equal to itself), no infinities.
_SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
)
JSON_DATA: st.SearchStrategy[Any] = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
# Texts near JSON, so the parser gets past its first character; and any text at all.
_JSONISH = st.text(alphabet='[]{}":, \n0123456789-+.eEtruefalsnNI\\u', max_size=60)
ANY_TEXT = _JSONISH | st.text(max_size=60)


def _reordered(data: Any) -> Any:
    """The same data with every object's keys inserted in reverse order."""
    if isinstance(data, dict):
        return {key: _reordered(data[key]) for key in reversed(list(data))}
    if isinstance(data, list):
        return [_reordered(item) for item in data]
    return data


@given(JSON_DATA, st.sampled_from([2, None]))
def test_canonical_json_reads_back_as_the_same_data(data: Any, indent: int | None) -> None:
    text = canonical_dumps(data, indent=indent)
    assert load_json_text(text, source=SOURCE, error=ConfigError) == data
    assert canonical_dumps(json.loads(text), indent=indent) == text  # a fixed point: dump(load(dump(x))) == dump(x)


@given(JSON_DATA)
def test_equal_data_is_equal_bytes_whatever_the_key_order(data: Any) -> None:
    same = _reordered(data)
    for indent in (2, None):
        assert canonical_dumps(same, indent=indent).encode() == canonical_dumps(data, indent=indent).encode()
    assert digest(same) == digest(data)
    assert canonical_dumps(data).endswith("\n")
    assert "\n" not in canonical_dumps(data, indent=None)


@given(ANY_TEXT)
@example('{\n  "a": [1,\n}')
@example("[" * 3000 + "]" * 3000)
@example("1" * 5000)
def test_any_text_is_data_or_one_line_naming_the_source(text: str) -> None:
    try:
        load_json_text(text, source=SOURCE, error=ConfigError)
    except ConfigError as exc:
        assert type(exc) is ConfigError
        assert str(exc) == exc.one_line() and "\n" not in str(exc)
        assert str(exc).startswith(f"{SOURCE}:") and exc.path == SOURCE
        assert exc.line is None or 1 <= exc.line <= text.count("\n") + 1


@given(st.integers(min_value=1, max_value=3 * MAX_JSON_DEPTH), st.sampled_from(["[", '{"k":']))
def test_nesting_is_refused_exactly_past_the_limit(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    inner = "[]" if opener == "[" else "0"  # an object's innermost value is a scalar: one level fewer
    levels = depth + 1 if opener == "[" else depth
    text = opener * depth + inner + closer * depth
    if levels <= MAX_JSON_DEPTH:
        load_json_text(text, source=SOURCE, error=ConfigError)
    else:
        with pytest.raises(ConfigError, match=f"^{SOURCE}: refused: JSON nested more than {MAX_JSON_DEPTH} levels"):
            load_json_text(text, source=SOURCE, error=ConfigError)


@given(st.integers(min_value=1, max_value=2 * sys.get_int_max_str_digits()), st.sampled_from(["", "-", '{"n": ']))
def test_an_integer_is_refused_exactly_past_pythons_digit_limit(digits: int, prefix: str) -> None:
    text = prefix + "9" * digits + ("}" if prefix.startswith("{") else "")
    limit = sys.get_int_max_str_digits()
    if digits <= limit:
        load_json_text(text, source=SOURCE, error=ConfigError)
    else:
        with pytest.raises(ConfigError) as caught:
            load_json_text(text, source=SOURCE, error=ConfigError)
        assert str(caught.value) == f"{SOURCE}: refused: a JSON number longer than {limit} digits"


@given(st.binary(max_size=40))
@example(b'{\n  "output": "caf\xe9"\n}\n')
def test_bytes_are_their_utf8_text_or_one_line_with_the_line_of_the_bad_byte(data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        with pytest.raises(ConfigError) as caught:
            decode_utf8(data, path=Path(SOURCE), error=ConfigError)
        assert caught.value.line == data.count(b"\n", 0, bad.start) + 1
        assert "\n" not in str(caught.value)
    else:
        assert decode_utf8(data, path=Path(SOURCE), error=ConfigError) == text
