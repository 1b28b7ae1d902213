"""A task's workspace is a folder inside the workspaces dir, and nothing it links to outside is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import InputError
from ratchet.world import load_world

from .conftest import CLOCK, REPO


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """(workspaces dir, a secret file beside it)."""
    workspaces = tmp_path / "project" / "workspaces"
    (workspaces / "trip").mkdir(parents=True)
    (workspaces / "trip" / "notes.txt").write_text("inside\n")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.txt").write_text("TOP SECRET\n")
    return workspaces, secret


def _load(workspaces: Path, workspace: str) -> dict[str, str]:
    return load_world(REPO / "bench/world", workspaces_dir=workspaces, workspace=workspace, frozen_time=CLOCK).files


def test_a_plain_workspace_loads(layout: tuple[Path, Path]) -> None:
    workspaces, _ = layout
    assert _load(workspaces, "trip") == {"notes.txt": "inside\n"}


@pytest.mark.parametrize("workspace", ["../../secret", "../../../etc", "/etc", "trip/../../../secret"])
def test_a_workspace_outside_the_workspaces_dir_is_refused(layout: tuple[Path, Path], workspace: str) -> None:
    workspaces, _ = layout
    with pytest.raises(InputError, match=r": workspace name .* must be one folder name"):
        _load(workspaces, workspace)


def test_a_workspace_folder_that_is_a_symlink_out_is_refused(layout: tuple[Path, Path]) -> None:
    workspaces, secret = layout
    (workspaces / "linked").symlink_to(secret)
    with pytest.raises(InputError) as info:
        _load(workspaces, "linked")
    assert str(info.value) == (
        f"{workspaces}: 'linked' leads outside {workspaces} (to {secret}): use a plain name inside it"
    )


def test_a_symlinked_file_pointing_outside_is_an_error_naming_it(layout: tuple[Path, Path]) -> None:
    workspaces, secret = layout
    link = workspaces / "trip" / "key.txt"
    link.symlink_to(secret / "key.txt")
    with pytest.raises(InputError) as info:
        _load(workspaces, "trip")
    assert str(info.value) == (
        f"{link}: workspace file is a symlink to {secret / 'key.txt'}, outside the workspace: "
        "replace it with the file itself"
    )


def test_a_symlinked_folder_pointing_outside_is_an_error_naming_it(layout: tuple[Path, Path]) -> None:
    workspaces, secret = layout
    link = workspaces / "trip" / "more"
    link.symlink_to(secret)
    with pytest.raises(InputError) as info:
        _load(workspaces, "trip")
    assert str(info.value) == (
        f"{link}: workspace file is a symlink to {secret}, outside the workspace: replace it with the file itself"
    )


def test_a_symlink_inside_the_workspace_is_read(layout: tuple[Path, Path]) -> None:
    workspaces, _ = layout
    (workspaces / "trip" / "alias.txt").symlink_to("notes.txt")
    assert _load(workspaces, "trip") == {"alias.txt": "inside\n", "notes.txt": "inside\n"}
