"""load_goldens: every .json under the goldens folder is a golden in its place, or an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import GoldenError
from ratchet.goldens.trace import Trace, load_golden_files, load_goldens, read_trace, write_trace


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


def _write_raw(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('"schema_version": 1', '"schema_version": true', "unsupported schema_version True (this Ratchet reads 1)"),
        ('"cost_usd": 0.0', '"cost_usd": NaN', "invalid trace: cost_usd: Input should be a finite number"),
        ('"cost_usd": 0.0', '"cost_usd": -Infinity', "invalid trace: cost_usd: Input should be a finite number"),
        ('"cost_usd": 0.0', '"cost_usd": -1', "invalid trace: cost_usd: Input should be greater than or equal to 0"),
        (
            '"frozen_time": "2026-10-14T16:00:00Z"',
            '"frozen_time": "yesterday"',
            "invalid trace: frozen_time: Value error, must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, "
            "not 'yesterday'",
        ),
    ],
)
def test_a_golden_with_a_value_no_run_writes_is_an_error(tmp_path: Path, old: str, new: str, message: str) -> None:
    text = _golden("t1").to_json()
    assert old in text
    path = _write_raw(tmp_path / "goldens" / "a" / "t1.json", text.replace(old, new))
    with pytest.raises(GoldenError) as info:
        load_goldens(tmp_path / "goldens")
    assert info.value.one_line() == f"{path}: {message}"


def test_a_golden_of_a_failed_run_is_an_error_but_a_pending_one_reads(tmp_path: Path) -> None:
    failed = _golden("t1").model_copy(update={"status": "error", "error": "boom"})
    write_trace(tmp_path / "goldens" / "a" / "t1.json", failed)
    with pytest.raises(GoldenError) as info:
        load_goldens(tmp_path / "goldens")
    assert info.value.one_line() == (
        f"{tmp_path / 'goldens' / 'a' / 't1.json'}: a golden must be a run with status "
        "ok, not 'error': re-record the task and bless a run that succeeded"
    )
    assert read_trace(tmp_path / "goldens" / "a" / "t1.json").status == "error"  # what bless reads, and refuses


def test_golden_files_name_the_file_each_golden_came_from(tmp_path: Path) -> None:
    write_trace(tmp_path / "goldens" / "a" / "x.json", _golden("t1"))
    assert {
        path.relative_to(tmp_path).as_posix(): trace.task_id
        for path, trace in load_golden_files(tmp_path / "goldens").items()
    } == {"goldens/a/x.json": "t1"}
