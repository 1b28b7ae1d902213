"""A watch that could not have flagged a skill is never QUIET: too few counts, or every replay world drift."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.project import load_project
from ratchet.stats.binomial import fisher_greater
from ratchet.watch.models import SkillWatch
from ratchet.watch.render import render_report
from ratchet.watch.run import WatchOptions, watch_project
from ratchet.watch.stats import decide

runner = CliRunner()
EXIT_CANNOT_TELL = 4


def _skill(name: str, differed: int, replays: int, noise_differed: int, noise_repeats: int) -> SkillWatch:
    return SkillWatch(
        skill=name,
        goldens=["t"],
        available=1,
        replays=replays,
        differed=differed,
        noise_repeats=noise_repeats,
        noise_differed=noise_differed,
    )


def test_a_skill_whose_every_replay_differed_but_could_not_reach_alpha_cannot_tell() -> None:
    # --per-skill 1 --repeats 2: both replays differed, against 0 of 4 in the record; p = 1/15 > 0.05.
    [skill] = decide([_skill("a", 2, 2, 0, 4)], alpha=0.05, repeats=2)
    assert skill.best_p == fisher_greater(2, 2, 0, 4) and not skill.moved
    assert not skill.could_flag
    assert skill.needs_repeats == 3  # 3 of 3 against 0 of 4: p = 1/35
    assert fisher_greater(3, 3, 0, 4) <= 0.05 < fisher_greater(2, 2, 0, 4)


def test_holm_over_many_one_golden_skills_leaves_none_that_could_be_flagged() -> None:
    # Defaults (4 repeats) against 8-repeat records that differed in 2: best p 0.0303 alone, x4 after Holm.
    decided = decide([_skill(name, 0, 4, 2, 8) for name in "abcd"], alpha=0.05, repeats=4)
    assert all(not s.could_flag and not s.moved for s in decided)
    assert all(s.needs_repeats is not None and s.needs_repeats > 4 for s in decided)
    # One skill alone could have been flagged with the same counts.
    [alone] = decide([_skill("a", 0, 4, 1, 8)], alpha=0.05, repeats=4)
    assert alone.could_flag


def test_records_that_always_differ_can_never_be_outdone() -> None:
    [skill] = decide([_skill("a", 4, 4, 8, 8)], alpha=0.05, repeats=4)
    assert (skill.could_flag, skill.needs_repeats) == (False, None)


def _watch(repo: Path, *args: str, columns: int = 250) -> tuple[int, list[str], str]:
    result = runner.invoke(app, ["watch", "--project", str(repo), *args], env={"COLUMNS": str(columns)})
    return result.exit_code, result.stdout.splitlines(), result.stderr


def test_a_run_too_small_to_flag_anything_is_not_quiet(watched_repo: Path) -> None:
    code, lines, err = _watch(watched_repo, "github-triage", "--per-skill", "1", "--repeats", "2")
    assert code == EXIT_CANNOT_TELL, err
    assert not any(line.startswith("QUIET") for line in lines)
    [head] = [line for line in lines if line.startswith("CANNOT TELL")]
    assert "github-triage (needs --repeats " in head
    assert any("cannot tell with these counts (needs more repeats: --repeats " in line for line in lines), lines


def test_a_skill_whose_every_replay_was_world_drift_is_named_and_not_quiet(watched_repo: Path) -> None:
    fx = watched_repo / "world" / "fx.yaml"
    fx.write_text(re.sub(r"(\b[A-Z]{3}): (\d)\.", r"\1: 7\2.", fx.read_text(encoding="utf-8")), encoding="utf-8")
    report = watch_project(load_project(watched_repo), WatchOptions(skills=("fx-expense-converter",)))
    [skill] = report.skills
    assert skill.replays == 0 and skill.world == len(skill.goldens) * 4
    assert report.undecided == ["fx-expense-converter"]
    code, lines, _ = _watch(watched_repo, "fx-expense-converter")
    assert code == EXIT_CANNOT_TELL
    [head] = [line for line in lines if line.startswith("CANNOT TELL")]
    assert "fx-expense-converter (not tested: every replay was world drift)" in head
    # At 80 columns the skill's name stays whole; the result column wraps instead.
    console = Console(width=80, record=True, highlight=False, soft_wrap=False)
    render_report(report, console)
    assert re.search(r"^fx-expense-converter ", console.export_text(), flags=re.M), console.export_text()


def test_enough_repeats_make_every_watched_skill_testable_and_quiet(watched_repo: Path) -> None:
    code, lines, err = _watch(watched_repo, "--repeats", "8")
    assert code == 0, "\n".join(lines) + err
    assert any(line.startswith("QUIET  ") for line in lines)
