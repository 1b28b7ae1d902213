from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ratchet.core.errors import GoldenError
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, digest, load_json_text


def test_canonical_json_is_key_order_free() -> None:
    assert (
        canonical_dumps({"b": 1, "a": [2]})
        == canonical_dumps({"a": [2], "b": 1})
        == '{\n  "a": [\n    2\n  ],\n  "b": 1\n}\n'
    )
    assert digest({"b": 1, "a": 2}) == digest({"a": 2, "b": 1})


def test_atomic_write_leaves_no_temp_and_a_readable_file(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "x.json"
    atomic_write_text(target, "one")
    assert target.read_text() == "one" and stat.S_IMODE(target.stat().st_mode) == 0o644
    target.chmod(0o600)
    atomic_write_text(target, "two")
    assert target.read_text() == "two" and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["x.json"]


def test_a_lone_surrogate_escape_is_refused_where_json_is_read() -> None:
    # json.loads accepts "\ud800" and hands back a str that no UTF-8 writer takes: a golden or verdict holding
    # it would crash when it is next written, far from the file that carried it.
    # Upper-case hex too, and a lone half after an escaped backslash or a whole pair: the quick look at the
    # text only decides when nothing needs walking.
    for text in [
        '{"a": "\\ud800"}',
        '["ok", "x\\udfffy"]',
        '{"\\udc00": 1}',
        '"\\uDBFF"',
        '["\\\\", "\\ud83d\\ude00\\udc00"]',
    ]:
        with pytest.raises(GoldenError) as caught:
            load_json_text(text, source="t.json", error=GoldenError)
        assert str(caught.value) == (
            "t.json: refused: a string holds a surrogate escape (\\ud800-\\udfff) that is not a character"
        )
    assert load_json_text('"\\ud83d\\ude00"', source="t.json", error=GoldenError) == "\U0001f600"  # a pair is text


def test_nesting_is_measured_past_the_quick_count() -> None:
    # More than MAX_JSON_DEPTH brackets side by side is shallow; that many nested is refused.
    wide = "[" + ",".join(["[]"] * 150) + "]"
    assert len(load_json_text(wide, source="t.json", error=GoldenError)) == 150
    deep = "[" * 101 + "]" * 101
    with pytest.raises(GoldenError, match="nested more than 100 levels deep"):
        load_json_text(deep, source="t.json", error=GoldenError)
    assert load_json_text("[" * 100 + "]" * 100, source="t.json", error=GoldenError) is not None
