"""Noise records on disk: beside the golden, never read as a golden, pinned to the golden they measured."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import GoldenError
from ratchet.goldens.noise import (
    NoiseRecord,
    golden_hash,
    load_noise_records,
    noise_path,
    write_noise_record,
)
from ratchet.goldens.trace import load_golden_files, write_trace
from tests.gate.judge_fakes import make_trace


def _golden(root: Path, output: str = "total: 42") -> tuple[Path, NoiseRecord]:
    golden = make_trace(output)
    path = root / "goldens" / "expense-report" / "t1.json"
    write_trace(path, golden)
    record = NoiseRecord(
        task_id="t1",
        golden_hash=golden_hash(golden),
        agent="sim/agent-1+noise0.2",
        simulated=True,
        repeats=4,
        differed=1,
        varying={"line added": 1},
        runs=[["line added"], [], [], []],
    )
    write_noise_record(noise_path(path), record)
    return path, record


def test_a_record_sits_beside_its_golden_and_is_not_a_golden(tmp_path: Path) -> None:
    path, record = _golden(tmp_path)
    assert noise_path(path).name == "t1.noise.json"
    files = load_golden_files(tmp_path / "goldens")
    assert list(files) == [path]
    assert load_noise_records(files) == {"t1": record}
    assert record.flip_rate == 0.25 and record.covers(["line added"]) and not record.covers([])


def test_a_record_of_a_golden_blessed_again_is_stale_and_left_out(tmp_path: Path) -> None:
    path, _ = _golden(tmp_path)
    write_trace(path, make_trace("total: 43"))
    assert load_noise_records(load_golden_files(tmp_path / "goldens")) == {}


def test_records_read_from_bytes_as_check_reads_the_base(tmp_path: Path) -> None:
    path, record = _golden(tmp_path)
    contents = {p: p.read_bytes() for p in (path, noise_path(path))}
    files = load_golden_files(tmp_path / "goldens", contents)
    assert load_noise_records(files, contents) == {"t1": record}
    assert load_noise_records(files, {path: path.read_bytes()}) == {}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"schema_version": 9}', "unsupported noise record schema_version 9"),
        ("{not json", "t1.noise.json"),
        ('{"schema_version": 1, "task_id": "t1"}', "golden_hash"),
    ],
)
def test_a_bad_record_is_one_golden_error_naming_the_file(tmp_path: Path, text: str, says: str) -> None:
    path, _ = _golden(tmp_path)
    noise_path(path).write_text(text, encoding="utf-8")
    with pytest.raises(GoldenError) as caught:
        load_noise_records(load_golden_files(tmp_path / "goldens"))
    assert says in caught.value.one_line() and "\n" not in caught.value.one_line()


def test_counts_that_disagree_are_refused(tmp_path: Path) -> None:
    path, record = _golden(tmp_path)
    noise_path(path).write_text(record.model_copy(update={"differed": 9}).to_json(), encoding="utf-8")
    with pytest.raises(GoldenError, match="counts disagree"):
        load_noise_records(load_golden_files(tmp_path / "goldens"))


def test_a_part_that_varied_in_another_golden_of_the_skill_is_known_here_too(tmp_path: Path) -> None:
    from ratchet.goldens.noise import share_within_skills

    quiet = NoiseRecord(
        task_id="t1", golden_hash="h1", agent="a", simulated=True, repeats=30, differed=2, varying={"line: Result:": 2}
    )
    noisy = NoiseRecord(
        task_id="t2",
        golden_hash="h2",
        agent="a",
        simulated=True,
        repeats=30,
        differed=5,
        varying={"line added": 3, "line: Result:": 2},
    )
    other = NoiseRecord(
        task_id="t3",
        golden_hash="h3",
        agent="a",
        simulated=True,
        repeats=30,
        differed=4,
        varying={"call added: search": 4},
    )
    goldens = {
        "t1": make_trace("x", task_id="t1"),
        "t2": make_trace("y", task_id="t2"),
        "t3": make_trace("z", task_id="t3", skill="csv-cleaner"),
    }
    shared = share_within_skills({"t1": quiet, "t2": noisy, "t3": other}, goldens)
    assert shared["t1"].seen_elsewhere == ["line added"] and shared["t1"].covers(["line added"])
    assert shared["t1"].flip_rate == quiet.flip_rate  # the flip rate stays the golden's own
    assert shared["t2"].seen_elsewhere == [] and not shared["t3"].covers(["line added"])
    assert "seen_elsewhere" not in shared["t2"].to_json() and "seen_elsewhere" in shared["t1"].to_json()
