"""record + bless: deterministic goldens in goldens/<skill>/<task>.json."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.bless.record import bless, record_tasks
from ratchet.cli import app
from ratchet.config.project import load_project
from ratchet.core.errors import InputError

runner = CliRunner()


def _goldens(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "goldens").glob("*/*.json"))}


def test_recording_twice_gives_byte_identical_goldens(demo_repo: Path, tmp_path: Path) -> None:
    first = _goldens(demo_repo)
    assert len(first) == 23 and "goldens/_none/canary-01.json" in first
    project = load_project(demo_repo, home=tmp_path / "another-home")
    result = record_tasks(project)
    assert result.errors == [] and len(result.written) == 23
    bless(project)
    assert _goldens(demo_repo) == first


def test_bless_by_id_and_unknown_ids(demo_repo: Path, tmp_path: Path) -> None:
    project = load_project(demo_repo, home=tmp_path / "h")
    record_tasks(project, ["github-triage-01", "canary-02"])
    assert sorted(p.name for p in project.pending_dir.iterdir()) == ["canary-02.json", "github-triage-01.json"]
    blessed = bless(project, ["canary-02"])
    assert [p.relative_to(demo_repo).as_posix() for p in blessed] == ["goldens/_none/canary-02.json"]
    with pytest.raises(InputError, match="no pending trace for: canary-02"):
        bless(project, ["canary-02"])
    with pytest.raises(InputError, match="unknown task id"):
        record_tasks(project, ["nope"])


def test_record_and_bless_cli(demo_repo: Path, tmp_path: Path) -> None:
    home = str(tmp_path / "cli-home")
    result = runner.invoke(app, ["record", "github-triage-02", "--project", str(demo_repo), "--work", home])
    assert result.exit_code == 0 and result.stdout.splitlines()[-1].startswith("recorded 1 pending trace(s)")
    result = runner.invoke(app, ["bless", "--project", str(demo_repo), "--work", home])
    assert result.exit_code == 0 and result.stdout.startswith("blessed 1 golden(s)")
    result = runner.invoke(app, ["bless", "nope", "--project", str(demo_repo), "--work", home])
    assert result.exit_code == 2 and result.stderr == "error: no pending trace for: nope (run `ratchet record` first)\n"


def test_record_checks_every_workspace_before_writing_a_trace(demo_repo: Path, tmp_path: Path) -> None:
    tasks_file = demo_repo / "tasks.yaml"
    text = tasks_file.read_text(encoding="utf-8")
    last = text.rindex("workspace: fx-")
    tasks_file.write_text(
        text[:last] + "workspace: no-such-workspace\n" + text[text.index("\n", last) + 1 :], encoding="utf-8"
    )
    project = load_project(demo_repo, home=tmp_path / "h")
    with pytest.raises(InputError, match="workspace 'no-such-workspace' not found") as caught:
        record_tasks(project)
    assert caught.value.path is not None and caught.value.path.endswith("no-such-workspace")
    assert not project.pending_dir.exists() or list(project.pending_dir.iterdir()) == []


def test_record_refuses_a_file_in_place_of_pending(demo_repo: Path, tmp_path: Path) -> None:
    project = load_project(demo_repo, home=tmp_path / "h")
    project.home.mkdir()
    project.pending_dir.write_text("x\n", encoding="utf-8")
    with pytest.raises(InputError, match="keeps pending traces in this folder") as caught:
        record_tasks(project, ["github-triage-01"])
    assert caught.value.path == str(project.pending_dir)
    assert project.pending_dir.read_text(encoding="utf-8") == "x\n"
