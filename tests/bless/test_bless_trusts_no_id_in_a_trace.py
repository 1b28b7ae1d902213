"""bless trusts no id inside a pending trace, and never blesses a failed run."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.bless.record import bless, bless_pending, record_tasks
from ratchet.cli import app
from ratchet.config.project import Project, load_project
from ratchet.core.errors import InputError
from ratchet.goldens.trace import SkillRef, read_trace, write_trace

runner = CliRunner()
NO_SCORE = (  # what bless says of a skill no `ratchet mutate` has measured (tests/cli/test_bless_mutation_score.py)
    "no mutation score for github-triage: ratchet mutate github-triage shows which breakages of a skill its goldens "
    "would notice (docs/mutate.md)\n"
)


def _goldens(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "goldens").glob("*/*.json"))}


@pytest.fixture
def project(demo_repo: Path, tmp_path: Path) -> Project:
    project = load_project(demo_repo, home=tmp_path / "home")
    assert record_tasks(project, ["github-triage-01", "github-triage-02"]).errors == []
    return project


def _rewrite(project: Project, name: str, *, to: str | None = None, **update: object) -> Path:
    """Rewrite pending trace `name` with `update` applied, saved as `to` (default: same file)."""
    source = project.pending_dir / f"{name}.json"
    trace = read_trace(source)
    target = project.pending_dir / f"{to or name}.json"
    if target != source:
        source.unlink()
    write_trace(target, trace.model_copy(update=update))
    return target


def _bless_cli(project: Project, *ids: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["bless", *ids, "--project", str(project.root), "--work", str(project.home)])
    return result.exit_code, result.stdout, result.stderr


def test_a_star_task_id_deletes_no_golden(project: Project) -> None:
    before = _goldens(project.root)
    _rewrite(project, "github-triage-01", task_id="*")
    code, out, err = _bless_cli(project)
    assert code == 2
    assert err.splitlines() == [
        f"error: {project.pending_dir / 'github-triage-01.json'}: pending trace holds task id '*', "
        "not the file's name 'github-triage-01': re-record it with `ratchet record github-triage-01`",
        "error: 1 pending trace(s) refused; fix or re-record them, then bless again",
    ]
    assert out == f"blessed 1 golden(s) into {project.root / 'goldens'}\n{NO_SCORE}"
    after = _goldens(project.root)
    assert set(after) == set(before)
    assert (project.pending_dir / "github-triage-01.json").exists()


def test_a_star_file_with_a_star_task_id_is_refused(project: Project) -> None:
    before = _goldens(project.root)
    _rewrite(project, "github-triage-01", to="*", task_id="*")
    result = bless_pending(project)
    assert [p.name for p in result.blessed] == ["github-triage-02.json"]
    assert result.refused == [
        f"{project.pending_dir / '*.json'}: task id '*' must be 1-80 lowercase letters, digits, - or _, "
        "starting with a letter or digit"
    ]
    assert set(_goldens(project.root)) == set(before)


def test_a_dotdot_task_id_writes_nothing_outside(project: Project, tmp_path: Path) -> None:
    _rewrite(project, "github-triage-02", task_id="../../../ESCAPED")  # goldens/<skill>/ + this = tmp_path/
    result = bless_pending(project)
    assert [p.name for p in result.blessed] == ["github-triage-01.json"]
    assert result.refused == [
        f"{project.pending_dir / 'github-triage-02.json'}: pending trace holds task id '../../../ESCAPED', "
        "not the file's name 'github-triage-02': re-record it with `ratchet record github-triage-02`"
    ]
    assert list(tmp_path.rglob("*ESCAPED*")) == []


def test_a_dotdot_skill_name_writes_nothing_outside(project: Project, tmp_path: Path) -> None:
    trace = read_trace(project.pending_dir / "github-triage-01.json")
    ref = trace.skills_fired[0]
    bad = SkillRef(name="../../ESCAPED", content_hash=ref.content_hash, substance_hash=ref.substance_hash)
    _rewrite(project, "github-triage-01", skills_fired=[bad])
    result = bless_pending(project)
    assert [p.name for p in result.blessed] == ["github-triage-02.json"]
    assert result.refused == [
        f"{project.pending_dir / 'github-triage-01.json'}: skill name '../../ESCAPED' must be 1-64 lowercase "
        "letters, digits and single hyphens, no hyphen at either end"
    ]
    assert list(tmp_path.rglob("*ESCAPED*")) == []


def test_a_task_id_missing_from_tasks_yaml_is_refused(project: Project) -> None:
    before = _goldens(project.root)
    _rewrite(project, "github-triage-01", to="ghost-01", task_id="ghost-01")
    result = bless_pending(project)
    assert [p.name for p in result.blessed] == ["github-triage-02.json"]
    assert result.refused == [
        f"{project.pending_dir / 'ghost-01.json'}: task 'ghost-01' is not in "
        f"{project.path('tasks')}: delete the pending trace or add the task"
    ]
    assert set(_goldens(project.root)) == set(before)


def test_a_symlinked_skill_folder_in_goldens_is_not_followed(project: Project, tmp_path: Path) -> None:
    goldens = project.path("goldens")
    outside = tmp_path / "outside"
    (goldens / "github-triage").rename(outside)
    (goldens / "github-triage").symlink_to(outside)
    result = bless_pending(project, ["github-triage-01"])
    assert result.blessed == []
    assert len(result.refused) == 1 and "leads outside" in result.refused[0]
    assert (outside / "github-triage-01.json").exists()  # not replaced, not deleted


def test_an_error_trace_is_refused_and_the_others_still_bless(project: Project) -> None:
    before = _goldens(project.root)
    _rewrite(project, "github-triage-01", status="error", error="model call failed: timeout")
    code, out, err = _bless_cli(project)
    assert code == 2
    assert out == f"blessed 1 golden(s) into {project.root / 'goldens'}\n{NO_SCORE}"
    assert err.splitlines() == [
        f"error: {project.pending_dir / 'github-triage-01.json'}: task github-triage-01 ended in error "
        "(model call failed: timeout): fix the cause and re-record it, a failed run is never a golden",
        "error: 1 pending trace(s) refused; fix or re-record them, then bless again",
    ]
    after = _goldens(project.root)
    assert after["goldens/github-triage/github-triage-01.json"] == before["goldens/github-triage/github-triage-01.json"]
    assert not (project.pending_dir / "github-triage-02.json").exists()
    assert (project.pending_dir / "github-triage-01.json").exists()


def test_bless_as_a_library_call_raises_after_blessing_the_rest(project: Project) -> None:
    _rewrite(project, "github-triage-01", status="error", error="boom")
    with pytest.raises(InputError, match=r"^1 pending trace\(s\) refused: .*task github-triage-01 ended in error"):
        bless(project)
    assert not (project.pending_dir / "github-triage-02.json").exists()
