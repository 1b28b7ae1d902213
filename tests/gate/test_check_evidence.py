"""An edit to the gate's evidence (goldens, noise records, tasks) is named on the verdict's first lines.

Why: the check compares with the base's goldens and tasks (docs/adr/0007), so such an edit never
moved its own verdict, and it read `PASS no skill changed`: deleting a skill's goldens passed (and
the next regressing edit of that skill only WARNed), removing a task passed (and every later check
exited 2), a re-bless shipped with its skill edit was BLOCKed without a word about the re-bless.
Now: adding evidence is a note, changing, moving or removing it is at least WARN, and removing
coverage is at least WARN and BLOCK under on-error block, as a settings change is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ratchet import SIMULATED_CHECK_BANNER
from ratchet.bless.record import bless, record_tasks
from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import load_project
from ratchet.core.errors import TaskFileError
from ratchet.gate.check import check_edit
from ratchet.gate.models import CoverageLoss, EvidenceChange
from ratchet.setup.demo import EDITS
from tests.helpers.gitrepo import commit, git, stage

LEVEL0_ONLY = resolve_gate_config("level0_only")
FX, GH = "fx-expense-converter", "github-triage"
EDIT = {edit.branch: edit for edit in EDITS}
LESS = "later edits are checked against less; review the removal"
runner = CliRunner()


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


def golden(skill: str, n: int) -> str:
    return f"goldens/{skill}/{skill}-{n:02d}.json"


def reworded(repo: Path, rel: str) -> str:
    """The golden at `rel` with its final output changed, as a hand edit or a re-bless would."""
    data = json.loads((repo / rel).read_text(encoding="utf-8"))
    data["final_output"] += "\nnote: re-blessed"
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def tasks_without(repo: Path, *ids: str) -> str:
    data = yaml.safe_load((repo / "tasks.yaml").read_text(encoding="utf-8"))
    data["tasks"] = [task for task in data["tasks"] if task["id"] not in ids]
    return yaml.safe_dump(data, sort_keys=False)


def skill_edited(repo: Path, branch: str) -> dict[str, str]:
    edit = EDIT[branch]
    rel = f"skills/{edit.skill}/SKILL.md"
    return {rel: edit.apply((repo / rel).read_text(encoding="utf-8"))}


# -- goldens ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("on_error", ["warn", "block"])
def test_an_edited_golden_is_named_and_warns(demo_repo: Path, on_error: str) -> None:
    base = head(demo_repo)
    commit(demo_repo, {golden(GH, 1): reworded(demo_repo, golden(GH, 1))}, "hand-edit a golden")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error=on_error)
    # A re-bless is a person's call the gate cannot check: WARN, whatever the policy, never PASS.
    assert (verdict.decision, verdict.summary) == (
        "WARN",
        f"goldens re-blessed in this change: 1 of {GH} (skill unchanged); no skill changed",
    )
    assert verdict.evidence_changed.changes == [
        EvidenceChange(kind="golden", change="changed", task_id=f"{GH}-01", skill=GH)
    ]
    assert verdict.evidence_changed.coverage_removed == []


@pytest.mark.parametrize(("on_error", "decision"), [("warn", "WARN"), ("block", "BLOCK")])
def test_deleting_a_skills_goldens_removes_coverage(demo_repo: Path, on_error: str, decision: str) -> None:
    base = head(demo_repo)
    commit(demo_repo, {golden(FX, n): None for n in range(1, 11)}, "drop the fx goldens")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error=on_error)
    assert (verdict.decision, verdict.summary) == (
        decision,
        (f"coverage removed: {FX} (goldens 10 -> 0): {LESS}; goldens removed: 10 of {FX}; no skill changed"),
    )
    assert verdict.evidence_changed.coverage_removed == [
        CoverageLoss(skill=FX, goldens_base=10, goldens_head=0, tasks_base=10, tasks_head=10)
    ]


def test_the_cli_names_deleted_goldens_on_its_first_lines(demo_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    base = head(demo_repo)
    new = commit(demo_repo, {golden(FX, 3): None}, "drop one golden")
    result = runner.invoke(app, ["check", "--repo", str(demo_repo), "--base", base, "--config", "level0_only"])
    assert result.exit_code == 1, result.output  # no --on-error: the CI default, a removal BLOCKs
    assert result.stdout.splitlines()[:4] == [
        SIMULATED_CHECK_BANNER,
        f"coverage removed: {FX} (goldens 10 -> 9): {LESS}",
        f"goldens removed: {FX}: {FX}-03",
        f"ratchet check  {base[:10]} -> {new[:10]}",
    ]


def test_a_golden_moved_to_another_skills_folder_is_a_move_and_a_loss(demo_repo: Path) -> None:
    base = head(demo_repo)
    moved = (demo_repo / golden(GH, 1)).read_text(encoding="utf-8")
    commit(demo_repo, {golden(GH, 1): None, f"goldens/{FX}/{GH}-01.json": moved}, "re-routed on re-record")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error="block")
    assert (verdict.decision, verdict.summary) == (
        "BLOCK",
        (f"coverage removed: {GH} (goldens 10 -> 9): {LESS}; goldens moved: 1 of {FX} (from {GH}); no skill changed"),
    )
    assert verdict.evidence_changed.changes == [
        EvidenceChange(kind="golden", change="moved", task_id=f"{GH}-01", skill=FX, base_skill=GH)
    ]


def test_adding_goldens_and_tasks_is_a_note_that_changes_no_decision(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    base = head(demo_repo)
    tasks = (demo_repo / "tasks.yaml").read_text(encoding="utf-8")
    task = f"- id: {GH}-99\n  skill: {GH}\n  prompt: 'Please triage issue #199 in acme/widgets.'\n"
    new = commit(
        demo_repo,
        {"tasks.yaml": tasks + task, golden(GH, 99): reworded(demo_repo, golden(GH, 1))},
        "one more task and its golden",
    )
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error="block")
    assert (verdict.decision, verdict.summary) == ("PASS", "no skill changed")
    assert verdict.evidence_changed.changes == [
        EvidenceChange(kind="golden", change="added", task_id=f"{GH}-99", skill=GH),
        EvidenceChange(kind="task", change="added", task_id=f"{GH}-99", skill=GH),
    ]
    result = runner.invoke(app, ["check", "--repo", str(demo_repo), "--base", base, "--config", "level0_only"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:4] == [
        SIMULATED_CHECK_BANNER,
        f"goldens added: {GH}: {GH}-99 (they take effect once merged)",
        f"tasks added: {GH}: {GH}-99 (they take effect once merged)",
        f"ratchet check  {base[:10]} -> {new[:10]}",
    ]


def test_noise_records_added_are_a_note_and_re_measured_ones_warn(demo_repo: Path) -> None:
    record = golden(GH, 1).replace(".json", ".noise.json")
    first = head(demo_repo)
    added = commit(demo_repo, {record: '{"flips": 0}\n'}, "measure the noise")
    assert check_edit(demo_repo, base=first, config=LEVEL0_ONLY).decision == "PASS"
    commit(demo_repo, {record: '{"flips": 9}\n'}, "measure it again")
    verdict = check_edit(demo_repo, base=added, config=LEVEL0_ONLY, on_error="block")
    assert (verdict.decision, verdict.summary) == ("WARN", f"noise records re-measured: 1 of {GH}; no skill changed")


def test_a_staged_golden_deletion_is_named(demo_repo: Path) -> None:
    stage(demo_repo, {golden(GH, 2): None})
    verdict = check_edit(demo_repo, base="HEAD", staged=True, config=LEVEL0_ONLY, on_error="block")
    assert verdict.decision == "BLOCK"
    assert verdict.summary.startswith(f"coverage removed: {GH} (goldens 10 -> 9): ")


# -- tasks ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("on_error", "decision"), [("warn", "WARN"), ("block", "BLOCK")])
def test_removing_a_task_is_named_with_the_golden_it_leaves_behind(
    demo_repo: Path, on_error: str, decision: str
) -> None:
    base = head(demo_repo)
    commit(demo_repo, {"tasks.yaml": tasks_without(demo_repo, f"{FX}-03")}, "drop a task")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error=on_error)
    assert (verdict.decision, verdict.summary) == (
        decision,
        (
            f"coverage removed: {FX} (tasks 10 -> 9): {LESS}; tasks removed: 1 of {FX}; 1 still with a golden, which "
            "every check after merge refuses (no task for it): remove it too; no skill changed"
        ),
    )
    assert verdict.evidence_changed.changes == [
        EvidenceChange(kind="task", change="removed", task_id=f"{FX}-03", skill=FX, golden_kept=True)
    ]


def test_removing_a_task_with_its_golden_counts_both(demo_repo: Path) -> None:
    base = head(demo_repo)
    commit(
        demo_repo,
        {"tasks.yaml": tasks_without(demo_repo, "canary-02"), "goldens/_none/canary-02.json": None},
        "drop a canary",
    )
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error="block")
    assert (verdict.decision, verdict.summary) == (
        "BLOCK",
        (
            f"coverage removed: canaries (goldens 3 -> 2, tasks 3 -> 2): {LESS}; goldens removed: 1 of canaries; "
            "tasks removed: 1 of canaries; no skill changed"
        ),
    )


def test_a_changed_task_names_its_fields(demo_repo: Path) -> None:
    base = head(demo_repo)
    text = (demo_repo / "tasks.yaml").read_text(encoding="utf-8")
    old = "prompt: 'Please triage issue #101 in acme/widgets.'"
    assert old in text
    commit(demo_repo, {"tasks.yaml": text.replace(old, "prompt: 'Triage #101 in acme/widgets.'")}, "reword a task")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error="block")
    assert (verdict.decision, verdict.summary) == ("WARN", f"tasks changed: 1 of {GH}; no skill changed")
    assert verdict.evidence_changed.changes == [
        EvidenceChange(kind="task", change="changed", task_id=f"{GH}-01", skill=GH, fields=["prompt"])
    ]


def test_a_tasks_file_the_head_cannot_read_is_one_line_naming_it(demo_repo: Path) -> None:
    base = head(demo_repo)
    new = commit(demo_repo, {"tasks.yaml": "tasks: [unclosed\n"}, "break the tasks")
    with pytest.raises(TaskFileError) as info:
        check_edit(demo_repo, base=base, config=LEVEL0_ONLY)
    assert info.value.one_line().startswith(f"tasks.yaml@{new[:10]}:")


# -- the normal flow: a skill edit shipped with its re-blessed goldens ----------------------------------


def test_a_skill_edit_with_its_re_blessed_goldens_names_the_re_bless_with_the_verdict(demo_repo: Path) -> None:
    base = head(demo_repo)
    for rel, text in skill_edited(demo_repo, "edit/new-side-effect").items():
        (demo_repo / rel).write_text(text, encoding="utf-8")
    project = load_project(demo_repo)
    ids = [f"{FX}-{n:02d}" for n in range(1, 11)]
    assert not record_tasks(project, ids).errors
    bless(project, ids)
    git(demo_repo, "add", "-A")
    git(demo_repo, "commit", "-qm", "email finance; goldens re-blessed after review")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY, on_error="block")
    assert verdict.decision == "BLOCK"
    assert verdict.summary.startswith(
        f"goldens re-blessed in this change: 10 of {FX} (skill also changed: replayed against the base's goldens); "
        "9 of the 9 regression(s) are on these goldens; 9 regression(s), first "
    )
    assert {(c.kind, c.change, c.skill_changed) for c in verdict.evidence_changed.changes} == {
        ("golden", "changed", True)
    }


# -- sharded: the shards carry the evidence, and the merge rebuilds the same verdict ----------------------


def test_merged_shards_name_the_evidence_byte_for_byte(demo_repo: Path, tmp_path: Path) -> None:
    from ratchet.gate.shard import merge_shards
    from tests.gate.test_shard import every_rendering, shard_files, unsharded

    git(demo_repo, "checkout", "-q", "-b", "edit/with-evidence", "main")
    commit(
        demo_repo,
        {
            **skill_edited(demo_repo, "edit/new-side-effect"),
            golden(GH, 4): None,
            golden(FX, 2): reworded(demo_repo, golden(FX, 2)),
        },
        "edit, drop one golden, re-bless one",
    )
    git(demo_repo, "checkout", "-q", "main")
    whole = unsharded(demo_repo, "edit/with-evidence", tmp_path / "home-whole")
    assert whole.summary.startswith(
        f"coverage removed: {GH} (goldens 10 -> 9): {LESS}; goldens removed: 1 of {GH}; "
        f"goldens re-blessed in this change: 1 of {FX} (skill also changed: "
    )
    merged, _ = merge_shards(shard_files(demo_repo, "edit/with-evidence", tmp_path, 3))
    assert merged.to_json() == whole.to_json()
    assert every_rendering(merged) == every_rendering(whole)
