"""What a check's verdict means for a mutant, and the score: killed, survived, error or unchecked.

Killed: the check decided WARN or BLOCK and some replayed golden noticed the mutant (a pair judged a
regression, unsure or inconclusive: Level 0 saw a difference the judges did not clear). Survived: no
pair noticed it; a WARN that comes only from what the gate could not see (an unseen note) or from the
static diff of a skill no replay exercised is named in the reason, since the goldens did not catch it.
A drift pair is the world moving, not the mutant. Error: the check could not be made (never killed).
Unchecked: the spend cap stopped it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ratchet.config.project import StaticPolicy
from ratchet.gate.models import PairOutcome, Verdict
from ratchet.gate.policy import BUDGET_STOPPED
from ratchet.gate.static import static_note, unexercised
from ratchet.mutate.models import MUTANT_CLASSES, ClassScore, Mutant, MutantOutcome, SkillScore, Status

NOTICED = ("regression", "unsure", "inconclusive")
"""Pair outcomes that mean a golden's replay differed in a way the gate did not clear."""
SPENT_BEFORE = "not checked: the run's budget was spent before its check"


def outcome_of(mutant: Mutant, verdict: Verdict, *, static: StaticPolicy) -> MutantOutcome:
    """The mutant's fate from its check's verdict (`static`: the base's static policy, for the reason)."""
    noticed = [pair for pair in verdict.pairs if pair.outcome in NOTICED]
    stopped = [pair for pair in verdict.pairs if pair.decided_by == BUDGET_STOPPED]
    errors = [pair for pair in verdict.pairs if pair.outcome == "error"]
    caught_by: list[str] = []
    if noticed and verdict.decision != "PASS":
        status: Status = "killed"
        reason = f"caught by {len(noticed)} golden(s), first {_pair_line(noticed[0])}"
        caught_by = [pair.task_id for pair in noticed]
    elif stopped:
        status = "unchecked"
        reason = f"not checked: the budget stopped {len(stopped)} of {len(verdict.pairs)} pair(s), first "
        reason += _pair_line(stopped[0])
    elif errors:
        status, reason = "error", f"the check failed for {len(errors)} pair(s), first {_pair_line(errors[0])}"
    else:
        status, reason = "survived", _survived(verdict, static)
    return MutantOutcome(
        mutant=mutant,
        status=status,
        decision=verdict.decision,
        reason=reason,
        caught_by=caught_by,
        cost_usd=verdict.cost_usd,
    )


def _pair_line(pair: PairOutcome) -> str:
    return _one_line(f"{pair.task_id}: {pair.outcome} ({pair.decided_by}): {pair.error or pair.reason}")


def _survived(verdict: Verdict, static: StaticPolicy) -> str:
    """Why no golden noticed it, and where a WARN or BLOCK without a noticing pair came from."""
    if verdict.decision == "PASS":
        return _one_line(f"no golden noticed it (PASS: {verdict.summary})")
    sources: list[tuple[str, str]] = [("an unseen note", u.detail) for u in verdict.unseen if u.level == "warn"]
    sources += [("the static diff", static_note(diff, static)) for diff in unexercised(verdict)]
    if not sources:
        return _one_line(f"no golden noticed it; the {verdict.decision} came from: {verdict.summary}")
    kinds = " and ".join(dict.fromkeys(kind for kind, _ in sources))
    return _one_line(f"no golden noticed it; the {verdict.decision} came only from {kinds}: {sources[0][1]}")


def failed(mutant: Mutant, message: str) -> MutantOutcome:
    """A mutant whose check raised (a refused mutant, an upstream that failed): an error, never killed."""
    return MutantOutcome(mutant=mutant, status="error", reason=_one_line(f"the check failed: {message}"))


def left_unchecked(mutant: Mutant) -> MutantOutcome:
    """A mutant the run's spend cap left without a check."""
    return MutantOutcome(mutant=mutant, status="unchecked", reason=SPENT_BEFORE)


def scores(outcomes: Sequence[MutantOutcome], *, unfollowed: Mapping[str, str] | None = None) -> list[SkillScore]:
    """Per skill (in name order) and per class (R1..R6, those it has mutants of): killed and survived, with
    the errors and unchecked mutants counted apart (in neither). `unfollowed`: skill -> why the simulator
    cannot follow it (ratchet.mutate.plan.unfollowed_skills), said next to its score."""
    blind = unfollowed or {}
    by_skill: dict[str, list[MutantOutcome]] = {}
    for outcome in outcomes:
        by_skill.setdefault(outcome.mutant.skill, []).append(outcome)
    result: list[SkillScore] = []
    for skill in sorted(by_skill):
        mine = by_skill[skill]
        classes = [
            ClassScore(
                mutant_class=cls,
                killed=sum(1 for o in mine if o.mutant.mutant_class == cls and o.status == "killed"),
                survived=sum(1 for o in mine if o.mutant.mutant_class == cls and o.status == "survived"),
            )
            for cls in MUTANT_CLASSES
            if any(o.mutant.mutant_class == cls for o in mine)
        ]
        result.append(
            SkillScore(
                skill=skill,
                killed=sum(1 for o in mine if o.status == "killed"),
                survived=sum(1 for o in mine if o.status == "survived"),
                errors=sum(1 for o in mine if o.status == "error"),
                unchecked=sum(1 for o in mine if o.status == "unchecked"),
                by_class=classes,
                unfollowed=unfollowed_note(blind[skill]) if skill in blind else None,
            )
        )
    return result


def unfollowed_note(reason: str) -> str:
    """Why a skill the simulator cannot follow scores low offline, and what to do for a meaningful score."""
    return (
        f"the simulator cannot follow this skill's prose ({reason}): its goldens record what the simulator did, "
        "not what the skill asks; record live or through a real harness for a meaningful score"
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())
