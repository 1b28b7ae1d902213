"""Bench edit ids (and the skill an edit names) become paths: they are checked when edits are read."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.bench.data.dataset import read_edit, read_edits, write_edit
from ratchet.bench.data.models import Edit
from ratchet.core.errors import InputError


def _edit(edit_id: str, skill: str = "weekly-report") -> Edit:
    return Edit(id=edit_id, skill=skill, type="R1", variant=1, description="d", skill_md="---\n", base_content_hash="h")


def _write(folder: Path, edit: Edit, *, name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name or edit.id}.json"
    path.write_text(edit.to_json(), encoding="utf-8")
    return path


def test_plain_edits_read_back(tmp_path: Path) -> None:
    edit = _edit("weekly-report.R1.1")
    write_edit(tmp_path, edit)
    assert read_edits(tmp_path) == {"weekly-report.R1.1": edit}


@pytest.mark.parametrize("edit_id", ["*", "x..y", ".hidden", "a b"])
def test_an_edit_id_that_is_not_a_plain_name_is_refused(tmp_path: Path, edit_id: str) -> None:
    path = _write(tmp_path, _edit(edit_id))
    with pytest.raises(InputError) as info:
        read_edits(tmp_path)
    assert str(info.value) == (
        f"{path}: edit id {edit_id!r} must be 1-128 letters, digits, ., - or _, starting with a letter or digit, "
        "no '..'"
    )


def test_an_edit_id_with_a_path_in_it_is_refused_before_its_file_name(tmp_path: Path) -> None:
    path = _write(tmp_path, _edit("../../ESCAPED"), name="weekly-report.R1.1")
    with pytest.raises(InputError, match=r": edit id '../../ESCAPED' must be"):
        read_edit(path)


def test_an_edit_skill_that_is_not_a_skill_name_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, _edit("weekly-report.R1.1", skill="../../etc"))
    with pytest.raises(InputError) as info:
        read_edits(tmp_path)
    assert str(info.value) == (
        f"{path}: skill name '../../etc' must be 1-64 lowercase letters, digits and single hyphens, "
        "no hyphen at either end"
    )


def test_write_edit_refuses_an_id_that_leaves_the_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"edit id '\.\./ESCAPED' must be"):
        write_edit(tmp_path / "edits", _edit("../ESCAPED"))
    assert list(tmp_path.rglob("*ESCAPED*")) == []
