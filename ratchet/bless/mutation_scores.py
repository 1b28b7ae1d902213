"""What `ratchet bless` says about the blessed skills' mutation scores (docs/mutate.md).

A golden is blessed to catch regressions; the score says how many deliberate breakages of its skill the
goldens caught when `ratchet mutate` last ran (goldens/<skill>/mutation.score.json). Bless prints it per
blessed skill, measured before this bless (so `ratchet mutate` measures the new goldens), and one line
suggesting `ratchet mutate` for the skills that have none. A score that cannot be read is named, never
fatal: the goldens were blessed all the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ratchet.core.errors import GoldenError, InputError
from ratchet.goldens.mutation import read_score
from ratchet.goldens.trace import NO_SKILL_DIR

__all__ = ["score_lines"]


def score_lines(goldens_dir: Path, blessed: Sequence[Path]) -> list[str]:
    """One line per blessed skill with a score, then one naming those with none; `blessed`: the golden files."""
    skills = sorted({path.parent.name for path in blessed} - {NO_SKILL_DIR})
    lines: list[str] = []
    missing: list[str] = []
    for skill in skills:
        try:
            score = read_score(goldens_dir, skill)
        except (GoldenError, InputError) as err:
            lines.append(f"{skill}: no mutation score read: {err.one_line()}: ratchet mutate {skill} measures it again")
            continue
        if score is None:
            missing.append(skill)
            continue
        lines.append(
            f"{skill}: {score.line()} ({score.measured()}; before this bless: ratchet mutate {skill} measures "
            "these goldens)"
        )
    if missing:
        lines.append(
            f"no mutation score for {', '.join(missing)}: ratchet mutate {' '.join(missing)} shows which breakages "
            f"of a skill its goldens would notice (docs/mutate.md)"
        )
    return lines
