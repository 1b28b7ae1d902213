from __future__ import annotations

import stat
from pathlib import Path

from ratchet.core.jsonio import atomic_write_text, canonical_dumps, digest


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
