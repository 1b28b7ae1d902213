"""`ratchet bench validate`: structure, routing, the replay audit and the dataset digest."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from ratchet.cli import app


def _validate(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["bench", "validate", "--project", str(root), "--work", str(root / "var" / "bench"), *args]
    )
    return result.exit_code, result.output


def test_validate_passes_with_the_audit_and_prints_the_digest(bench_project: Path) -> None:
    code, out = _validate(bench_project)
    assert code == 0, out
    assert "tasks: 20 route to their skill, 3 canaries to none" in out
    assert "audit: 23 task(s) replay to their goldens under the unchanged skills" in out
    assert "N0 leave every golden unchanged" in out and "regenerate identically" in out
    assert out.splitlines()[-1].startswith("dataset digest ")


def test_record_digest_writes_the_release(bench_project: Path) -> None:
    code, out = _validate(bench_project, "--no-audit", "--record-digest")
    assert code == 0, out
    digest = next(ln for ln in out.splitlines() if ln.startswith("dataset digest ")).split()[-1]
    recorded = json.loads((bench_project / "bench" / "DIGESTS.json").read_text())
    assert recorded["releases"]["0.1.0"]["digest"] == digest


def test_a_task_pointed_at_the_wrong_skill_fails_in_one_line(bench_project: Path) -> None:
    tasks = bench_project / "bench" / "tasks.yaml"
    raw = yaml.safe_load(tasks.read_text())
    raw["tasks"][0]["skill"] = "fx-expense-converter"  # github-triage-01 now claims the wrong skill
    tasks.write_text(yaml.safe_dump(raw, sort_keys=False))
    code, out = _validate(bench_project)
    assert code == 2
    errors = [ln for ln in out.splitlines() if ln.startswith("error: ")]
    assert errors == [out.splitlines()[-1]]
    assert errors[0].startswith(
        "error: bench/tasks.yaml:3: task github-triage-01 routes to github-triage, not fx-expense-converter"
    )


def test_a_tampered_golden_fails_in_one_line(bench_project: Path) -> None:
    golden = bench_project / "goldens" / "github-triage" / "github-triage-01.json"
    raw = json.loads(golden.read_text())
    raw["final_output"] = raw["final_output"].replace("priority/high", "priority/normal")
    golden.write_text(json.dumps(raw, indent=2))
    code, out = _validate(bench_project)
    assert code == 2
    assert out.splitlines()[-1].startswith("error: ")
    assert "github-triage-01.json: golden does not match its replay under the unchanged skills" in out


def test_an_edit_changed_after_labeling_fails(bench_project: Path) -> None:
    edit = bench_project / "bench" / "edits" / "github-triage.N0.1.json"
    raw = json.loads(edit.read_text())
    raw["description"] = "changed by hand"
    edit.write_text(json.dumps(raw))
    code, out = _validate(bench_project, "--no-audit")
    assert code == 2 and "edit github-triage.N0.1 changed since it was labeled: rebuild" in out


def test_a_missing_world_fails_in_one_line(bench_project: Path) -> None:
    config = bench_project / "ratchet.yaml"
    config.write_text(config.read_text().replace("world: bench/world", "world: bench/wrold"))
    code, out = _validate(bench_project, "--no-audit")
    assert code == 2
    assert out.splitlines()[-1] == (
        "error: bench/wrold: the benchmark's world is missing or empty: paths.world must point at its YAML files"
    )
