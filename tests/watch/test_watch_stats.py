"""Per skill: Fisher's one-sided exact test of the watch rate against the noise records, Holm across skills."""

from __future__ import annotations

import pytest

from ratchet.stats.binomial import fisher_greater
from ratchet.watch.models import SkillWatch
from ratchet.watch.stats import decide, holm


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


def test_holm_adjusts_step_down_and_keeps_the_order_given() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    assert holm([0.02, 0.011]) == pytest.approx([0.022, 0.022])  # never below an earlier step
    assert holm([0.9, 0.8]) == [1.0, 1.0]  # capped at 1
    assert holm([]) == []


def test_the_watch_rate_is_tested_against_the_noise_rate_one_sided() -> None:
    moved, quiet, fewer = _skill("a", 12, 12, 9, 24), _skill("b", 4, 12, 11, 24), _skill("c", 0, 12, 20, 24)
    decided = decide([moved, quiet, fewer], alpha=0.05, repeats=4)
    assert decided[0].p_value == fisher_greater(12, 12, 9, 24)  # watch k of n first, the records' d of r second
    assert [s.moved for s in decided] == [True, False, False]  # differing LESS often than the noise is no move
    assert decided[0].adjusted_p == pytest.approx(3 * decided[0].p_value)


def test_a_skill_with_no_counted_replay_is_not_tested_nor_part_of_the_correction() -> None:
    decided = decide([_skill("a", 0, 0, 3, 8), _skill("b", 8, 8, 1, 8)], alpha=0.05, repeats=4)
    assert (decided[0].p_value, decided[0].moved) == (None, False)
    assert decided[1].adjusted_p == decided[1].p_value  # one test: nothing to correct for
    assert decided[1].moved
