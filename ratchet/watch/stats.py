"""Per skill: did its watch replays differ from their goldens more often than the goldens' noise records did?

The watch count k of n (replays that ran and were not world drift) is tested against the pooled records of
the same goldens, d of r, with Fisher's one-sided exact test (ratchet.stats.binomial.fisher_greater: "k of n
beats d of r", conditional on the margins, so the uncertainty of both rates counts). One test per skill, so
the p-values are Holm-adjusted across the skills tested: the chance that a watch run flags any skill whose
model did not move stays at most alpha. A skill moved when its adjusted p <= alpha (the gate's own exact test
rejects at p <= alpha too: ratchet.stats.binomial.plan_test).

A quiet result means something only when the counts could have said otherwise. Per skill, the smallest p its
counts can reach is the one had every counted replay differed (fisher_greater(n, n, d, r)); put in place of
the skill's own p among the others and Holm-adjusted, if even that is above alpha the skill could not have
been flagged by this run: it is "cannot tell" (never "within noise"), with the smallest --repeats that would
have let it be flagged (None: no number up to MAX_REPEATS would, e.g. records that differed in every repeat).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ratchet.gate.noise import MAX_REPEATS
from ratchet.stats.binomial import fisher_greater
from ratchet.stats.multiple import holm as holm  # moved to ratchet.stats; imported from here too
from ratchet.watch.compare import TURN_LIMIT_PART
from ratchet.watch.models import ReplayOutcome, SkillWatch
from ratchet.watch.select import Watched


def tally(skill: str, watched: Sequence[Watched], replays: Sequence[ReplayOutcome], available: int) -> SkillWatch:
    """One skill's counts: its replays (world drift and failures apart) and the pooled records of the goldens
    those replays are of."""
    ids = {item.task.id for item in watched}
    mine = [replay for replay in replays if replay.task_id in ids]
    counted = [replay for replay in mine if replay.kind in ("same", "differed")]
    # The baseline is the records of the goldens whose replays count: like with like when one golden's replays
    # all drifted or failed (its record would otherwise weigh in the rate with no replay of its own against it).
    counted_ids = {replay.task_id for replay in counted}
    baseline = [item.record for item in watched if item.task.id in counted_ids]
    known = {part for record in baseline for part in record.varying}
    # How a replay ended comes first: a model that stops finishing is the headline of what is new.
    new = {part for replay in counted for part in replay.parts if part not in known}
    new_parts = sorted(new, key=lambda part: (part != TURN_LIMIT_PART, part))
    return SkillWatch(
        skill=skill,
        goldens=[item.task.id for item in watched],
        available=available,
        replays=len(counted),
        differed=sum(1 for replay in counted if replay.kind == "differed"),
        noise_repeats=sum(record.repeats for record in baseline),
        noise_differed=sum(record.differed for record in baseline),
        world=sum(1 for replay in mine if replay.kind == "world"),
        errors=sum(1 for replay in mine if replay.kind in ("error", "stopped")),
        new_parts=new_parts,
    )


def _best_adjusted(p_values: Mapping[int, float], index: int, best: float) -> float:
    """Skill `index`'s Holm-adjusted p had its own p been `best`, the others as they are."""
    keys = list(p_values)
    return holm([best if key == index else p_values[key] for key in keys])[keys.index(index)]


def _needs_repeats(
    skill: SkillWatch, p_values: Mapping[int, float], index: int, *, alpha: float, repeats: int
) -> int | None:
    """The smallest --repeats (up to MAX_REPEATS) at which every replay differing would be flagged."""
    for more in range(repeats + 1, MAX_REPEATS + 1):
        n = skill.replays * more // repeats
        if _best_adjusted(p_values, index, fisher_greater(n, n, skill.noise_differed, skill.noise_repeats)) <= alpha:
            return more
    return None


def decide(skills: Sequence[SkillWatch], *, alpha: float, repeats: int) -> list[SkillWatch]:
    """Each skill with its p-value, Holm-adjusted p-value, `moved`, and whether it could have been flagged at
    all (`could_flag`, from `best_p`); a skill with no counted replay is not tested (None) and is no part of
    the correction."""
    tested: Mapping[int, float] = {
        i: fisher_greater(s.differed, s.replays, s.noise_differed, s.noise_repeats)
        for i, s in enumerate(skills)
        if s.replays > 0 and s.noise_repeats > 0
    }
    adjusted = dict(zip(tested, holm(list(tested.values())), strict=True))
    decided = list(skills)
    for i, p_value in tested.items():
        skill = skills[i]
        best = fisher_greater(skill.replays, skill.replays, skill.noise_differed, skill.noise_repeats)
        could_flag = _best_adjusted(tested, i, best) <= alpha
        decided[i] = skill.model_copy(
            update={
                "p_value": p_value,
                "adjusted_p": adjusted[i],
                "moved": adjusted[i] <= alpha,
                "best_p": best,
                "could_flag": could_flag,
                "needs_repeats": None if could_flag else _needs_repeats(skill, tested, i, alpha=alpha, repeats=repeats),
            }
        )
    return decided
