"""A golden blessed with --accept-thin is named on every verdict that replays it: never a silent PASS.

Why (issue 24): live, an agent model that answers without calling any tool gives goldens that show
nothing of the skill at work; the demo's `edit/new-side-effect` (the skill now e-mails finance) then
PASSed, because the edited replay made no call either and Level 0 saw two identical runs. Reproduced
with a fake OpenAI-compatible server on loopback. `bless` refuses such goldens (tests/cli/test_golden_thin.py);
blessed anyway with --accept-thin, each verdict that replays one is at least WARN and names it first.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.gate.check import check_edit
from ratchet.setup.demo import EDITS, apply_edit
from tests.cli.test_golden_thin import live_yaml
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gitrepo import commit

LEVEL0_ONLY = resolve_gate_config("level0_only")
EDIT = {edit.branch: edit for edit in EDITS}
FX_TASKS = ", ".join(f"fx-expense-converter-{n:02d}" for n in range(1, 9)) + ", ..."
THIN_FX = (
    f"10 golden(s) of skill fx-expense-converter were blessed thin (--accept-thin), showing no sign of the skill "
    f"at work: {FX_TASKS}; their replays cannot show what the edit does: re-record them with an agent that "
    "follows the skill"
)
runner = CliRunner()


def _bless_live(repo: Path, server: FakeOpenAI, *bless_args: str) -> str:
    """Switch the demo to the fake upstream, re-record every task, bless, commit on main; return the sha."""
    commit(repo, {"ratchet.yaml": live_yaml(server)}, "live")
    for args in (["record"], ["bless", *bless_args]):
        result = runner.invoke(app, [*args, "--project", str(repo)])
        assert result.exit_code == 0, result.output
    return commit(repo, {}, "bless the live goldens")


def test_a_new_side_effect_over_thin_goldens_is_never_a_silent_pass(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    with FakeOpenAI() as server:
        base = _bless_live(demo_repo, server, "--accept-thin")
        apply_edit(demo_repo, EDIT["edit/new-side-effect"])
        verdict = check_edit(demo_repo, base=base, head="edit/new-side-effect", config=LEVEL0_ONLY)
    # The pairs alone say nothing changed: the thin agent made no call before the edit or after it.
    assert {pair.outcome for pair in verdict.pairs} == {"same"}
    assert verdict.decision == "WARN"
    *named, pairs = verdict.summary.split("; ")
    assert THIN_FX in "; ".join(named) and pairs == "10 affected golden(s) replayed without a regression"
    thin = [note for note in verdict.unseen if note.kind == "thin"]
    assert [(note.skill, note.level, note.detail) for note in thin] == [("fx-expense-converter", "warn", THIN_FX)]


def test_an_edit_only_a_replay_could_judge_warns_over_thin_goldens(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A changed label value: the behavioural diff leaves it to the pairs, and the pairs over thin goldens
    # are all `same`. Without the thin note this verdict was a PASS.
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    with FakeOpenAI() as server:
        base = _bless_live(demo_repo, server, "--accept-thin")
        apply_edit(demo_repo, EDIT["edit/changed-argument"])
        verdict = check_edit(demo_repo, base=base, head="edit/changed-argument", config=LEVEL0_ONLY)
    assert {pair.outcome for pair in verdict.pairs} == {"same"}
    assert verdict.decision == "WARN"
    assert verdict.summary.startswith("10 golden(s) of skill github-triage were blessed thin (--accept-thin)")
    assert [note.skill for note in verdict.unseen if note.kind == "thin"] == ["github-triage"]


def test_a_verdict_that_replays_no_thin_golden_names_none(demo_repo: Path) -> None:
    apply_edit(demo_repo, EDIT["edit/new-side-effect"])  # the simulator's goldens show the skill at work
    verdict = check_edit(demo_repo, base="main", head="edit/new-side-effect", config=LEVEL0_ONLY)
    assert verdict.decision == "BLOCK"
    assert [note for note in verdict.unseen if note.kind == "thin"] == []


def test_thin_goldens_without_the_flag_are_named_at_check(demo_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Goldens blessed before the flag existed, or re-blessed with it stripped (a PR can edit golden JSON):
    # the check decides thinness itself, from the base's goldens and skills; the flag only says who accepted it.
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    with FakeOpenAI() as server:
        _bless_live(demo_repo, server, "--accept-thin")
        files: dict[str, str | None] = {}
        for path in sorted((demo_repo / "goldens").glob("*/*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.pop("thin", None) is not None:
                files[path.relative_to(demo_repo).as_posix()] = json.dumps(data, indent=2, sort_keys=True) + "\n"
        assert files
        stripped = commit(demo_repo, files, "re-bless the goldens without the flag")
        apply_edit(demo_repo, EDIT["edit/changed-argument"])
        verdict = check_edit(demo_repo, base=stripped, head="edit/changed-argument", config=LEVEL0_ONLY)
    assert {pair.outcome for pair in verdict.pairs} == {"same"}
    assert verdict.decision == "WARN"
    thin = [note for note in verdict.unseen if note.kind == "thin"]
    assert [(note.skill, note.level) for note in thin] == [("github-triage", "warn")]
    assert thin[0].detail.startswith("10 golden(s) of skill github-triage show no sign of the skill at work: ")
    assert verdict.summary.startswith("10 golden(s) of skill github-triage show no sign of the skill at work")
