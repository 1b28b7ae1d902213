"""WorldFiles: a world read once for a whole check, every replay handed a fresh copy of its own.

The copy must be the world load_world reads (same data, digest, sources, volatile keys,
workspace files and declared tools), independent of every other copy, and the files must not
be read again (a test changes them on disk and sees no difference).
"""

from __future__ import annotations

import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ratchet.core.errors import InputError
from ratchet.world import World, load_world
from ratchet.world.state import WorldFiles
from tests.helpers.project_text import FIND_CONTACT_TOOL

from .conftest import CLOCK, REPO

WORKSPACES = REPO / "bench/workspaces"


def _same(a: World, b: World) -> None:
    assert a.data == b.data
    assert a.digest() == b.digest()
    assert a.sources == b.sources
    assert a.volatile_patterns == b.volatile_patterns
    assert a.files == b.files
    assert a.frozen_time == b.frozen_time
    assert [t.definition for t in a.declared_tools] == [t.definition for t in b.declared_tools]


@pytest.fixture
def world_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "world"
    shutil.copytree(REPO / "bench/world", folder)
    (folder / "tools").mkdir()
    (folder / "tools" / "crm.yaml").write_text(FIND_CONTACT_TOOL, encoding="utf-8")
    return folder


@pytest.mark.parametrize("workspace", [None, "fx-weekend-trip", "fx-toronto"])
def test_each_world_is_the_one_load_world_reads(world_dir: Path, tmp_path: Path, workspace: str | None) -> None:
    overlay = tmp_path / "drift.yaml"
    overlay.write_text('fx:\n  rates:\n    "2026-10-09": {EUR: 1.1111}\n', encoding="utf-8")
    files = WorldFiles(world_dir, overlays=(overlay,))
    loaded = load_world(
        world_dir, workspaces_dir=WORKSPACES, workspace=workspace, frozen_time=CLOCK, overlays=(overlay,)
    )
    _same(files.world(workspaces_dir=WORKSPACES, workspace=workspace, frozen_time=CLOCK), loaded)
    assert loaded.declared_tools  # the fixture's declared tool is there, so the comparison covers it
    assert loaded.data["fx"]["rates"]["2026-10-09"]["EUR"] == 1.1111


def test_the_frozen_clock_is_each_world_s_own(world_dir: Path) -> None:
    files = WorldFiles(world_dir)
    later = files.world(workspaces_dir=None, workspace=None, frozen_time="2026-11-01T09:00:00Z")
    assert later.frozen_time == "2026-11-01T09:00:00Z"
    assert files.world(workspaces_dir=None, workspace=None, frozen_time=CLOCK).frozen_time == CLOCK


def test_a_replay_changing_its_world_changes_no_other(world_dir: Path) -> None:
    files = WorldFiles(world_dir)
    first = files.world(workspaces_dir=WORKSPACES, workspace="fx-weekend-trip", frozen_time=CLOCK)
    before = files.world(workspaces_dir=WORKSPACES, workspace="fx-weekend-trip", frozen_time=CLOCK).digest()
    first.data["github"]["repos"]["acme/widgets"]["issues"].clear()
    first.data["people"].append({"handle": "intruder"})
    first.files["weekend.csv"] = "changed"
    first.read("fx.rates.2026-10-09.EUR", 1.0, 0)
    second = files.world(workspaces_dir=WORKSPACES, workspace="fx-weekend-trip", frozen_time=CLOCK)
    assert second.digest() == before
    assert second.volatile_reads == []
    assert second.files["weekend.csv"] != "changed"


def test_the_files_are_read_once(world_dir: Path, tmp_path: Path) -> None:
    workspaces = tmp_path / "workspaces"
    shutil.copytree(WORKSPACES / "fx-weekend-trip", workspaces / "fx-weekend-trip")
    files = WorldFiles(world_dir)
    first = files.world(workspaces_dir=workspaces, workspace="fx-weekend-trip", frozen_time=CLOCK)
    for path in world_dir.rglob("*.yaml"):
        path.write_text("people: [unclosed\n", encoding="utf-8")  # a second read would be an InputError
    shutil.rmtree(workspaces)
    _same(files.world(workspaces_dir=workspaces, workspace="fx-weekend-trip", frozen_time=CLOCK), first)


def test_a_bad_world_file_is_refused_by_the_first_world_asked_for(tmp_path: Path) -> None:
    # Not when the WorldFiles is made: a caller checks what it checks first (a harness binary) as before.
    (tmp_path / "bad.yaml").write_text("people:\n  - handle: x\n  name: [unclosed\n", encoding="utf-8")
    files = WorldFiles(tmp_path)
    with pytest.raises(InputError) as info:
        files.world(workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert info.value.one_line().startswith(f"{tmp_path / 'bad.yaml'}:")


def test_a_missing_workspace_is_refused_for_the_task_that_needs_it(world_dir: Path, tmp_path: Path) -> None:
    files = WorldFiles(world_dir)
    assert files.world(workspaces_dir=None, workspace=None, frozen_time=CLOCK).files == {}
    with pytest.raises(InputError, match="workspace 'nope' not found"):
        files.world(workspaces_dir=tmp_path, workspace="nope", frozen_time=CLOCK)
    with pytest.raises(InputError, match="no workspaces folder is configured"):
        files.world(workspaces_dir=None, workspace="fx-toronto", frozen_time=CLOCK)


def test_a_world_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "world").write_text("people: []\n", encoding="utf-8")
    with pytest.raises(InputError, match="this is a file, but the world is a folder"):
        WorldFiles(tmp_path / "world").world(workspaces_dir=None, workspace=None, frozen_time=CLOCK)


def test_replays_side_by_side_share_one_read(world_dir: Path) -> None:
    # ratchet.core.pool runs a check's pairs on threads, all asking the same WorldFiles at once.
    files = WorldFiles(world_dir)
    start = threading.Barrier(8)

    def one(_: int) -> World:
        start.wait()
        return files.world(workspaces_dir=WORKSPACES, workspace="fx-toronto", frozen_time=CLOCK)

    with ThreadPoolExecutor(max_workers=8) as pool:
        worlds = list(pool.map(one, range(8)))
    expected = load_world(world_dir, workspaces_dir=WORKSPACES, workspace="fx-toronto", frozen_time=CLOCK)
    for world in worlds:
        _same(world, expected)
    assert len({id(world.data) for world in worlds}) == 8


def test_worlds_loaded_separately_share_no_data(world_dir: Path) -> None:
    # Parses are kept by path and text across loads (the gate's offered tools, the bench): never the data.
    first = load_world(world_dir, workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    before = first.digest()
    first.data["github"]["repos"]["acme/widgets"]["issues"].clear()
    first.volatile_patterns = ()
    again = load_world(world_dir, workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert again.digest() == before
    assert again.data["github"]["repos"]["acme/widgets"]["issues"]
    assert again.is_volatile("fx.rates.2026-10-09.EUR")


def test_a_changed_world_file_is_read_again(world_dir: Path) -> None:
    fx = world_dir / "fx.yaml"
    assert load_world(world_dir, workspaces_dir=None, workspace=None, frozen_time=CLOCK).data["fx"]["rates"]
    fx.write_text('fx:\n  rates:\n    "2026-10-09": {EUR: 2.5}\n', encoding="utf-8")
    moved = load_world(world_dir, workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert moved.data["fx"]["rates"] == {"2026-10-09": {"EUR": 2.5}}
    assert not moved.is_volatile("fx.rates.2026-10-09.EUR")  # the volatile list went with the old text
    fx.write_text("fx: [unclosed\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"fx\.yaml:2: not valid YAML"):
        load_world(world_dir, workspaces_dir=None, workspace=None, frozen_time=CLOCK)
