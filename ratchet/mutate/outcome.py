"""What a check's verdict means for a mutant, and the score: killed, survived, error or unchecked.

Killed: the check decided WARN or BLOCK and some replayed golden noticed the mutant like for like (a pair judged
a regression or unsure, whose golden was recorded as its replay ran). A pair whose golden differs in provenance
(recorded on the simulator and replayed live, another model, harness or tool protocol: ratchet.gate.provenance)
differs for that reason, not the mutant's, and an inconclusive pair differs only where its golden is known to
vary: neither counts. A Ratchet upgrade alone is no such difference (a note, not a warning, in the gate too).
Survived: no pair noticed it; a WARN that comes only from what the gate could not see (an unseen note), from
the static diff of a skill no replay exercised, or from pairs not alike in provenance is named in the reason,
since the goldens did not catch it. A drift pair is the world moving, not the mutant. Error: the check could
not be made (never killed). Unchecked: a spend cap stopped it (the run's --budget, or RATCHET_BENCH_USD_CAP
over all runs), named in the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ratchet.config.project import StaticPolicy
from ratchet.gate.models import PairOutcome, ProvenanceDifference, Verdict
from ratchet.gate.policy import BUDGET_STOPPED
from ratchet.gate.static import static_note, unexercised
from ratchet.llm.budget import CAP_ENV
from ratchet.mutate.models import MUTANT_CLASSES, Cap, ClassScore, Mutant, MutantOutcome, SkillScore, Status

NOTICED = ("regression", "unsure")
"""Pair outcomes that mean a golden's replay differed in a way the gate did not clear (inconclusive is left
out: its differences are only where the golden is known to vary, noise rather than the mutant)."""
SPENT_BEFORE = "not checked: the run's budget was spent before its check"
CAPPED_BEFORE = f"not checked: the spend cap ({CAP_ENV}) was reached before its check"


def outcome_of(mutant: Mutant, verdict: Verdict, *, static: StaticPolicy) -> MutantOutcome:
    """The mutant's fate from its check's verdict (`static`: the base's static policy, for the reason)."""
    differing = [pair for pair in verdict.pairs if pair.outcome in NOTICED]
    noticed = [pair for pair in differing if not unlike(pair)]
    stopped = [pair for pair in verdict.pairs if pair.decided_by == BUDGET_STOPPED]
    errors = [pair for pair in verdict.pairs if pair.outcome == "error"]
    caught_by: list[str] = []
    cap: Cap | None = None
    if noticed and verdict.decision != "PASS":
        status: Status = "killed"
        reason = f"caught by {len(noticed)} golden(s), first {_pair_line(noticed[0])}"
        caught_by = [pair.task_id for pair in noticed]
    elif stopped:
        status = "unchecked"
        cap = cap_of(" ".join(pair.error or pair.reason for pair in stopped))
        which = f"the spend cap ({CAP_ENV})" if cap == "global" else "the budget"
        reason = f"not checked: {which} stopped {len(stopped)} of {len(verdict.pairs)} pair(s), first "
        reason += _pair_line(stopped[0])
    elif errors:
        status, reason = "error", f"the check failed for {len(errors)} pair(s), first {_pair_line(errors[0])}"
    elif differing and verdict.decision != "PASS":
        status, reason = "survived", _unlike_line(differing)
    else:
        status, reason = "survived", _survived(verdict, static)
    replayed = [pair for pair in verdict.pairs if pair.outcome != "error"]
    return MutantOutcome(
        mutant=mutant,
        status=status,
        decision=verdict.decision,
        reason=reason,
        caught_by=caught_by,
        cost_usd=verdict.cost_usd,
        stopped_by=cap,
        unlike=[d for pair in replayed for d in unlike(pair)] if replayed and all(map(unlike, replayed)) else [],
    )


def unlike(pair: PairOutcome) -> list[ProvenanceDifference]:
    """How the pair's golden was recorded otherwise than its replay ran, in a way that makes the comparison not
    like for like: every kind the gate warns about (a Ratchet upgrade alone is a note there, and none here)."""
    return [difference for difference in pair.provenance if difference.kind != "ratchet_version"]


def cap_of(refusal: str) -> Cap:
    """Which cap a refusal's text names: the one over all runs names its variable (ratchet.llm.gateway_model)."""
    return "global" if CAP_ENV in refusal else "run"


def differences_text(differences: Sequence[ProvenanceDifference]) -> str:
    """Each kind of difference once, in the order met: `upstream: sim, replayed live`."""
    named = dict.fromkeys(f"{d.kind}: {d.golden}, replayed {d.replay}" for d in differences)
    return "; ".join(named)


def _unlike_line(differing: Sequence[PairOutcome]) -> str:
    """Why a mutant every noticing pair of which differs in provenance is not counted killed."""
    return _one_line(
        f"no golden noticed it like for like: {len(differing)} pair(s) differed, but their goldens were recorded "
        f"otherwise than replayed ({differences_text([d for pair in differing for d in unlike(pair)])}), so not "
        f"counted; first {_pair_line(differing[0])}"
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


def left_unchecked(mutant: Mutant, cap: Cap = "run") -> MutantOutcome:
    """A mutant a spend cap left without a check: the run's budget, or the cap over all runs (`global`)."""
    return MutantOutcome(
        mutant=mutant, status="unchecked", reason=CAPPED_BEFORE if cap == "global" else SPENT_BEFORE, stopped_by=cap
    )


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
