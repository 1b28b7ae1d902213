"""`ratchet tasks generate` / `accept` on the demo project (simulator): deterministic, audited, reviewable."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import Result
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.demo_repo import demo_project

runner = CliRunner()

TEMPLATES = """\
schema_version: 1
templates:
- id: triage
  skill: github-triage
  prompt: Please triage {issue} in acme/widgets.
  slots:
    issue:
      world: [github, repos, acme/widgets, issues]
      field: number
      where: {state: open}
      format: "#{}"
  items: issue
  distractor: Leave {issue} alone, it was handled yesterday.
  edge: [999]
  edge_note: the issue does not exist; the skill must stop without a side effect
  knobs:
    distractors: [0, 1]
    edge_case: [false, true]
- id: triage-weather
  skill: github-triage
  prompt: What will the weather be in {city} tomorrow?
  slots:
    city: [Lisbon]
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = demo_project(tmp_path, monkeypatch)
    (root / "task_templates.yaml").write_text(TEMPLATES, encoding="utf-8")
    return root


def _generate(root: Path, work: Path, seed: int) -> tuple[str, dict[str, bytes]]:
    result = runner.invoke(
        app, ["tasks", "generate", "github-triage", "--seed", str(seed), "--project", str(root), "--work", str(work)]
    )
    assert result.exit_code == 0, result.output
    out = work / "generated" / "github-triage"
    return result.stdout, {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_generate_is_byte_identical_for_a_seed_audited_and_leaves_the_project_alone(
    project: Path, tmp_path: Path
) -> None:
    before = (project / "tasks.yaml").read_bytes()
    stdout, first = _generate(project, tmp_path / "w1", 5)
    _, again = _generate(project, tmp_path / "w2", 5)
    assert first == again
    assert (project / "tasks.yaml").read_bytes() == before
    assert not (tmp_path / "w1" / "pending").exists()
    _, other = _generate(project, tmp_path / "w3", 6)
    assert other["tasks.yaml"] != first["tasks.yaml"]
    assert sorted(first) == [
        "audit.json",
        "tasks.yaml",
        "traces/triage-h1d0-s5-1.json",
        "traces/triage-h1d0e-s5-1.json",
        "traces/triage-h1d1-s5-1.json",
        "traces/triage-h1d1e-s5-1.json",
        "traces/triage-weather-h1d0-s5-1.json",
    ]
    kept = [t["id"] for t in yaml.safe_load(first["tasks.yaml"])["tasks"]]
    assert kept == ["triage-h1d0-s5-1", "triage-h1d0e-s5-1", "triage-h1d1-s5-1", "triage-h1d1e-s5-1"]
    # The audit rejects the task its skill does not act on: it routes to no skill, and only its wording differs.
    assert (
        "triage-weather-h1d0-s5-1  rejected: it loaded no skill, not github-triage; it differs from a do-nothing "
        "agent's trace only in wording (output_changed): its golden could catch no change in what the skill does"
    ) in stdout.splitlines()
    assert stdout.splitlines()[-2:] == [
        f"4 of 5 generated task(s) kept (SIMULATED MODELS); review {tmp_path / 'w1' / 'generated' / 'github-triage'}",
        "then: ratchet tasks accept github-triage",
    ]
    assert b'"label": "SIMULATED MODELS"' in first["audit.json"]


def test_accept_appends_the_survivors_and_pends_their_traces(project: Path, tmp_path: Path) -> None:
    work = tmp_path / "w"
    _generate(project, work, 5)
    before = (project / "tasks.yaml").read_text(encoding="utf-8")
    result = runner.invoke(
        app, ["tasks", "accept", "github-triage", "triage-h1d0-s5-1", "--project", str(project), "--work", str(work)]
    )
    assert result.exit_code == 0, result.output
    after = (project / "tasks.yaml").read_text(encoding="utf-8")
    assert after.startswith(before) and "id: triage-h1d0-s5-1" in after[len(before) :]
    assert sorted(p.name for p in (work / "pending").iterdir()) == ["triage-h1d0-s5-1.json"]
    result = runner.invoke(app, ["bless", "--project", str(project), "--work", str(work)])
    assert result.exit_code == 0 and result.stdout.startswith("blessed 1 golden(s)"), result.output
    # A rejected one cannot be accepted; one line, exit 2.
    result = runner.invoke(
        app,
        [
            "tasks",
            "accept",
            "github-triage",
            "triage-weather-h1d0-s5-1",
            "--project",
            str(project),
            "--work",
            str(work),
        ],
    )
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "did not survive the audit (it loaded no skill, not github-triage; it differs" in result.stderr


def test_a_bad_template_is_one_line_and_exit_2(project: Path, tmp_path: Path) -> None:
    path = project / "task_templates.yaml"
    path.write_text(TEMPLATES.replace("Lisbon", "Lisbon]\n    town: [Porto"), encoding="utf-8")
    result = runner.invoke(
        app, ["tasks", "generate", "github-triage", "--project", str(project), "--work", str(tmp_path / "w")]
    )
    assert result.exit_code == 2
    assert result.stderr == f"error: {path}:19: template triage-weather: slot town is not used in its prompt\n"
    assert not (tmp_path / "w" / "generated").exists()


def _accept(root: Path, work: Path, *ids: str) -> Result:
    return runner.invoke(app, ["tasks", "accept", "github-triage", *ids, "--project", str(root), "--work", str(work)])


def test_accept_keeps_a_crlf_tasks_file_byte_for_byte_and_appends_in_its_line_ending(
    project: Path, tmp_path: Path
) -> None:
    path = project / "tasks.yaml"
    before = path.read_bytes().replace(b"\n", b"\r\n")
    path.write_bytes(before)
    work = tmp_path / "w"
    _generate(project, work, 5)
    result = _accept(project, work, "triage-h1d0-s5-1")
    assert result.exit_code == 0, result.output
    after = path.read_bytes()
    assert after.startswith(before)
    added = after[len(before) :]
    assert b"id: triage-h1d0-s5-1\r\n" in added and added.count(b"\n") == added.count(b"\r\n")


def test_an_accept_that_cannot_write_is_exit_3_and_a_rerun_finishes_it(project: Path, tmp_path: Path) -> None:
    work = tmp_path / "w"
    _generate(project, work, 5)
    before = (project / "tasks.yaml").read_bytes()
    work.joinpath("pending").write_text("not a folder", encoding="utf-8")
    result = _accept(project, work, "triage-h1d0-s5-1")
    assert result.exit_code == 3 and result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert (project / "tasks.yaml").read_bytes() == before  # nothing half-written
    work.joinpath("pending").unlink()
    # An accept stopped after tasks.yaml was written (the reviewed set not yet updated) can be run again.
    generated = work / "generated" / "github-triage"
    saved = tmp_path / "saved"
    shutil.copytree(generated, saved)
    assert _accept(project, work, "triage-h1d0-s5-1").exit_code == 0
    once = (project / "tasks.yaml").read_bytes()
    shutil.rmtree(generated)
    shutil.copytree(saved, generated)
    result = _accept(project, work, "triage-h1d0-s5-1")
    assert result.exit_code == 0, result.output
    assert (project / "tasks.yaml").read_bytes() == once
    assert sorted(p.name for p in (work / "pending").iterdir()) == ["triage-h1d0-s5-1.json"]


def test_accept_refuses_what_tasks_yaml_gained_since_generate_in_one_line(project: Path, tmp_path: Path) -> None:
    work = tmp_path / "w"
    _generate(project, work, 5)
    result = _accept(project, work, "triage-h1d0-s5-1", "triage-h1d0-s5-1")
    assert result.exit_code == 2
    assert result.stderr.endswith("github-triage/audit.json: task triage-h1d0-s5-1 is named twice\n")
    path = project / "tasks.yaml"
    original = path.read_text(encoding="utf-8")
    prompt = yaml.safe_load((work / "generated" / "github-triage" / "tasks.yaml").read_text())["tasks"][0]["prompt"]
    path.write_text(original + "- id: triage-h1d0-s5-1\n  skill: github-triage\n  prompt: Other.\n", encoding="utf-8")
    result = _accept(project, work, "triage-h1d0-s5-1")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {path}: task id triage-h1d0-s5-1 is already in tasks.yaml, for another task: "
        "rename one of them, or accept the others\n"
    )
    path.write_text(original + f"- id: mine\n  skill: github-triage\n  prompt: {prompt!r}\n", encoding="utf-8")
    result = _accept(project, work, "triage-h1d0-s5-1")
    assert result.exit_code == 2
    assert result.stderr == f"error: {path}: generated task triage-h1d0-s5-1 asks the same prompt as task mine\n"


def test_generate_starts_from_a_clean_staging_folder_and_leaves_none(project: Path, tmp_path: Path) -> None:
    work = tmp_path / "w"
    stale = work / "generated" / ".github-triage.work" / "out" / "traces" / "old-task.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}", encoding="utf-8")
    _, files = _generate(project, work, 5)
    assert "traces/old-task.json" not in files
    assert sorted(p.name for p in (work / "generated").iterdir()) == ["github-triage"]


def test_a_missing_workspace_is_the_templates_line_and_leaves_no_scratch(project: Path, tmp_path: Path) -> None:
    path = project / "task_templates.yaml"
    path.write_text(TEMPLATES.replace("  slots:\n    city", "  workspace: no-such-ws\n  slots:\n    city"), "utf-8")
    work = tmp_path / "w"
    result = runner.invoke(app, ["tasks", "generate", "github-triage", "--project", str(project), "--work", str(work)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {path}:19: template triage-weather: workspace 'no-such-ws' not found in {project / 'workspaces'}\n"
    )
    assert not (work / "generated").exists() or list((work / "generated").iterdir()) == []
