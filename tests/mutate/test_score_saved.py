"""`ratchet mutate` saves each skill's score beside its goldens (goldens/<skill>/mutation.score.json), to be
committed: bless prints it, the PR comment and the check read the base's copy. Byte-stable on a rerun; not
saved for a skill with a mutant the run could not check; --no-save writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.cli import mutate as mutate_cli
from ratchet.goldens.mutation import SCORE_FILE, ClassKills, MutationScore, Survivor, read_score
from ratchet.mutate.run import MutateOptions, mutate_project
from tests.helpers.gitrepo import git
from tests.mutate.hand_made import FX, TRIAGE, HandMade

runner = CliRunner()


def score_files(repo: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in sorted((repo / "goldens").glob(f"*/{SCORE_FILE}"))}


def test_each_skill_s_score_is_saved_and_a_rerun_writes_the_same_bytes(demo_repo: Path) -> None:
    said: list[str] = []
    report = mutate_project(demo_repo, MutateOptions(source=HandMade(), save=True, echo=said.append))
    assert read_score(demo_repo / "goldens", FX) == MutationScore(
        skill=FX,
        base=report.base,
        seed=0,
        simulated=True,
        killed=1,
        checked=2,
        by_class=[
            ClassKills(mutant_class="R1", killed=0, checked=1),
            ClassKills(mutant_class="R4", killed=1, checked=1),
        ],
        survivors=[
            Survivor(id=f"{FX}/delete-sentence-1", mutant_class="R1", description="delete-sentence-1 in SKILL.md")
        ],
    )
    assert read_score(demo_repo / "goldens", TRIAGE) is not None
    commit_it = "commit it, so bless and pull requests show it"
    assert said[-2:] == [
        f"saved goldens/{FX}/{SCORE_FILE}: {commit_it}",
        f"saved goldens/{TRIAGE}/{SCORE_FILE}: {commit_it}",
    ]
    first = score_files(demo_repo)
    again: list[str] = []
    mutate_project(demo_repo, MutateOptions(source=HandMade(), save=True, echo=again.append))
    assert score_files(demo_repo) == first
    # The scores the first run saved are its output: no note that they are left out of the mutants.
    assert not any(line.startswith("note: uncommitted") for line in again), again


def test_the_library_saves_nothing_unless_asked(demo_repo: Path) -> None:
    mutate_project(demo_repo, MutateOptions(source=HandMade()))
    assert score_files(demo_repo) == {}


def test_a_skill_with_a_mutant_that_could_not_be_checked_keeps_no_score(demo_repo: Path) -> None:
    broken = HandMade(
        [
            (TRIAGE, "break-frontmatter-1", "R1", "name: github-triage\n", "name: [github-triage\n"),
            *[edit for edit in HandMade().edits if edit[0] == FX],
        ]
    )
    said: list[str] = []
    mutate_project(demo_repo, MutateOptions(source=broken, save=True, echo=said.append))
    assert list(score_files(demo_repo)) == [FX]
    assert (
        f"note: {TRIAGE}: 1 of 1 mutant(s) were not checked; its mutation score is not saved "
        "(a part of a run would read as the whole)"
    ) in said


@pytest.fixture
def _hand_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mutate_cli, "SOURCE", HandMade())


@pytest.mark.usefixtures("_hand_made")
def test_the_command_saves_by_default_and_not_with_no_save(demo_repo: Path) -> None:
    result = runner.invoke(app, ["mutate", "--repo", str(demo_repo), "--no-save", FX])
    assert result.exit_code == 0, result.stderr
    assert score_files(demo_repo) == {} and "saved " not in result.stderr
    result = runner.invoke(app, ["mutate", "--repo", str(demo_repo), FX])
    assert result.exit_code == 0, result.stderr
    assert list(score_files(demo_repo)) == [FX]
    assert f"saved goldens/{FX}/{SCORE_FILE}: commit it, so bless and pull requests show it\n" in result.stderr
    assert git(demo_repo, "status", "--porcelain").splitlines() == [f"?? goldens/{FX}/{SCORE_FILE}"]
