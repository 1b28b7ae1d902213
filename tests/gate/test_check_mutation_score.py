"""The mutation score the base keeps beside a skill's goldens, as a check reads it.

A committed score file is no golden and no evidence (adding it must not read as "goldens added"), and an
edit of a skill whose goldens killed none of their mutants is named on the verdict: those goldens would not
notice this kind of change, whatever they say about this one. A note, not a warning: the decision stays
the replays' own.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.gate.check import check_edit
from ratchet.gate.models import EvidenceChange, Unseen
from ratchet.gate.policy import OnError
from ratchet.goldens.mutation import SCORE_FILE, MutationScore
from ratchet.setup.demo import EDITS
from tests.helpers.gitrepo import commit, git
from tests.helpers.mutation_scores import blind_score, good_score

LEVEL0_ONLY = resolve_gate_config("level0_only")
FX, GH = "fx-expense-converter", "github-triage"
EDIT = {edit.branch: edit for edit in EDITS}
BLIND_GH = (
    f"the goldens of skill {GH} killed none of the 2 mutants ratchet mutate made of it (at c0ffeec0ff, seed 0, "
    "simulated): these goldens would not notice this kind of change: R1 (a deleted or inverted instruction), "
    "R5 (a broadened description); add tasks whose replays would differ under it (docs/mutate.md)"
)
runner = CliRunner()


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


def with_score(repo: Path, score: MutationScore) -> str:
    return commit(repo, {f"goldens/{score.skill}/{SCORE_FILE}": score.to_json()}, f"mutation score of {score.skill}")


def edited(repo: Path, branch: str) -> str:
    edit = EDIT[branch]
    rel = f"skills/{edit.skill}/SKILL.md"
    return commit(repo, {rel: edit.apply((repo / rel).read_text(encoding="utf-8"))}, edit.message)


def test_a_committed_score_is_no_golden_but_is_named_as_a_note(demo_repo: Path) -> None:
    before = head(demo_repo)
    scored = with_score(demo_repo, good_score(GH))
    verdict = check_edit(demo_repo, base=before, config=LEVEL0_ONLY, on_error=OnError.BLOCK)
    assert (verdict.decision, verdict.summary) == ("PASS", "no skill changed")
    assert verdict.evidence_changed.changes == [
        EvidenceChange(kind="mutation_score", change="added", task_id=SCORE_FILE, skill=GH)
    ]
    # And with it at the base, a check still reads the base's goldens.
    edited(demo_repo, "edit/narrowed-description")
    after = check_edit(demo_repo, base=scored, config=LEVEL0_ONLY)
    assert after.goldens_total == check_edit(demo_repo, base=before, config=LEVEL0_ONLY).goldens_total
    assert [u for u in after.unseen if u.kind == "mutation"] == []


def test_an_edit_of_a_skill_whose_goldens_kill_nothing_is_named_and_decided_as_before(demo_repo: Path) -> None:
    scored = with_score(demo_repo, blind_score(GH))
    with_score(demo_repo, blind_score(FX))  # another skill's: not this edit's goldens
    unscored = git(demo_repo, "rev-parse", "HEAD~2")
    edited(demo_repo, "edit/narrowed-description")
    verdict = check_edit(demo_repo, base=scored, config=LEVEL0_ONLY)
    plain = check_edit(demo_repo, base=unscored, config=LEVEL0_ONLY)
    assert [u for u in verdict.unseen if u.kind == "mutation"] == [
        Unseen(kind="mutation", skill=GH, level="note", detail=BLIND_GH)
    ]
    assert (verdict.decision, verdict.summary) == (plain.decision, plain.summary)
    assert [u for u in plain.unseen if u.kind == "mutation"] == []


def test_the_note_is_in_the_table_and_the_markdown(demo_repo: Path, tmp_path: Path) -> None:
    scored = with_score(demo_repo, blind_score(GH))
    edited(demo_repo, "edit/narrowed-description")
    md = tmp_path / "verdict.md"
    args = ["check", "--repo", str(demo_repo), "--base", scored, "--config", "level0_only"]
    result = runner.invoke(app, [*args, "--output", f"markdown={md}"])
    assert result.exit_code == 1, result.output  # BLOCK: its trigger queries stop firing (R6, docs/triggers.md)
    assert f"mutation score: {BLIND_GH}" in " ".join(result.stdout.split())  # the table wraps long lines
    assert f"- mutation score: {BLIND_GH}" in md.read_text(encoding="utf-8")


def test_a_score_that_kills_something_is_not_named(demo_repo: Path) -> None:
    scored = with_score(demo_repo, good_score(GH))
    edited(demo_repo, "edit/narrowed-description")
    verdict = check_edit(demo_repo, base=scored, config=LEVEL0_ONLY)
    assert [u for u in verdict.unseen if u.kind == "mutation"] == []


MALFORMED = '{"schema_version": 1}'
INVALID = "invalid mutation score: skill: Field required"


def test_a_malformed_score_of_another_skill_at_the_base_stops_no_check(demo_repo: Path) -> None:
    """Only the edited skills' score files are read: a bad one of another skill is not this check's business."""
    base = commit(demo_repo, {f"goldens/{FX}/{SCORE_FILE}": MALFORMED}, "a malformed score")
    edited(demo_repo, "edit/narrowed-description")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY)
    assert [u for u in verdict.unseen if u.kind == "mutation"] == []


def test_a_malformed_score_of_the_edited_skill_at_the_base_is_a_note(demo_repo: Path) -> None:
    where = f"goldens/{GH}/{SCORE_FILE}"
    base = commit(demo_repo, {where: MALFORMED}, "a malformed score")
    edited(demo_repo, "edit/narrowed-description")
    verdict = check_edit(demo_repo, base=base, config=LEVEL0_ONLY)
    assert [u for u in verdict.unseen if u.kind == "mutation"] == [
        Unseen(kind="mutation", skill=GH, level="note", detail=f"{where}@{base[:10]}: {INVALID}")
    ]


def test_a_score_from_a_newer_ratchet_at_the_base_is_a_note(demo_repo: Path) -> None:
    where = f"goldens/{GH}/{SCORE_FILE}"
    base = commit(demo_repo, {where: '{"schema_version": 2}'}, "a newer score")
    edited(demo_repo, "edit/narrowed-description")
    notes = [u for u in check_edit(demo_repo, base=base, config=LEVEL0_ONLY).unseen if u.kind == "mutation"]
    assert [(u.level, u.detail.split(": ")[:2]) for u in notes] == [
        ("note", [f"{where}@{base[:10]}", "unsupported mutation score schema_version 2 (this Ratchet reads 1)"])
    ]


def test_a_score_file_changed_or_removed_is_named_as_a_note(demo_repo: Path) -> None:
    before = with_score(demo_repo, blind_score(GH))
    with_score(demo_repo, good_score(GH))
    changed = check_edit(demo_repo, base=before, config=LEVEL0_ONLY, on_error=OnError.BLOCK)
    assert changed.decision == "PASS"
    assert changed.evidence_changed.changes == [
        EvidenceChange(kind="mutation_score", change="changed", task_id=SCORE_FILE, skill=GH)
    ]
    scored = head(demo_repo)
    git(demo_repo, "rm", "-q", f"goldens/{GH}/{SCORE_FILE}")
    git(demo_repo, "commit", "-q", "-m", "drop the score")
    removed = check_edit(demo_repo, base=scored, config=LEVEL0_ONLY, on_error=OnError.BLOCK)
    assert removed.decision == "PASS"
    assert removed.evidence_changed.changes == [
        EvidenceChange(kind="mutation_score", change="removed", task_id=SCORE_FILE, skill=GH)
    ]


def test_a_malformed_score_added_at_the_head_is_named(demo_repo: Path) -> None:
    before = head(demo_repo)
    where = f"goldens/{GH}/{SCORE_FILE}"
    after = commit(demo_repo, {where: MALFORMED}, "a malformed score")
    verdict = check_edit(demo_repo, base=before, config=LEVEL0_ONLY, on_error=OnError.BLOCK)
    assert verdict.decision == "PASS"
    assert [u for u in verdict.unseen if u.kind == "mutation"] == [
        Unseen(kind="mutation", skill=GH, level="note", detail=f"{where}@{after[:10]}: {INVALID}")
    ]


def test_a_score_only_change_is_not_a_silent_pass_in_the_table(demo_repo: Path) -> None:
    before = head(demo_repo)
    commit(demo_repo, {f"goldens/{GH}/{SCORE_FILE}": MALFORMED}, "a malformed score")
    result = runner.invoke(app, ["check", "--repo", str(demo_repo), "--base", before, "--config", "level0_only"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.stdout.split())
    assert "mutation scores added" in said
    assert INVALID in said
