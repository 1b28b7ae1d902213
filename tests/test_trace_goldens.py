"""load_goldens: every .json under the goldens folder is a golden in its place, or an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.errors import GoldenError
from ratchet.trace import Trace, load_goldens, write_trace


def _golden(task_id: str) -> Trace:
    return Trace(task_id=task_id, prompt="p", seed=1, frozen_time="2026-10-14T16:00:00Z")


def test_goldens_in_skill_folders_load_and_other_files_are_ignored(tmp_path: Path) -> None:
    write_trace(tmp_path / "goldens" / "a" / "t1.json", _golden("t1"))
    (tmp_path / "goldens" / "README.md").write_text("notes\n", encoding="utf-8")
    assert list(load_goldens(tmp_path / "goldens")) == ["t1"]


@pytest.mark.parametrize("where", ["stray.json", "a/old/stray.json"])
def test_a_json_out_of_place_is_an_error(tmp_path: Path, where: str) -> None:
    write_trace(tmp_path / "goldens" / "a" / "t1.json", _golden("t1"))
    write_trace(tmp_path / "goldens" / where, _golden("t2"))
    with pytest.raises(GoldenError) as info:
        load_goldens(tmp_path / "goldens")
    assert info.value.one_line() == (
        f"{tmp_path / 'goldens' / where}: a golden must be goldens/<skill>/<task>.json; move it there or delete it"
    )
