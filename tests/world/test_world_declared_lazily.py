"""A world without a tools/ folder has no declared tools, and says so without importing their models."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from ratchet.world.state import DECLARED_TOOLS_FOLDER, WorldFiles
from ratchet.world.tools.declared import TOOLS_FOLDER, load_declared_tools
from tests.helpers.project_text import FIND_CONTACT_TOOL

from .conftest import CLOCK, REPO

_PROBE = """
import sys
from pathlib import Path
from ratchet.world.state import WorldFiles
world = WorldFiles(Path(sys.argv[1])).world(workspaces_dir=None, workspace=None, frozen_time=sys.argv[2])
print(len(world.declared_tools), "ratchet.world.tools.declared" in sys.modules)
"""


def _probe(world_dir: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(world_dir), CLOCK], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


def test_the_folder_is_the_one_declared_tools_are_read_from() -> None:
    assert DECLARED_TOOLS_FOLDER == TOOLS_FOLDER


def test_no_tools_folder_no_declared_tools_and_no_import(tmp_path: Path) -> None:
    world_dir = tmp_path / "world"
    shutil.copytree(REPO / "bench/world", world_dir)
    assert _probe(world_dir) == "0 False"
    (world_dir / DECLARED_TOOLS_FOLDER).write_text("a file, not a folder\n", encoding="utf-8")
    assert _probe(world_dir) == "0 False"
    assert load_declared_tools(world_dir) == ()  # what the folder check stands in for


def test_a_tools_folder_is_read_as_before(tmp_path: Path) -> None:
    world_dir = tmp_path / "world"
    shutil.copytree(REPO / "bench/world", world_dir)
    (world_dir / DECLARED_TOOLS_FOLDER).mkdir()
    (world_dir / DECLARED_TOOLS_FOLDER / "crm.yaml").write_text(FIND_CONTACT_TOOL, encoding="utf-8")
    assert _probe(world_dir) == "1 True"
    world = WorldFiles(world_dir).world(workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert [t.name for t in world.declared_tools] == [t.name for t in load_declared_tools(world_dir)]
