"""The run's score of each skill, saved beside its goldens (goldens/<skill>/mutation.score.json) to be committed.

Saved only for a skill whose every mutant was checked: a skill with a mutant the run could not check (an
error, or the spend cap) keeps the score it had, since a part of a run would read as the whole. The file
holds no clock and no spend, so a rerun of the same base and seed writes the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ratchet.core.errors import InfraError
from ratchet.goldens.mutation import ClassKills, MutationScore, Survivor, write_score
from ratchet.mutate.models import MutationReport

__all__ = ["save_scores", "skill_scores"]


def skill_scores(report: MutationReport, *, limit: int | None) -> tuple[list[MutationScore], list[str]]:
    """Each fully checked skill's score, and one line per skill left unsaved saying why."""
    saved: list[MutationScore] = []
    left: list[str] = []
    for skill in report.skills:
        if skill.errors or skill.unchecked:
            left.append(
                f"{skill.skill}: {skill.errors + skill.unchecked} of "
                f"{skill.killed + skill.survived + skill.errors + skill.unchecked} mutant(s) were not checked; "
                "its mutation score is not saved (a part of a run would read as the whole)"
            )
            continue
        if skill.killed + skill.survived == 0:
            continue
        survivors = [o.mutant for o in report.outcomes if o.mutant.skill == skill.skill and o.status == "survived"]
        saved.append(
            MutationScore(
                skill=skill.skill,
                base=report.base,
                seed=report.seed,
                simulated=report.simulated,
                limit=limit,
                killed=skill.killed,
                checked=skill.killed + skill.survived,
                by_class=[
                    ClassKills(mutant_class=c.mutant_class, killed=c.killed, checked=c.checked)
                    for c in skill.by_class
                    if c.checked
                ],
                survivors=[
                    Survivor(id=m.id, mutant_class=m.mutant_class, description=m.description) for m in survivors
                ],
            )
        )
    return saved, left


def save_scores(
    goldens_dir: Path, report: MutationReport, *, limit: int | None, echo: Callable[[str], None]
) -> list[Path]:
    """Write each fully checked skill's score under `goldens_dir`; echo what was saved and what was not."""
    saved, left = skill_scores(report, limit=limit)
    written: list[Path] = []
    for score in saved:
        try:
            written.append(write_score(goldens_dir, score))
        except OSError as err:
            raise InfraError(
                f"could not save the mutation score of {score.skill} under {goldens_dir}: {err.strerror or err}; "
                "check the folder is writable, or run with --no-save"
            ) from err
    for line in left:
        echo(f"note: {line}")
    return written
