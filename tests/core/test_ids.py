"""Ids that become paths: strict patterns, and paths that stay inside their root."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import InputError, TaskFileError
from ratchet.core.ids import IdKind, check_id, id_problem, inside


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        (IdKind.TASK, "github-triage-01"),
        (IdKind.TASK, "canary_2"),
        (IdKind.SKILL, "weekly-report"),
        (IdKind.SKILL, "a" * 64),
        (IdKind.SKILL, "café-notes"),  # skills.py accepts any script's lowercase letters; so do paths
        (IdKind.WORKSPACE, "fx-weekend-trip"),
        (IdKind.WORKSPACE, "Data.v2_final"),
        (IdKind.EDIT, "github-triage.R3.1"),
    ],
)
def test_valid_ids(kind: IdKind, value: str) -> None:
    assert id_problem(kind, value) is None
    assert check_id(kind, value) == value


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        (IdKind.TASK, "*"),
        (IdKind.TASK, "../../../ESCAPED"),
        (IdKind.TASK, ""),
        (IdKind.TASK, "Upper"),
        (IdKind.TASK, "a" * 81),
        (IdKind.SKILL, "../x"),
        (IdKind.SKILL, "Weekly"),
        (IdKind.SKILL, "-lead"),
        (IdKind.SKILL, "trail-"),
        (IdKind.SKILL, "double--hyphen"),
        (IdKind.SKILL, "a" * 65),
        (IdKind.SKILL, "_none"),
        (IdKind.SKILL, "a.b"),
        (IdKind.SKILL, "a/b"),
        (IdKind.SKILL, ""),
        (IdKind.WORKSPACE, "../../secret"),
        (IdKind.WORKSPACE, "/etc"),
        (IdKind.WORKSPACE, "a/b"),
        (IdKind.WORKSPACE, "a..b"),
        (IdKind.WORKSPACE, ".hidden"),
        (IdKind.WORKSPACE, "a\nb"),
        (IdKind.EDIT, "x/../../y"),
        (IdKind.EDIT, "x..y"),
    ],
)
def test_invalid_ids(kind: IdKind, value: str) -> None:
    assert id_problem(kind, value) is not None
    with pytest.raises(InputError, match=f"^{kind} "):
        check_id(kind, value)


def test_check_id_names_the_file_and_line_with_the_callers_error() -> None:
    with pytest.raises(TaskFileError) as info:
        check_id(IdKind.TASK, "*", path="tasks.yaml", line=7, error=TaskFileError)
    assert str(info.value) == (
        "tasks.yaml:7: task id '*' must be 1-80 lowercase letters, digits, - or _, starting with a letter or digit"
    )


def test_a_non_string_is_never_an_id() -> None:
    assert (
        id_problem(IdKind.TASK, 7)
        == "task id 7 must be 1-80 lowercase letters, digits, - or _, starting with a letter or digit"
    )


def test_inside_returns_the_joined_path(tmp_path: Path) -> None:
    assert inside(tmp_path, "goldens", "x.json") == tmp_path / "goldens" / "x.json"


@pytest.mark.parametrize("parts", [("..", "x"), ("a", "..", "..", "x"), ("/etc",), ("a", "/etc/passwd")])
def test_inside_refuses_escapes(tmp_path: Path, parts: tuple[str, ...]) -> None:
    with pytest.raises(InputError, match="leads outside"):
        inside(tmp_path / "root", *parts)


def test_inside_refuses_a_symlink_that_points_out(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (root / "link").symlink_to(tmp_path / "outside")
    with pytest.raises(InputError) as info:
        inside(root, "link", "x.json")
    assert str(info.value) == (
        f"{root}: 'link/x.json' leads outside {root} (to {tmp_path / 'outside' / 'x.json'}): use a plain name inside it"
    )
