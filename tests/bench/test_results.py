"""Reading a results directory: a malformed file is one InputError naming it, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.bench.data.results import (
    RESULTS_FILE,
    TIMINGS_FILE,
    Timings,
    read_replays,
    read_results,
    read_timings,
)
from ratchet.core.errors import InputError
from ratchet.core.jsonio import MAX_JSON_DEPTH
from ratchet.gate.models import EditReplays

_DEEP = "[" * 5000 + "]" * 5000
_BAD = {
    "non-utf8": (b'{"a": "\xff"}', "not UTF-8 text (byte 7): save the file as UTF-8"),
    "deep": (_DEEP.encode(), f"refused: JSON nested more than {MAX_JSON_DEPTH} levels deep"),
    "not-json": (b"{", "not valid JSON: Expecting property name enclosed in double quotes"),
}


@pytest.mark.parametrize("name", sorted(_BAD))
def test_read_results_refuses_a_malformed_file_naming_it(tmp_path: Path, name: str) -> None:
    data, message = _BAD[name]
    (tmp_path / RESULTS_FILE).write_bytes(data)
    with pytest.raises(InputError) as caught:
        read_results(tmp_path)
    assert caught.value.path == str(tmp_path / RESULTS_FILE)
    assert caught.value.message == message


def test_read_results_refuses_a_results_file_of_the_wrong_shape(tmp_path: Path) -> None:
    (tmp_path / RESULTS_FILE).write_text("[1]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"not a results file \(AttributeError\)"):
        read_results(tmp_path)


@pytest.mark.parametrize("name", sorted(_BAD))
def test_read_replays_refuses_a_malformed_file_naming_it(tmp_path: Path, name: str) -> None:
    data, message = _BAD[name]
    path = tmp_path / "e1.json"
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        read_replays(path)
    assert caught.value.path == str(path) and caught.value.message == message


def test_read_replays_reads_what_was_written(tmp_path: Path) -> None:
    path = tmp_path / "e1.json"
    path.write_text('{"replays": {}, "base_replays": {}}', encoding="utf-8")
    assert read_replays(path) == EditReplays(replays={}, base_replays={})
    path.write_text('{"replays": 5}', encoding="utf-8")
    with pytest.raises(InputError, match="cannot read stored replays"):
        read_replays(path)


@pytest.mark.parametrize("name", sorted(_BAD))
def test_a_malformed_timings_sidecar_is_dropped(tmp_path: Path, name: str) -> None:
    (tmp_path / TIMINGS_FILE).write_bytes(_BAD[name][0])
    assert read_timings(tmp_path) == Timings()


def test_timings_round_trip(tmp_path: Path) -> None:
    (tmp_path / TIMINGS_FILE).write_text('{"wall_ms": {"cascade": {"e1": 1.5}}, "run_ids": {}}', encoding="utf-8")
    assert read_timings(tmp_path).wall_ms == {"cascade": {"e1": 1.5}}
