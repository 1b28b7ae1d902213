"""A model change is an edit: which goldens to replay under the head's agent, and what the verdict says of it.

Every golden can move when the agent changes, so the selection is all of them (select.every_golden), skill
edits or not. Under a budget the replays are estimated first, from the tokens each golden recorded at the
head agent's price; when the estimate does not fit, a seeded sample stratified by skill is taken: each
skill's goldens in the order of derived_seed("model-change", task id), one skill after another in name
order, until the next golden would not fit. The same goldens, budget and price always give the same sample.
A skill none of whose goldens was replayed is named and floors the verdict at WARN: the gate never says
PASS about what it did not see (docs/adr/0012, docs/adr/0023).

The verdict's summary opens with the change and, per skill, what regressed; the decision is the pairs'
decision as for any edit (a regression BLOCKs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ratchet.config.project import Price
from ratchet.core.ids import derived_seed
from ratchet.gate.decide import NO_PAIRS, blocks, decide_edit
from ratchet.gate.model_change_models import AgentSide, ModelChange, SkillReplayed
from ratchet.gate.models import PairOutcome, Selected, Verdict
from ratchet.gate.select import every_golden
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import NO_SKILL_DIR, Trace
from ratchet.skills.names import skill_key

_BYTES_PER_TOKEN = 6
"""How much larger the gateway's worst-case input bound (payload bytes, ratchet.llm.pricing) runs than the
tokens a call used: the sample keeps one call's worst case free, or the budget's reservation would refuse the
last replay it planned."""

_RANK = {"PASS": 0, "WARN": 1, "BLOCK": 2}


@dataclass(frozen=True)
class ReplayPlan:
    """The goldens to replay under the head's agent, what they are estimated to cost, and the skills' totals."""

    selected: list[Selected]
    estimate_usd: float
    """What the selected goldens' replays should cost."""
    sampled: bool
    goldens: dict[str, int]
    """Skill (a golden's folder; _none for the canaries) -> its goldens at the base; 0 for a skill with none."""
    every_usd: float
    """What replaying every golden should cost (the estimate that did not fit, when sampled)."""


def golden_skill(golden: Trace) -> str:
    return golden.fired_skill or NO_SKILL_DIR


def replay_cost(golden: Trace, price: Price | None) -> float:
    """What replaying `golden` should cost at `price`: the tokens it recorded (no price: 0, the simulator's)."""
    return 0.0 if price is None else golden.tokens_in * price.input + golden.tokens_out * price.output


def plan_replays(
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    skills: Sequence[str],
    *,
    price: Price | None,
    budget_usd: float | None,
    max_tokens: int,
    edited: Sequence[str] = (),
) -> ReplayPlan:
    """Every golden, or under `budget_usd` the seeded sample stratified by skill that fits (module docstring).
    `skills`: the base's skill names, so a skill with no golden is named too; `max_tokens`: the head agent's.
    The goldens of `edited` skills (the same change edits them) are never left out of a sample: their edit is
    checked in full, as it would be without the agent change, and the budget stops them as it stops any check."""
    everything = every_golden(tasks, goldens)
    totals = dict.fromkeys(sorted(skills), 0)
    for item in everything:
        totals[golden_skill(item.golden)] = totals.get(golden_skill(item.golden), 0) + 1
    totals = dict(sorted(totals.items()))
    estimate = sum(replay_cost(item.golden, price) for item in everything)
    reserve = _one_call(everything, price, max_tokens)
    if budget_usd is None or estimate + reserve <= budget_usd:
        return ReplayPlan(everything, estimate, sampled=False, goldens=totals, every_usd=estimate)
    strata: dict[str, list[Selected]] = {}
    for item in everything:
        strata.setdefault(golden_skill(item.golden), []).append(item)
    for items in strata.values():
        items.sort(key=lambda item: (derived_seed("model-change", item.task.id), item.task.id))
    keys = {skill_key(name) for name in edited}
    forced = [item for item in everything if skill_key(golden_skill(item.golden)) in keys]
    chosen = {item.task.id for item in forced}
    planned = sum(replay_cost(item.golden, price) for item in forced)
    for item in _round_robin({skill: items for skill, items in strata.items() if skill_key(skill) not in keys}):
        cost = replay_cost(item.golden, price)
        if planned + cost + reserve > budget_usd:
            break
        chosen.add(item.task.id)
        planned += cost
    sample = [item for item in everything if item.task.id in chosen]
    return ReplayPlan(sample, planned, sampled=True, goldens=totals, every_usd=estimate)


def _round_robin(strata: Mapping[str, Sequence[Selected]]) -> list[Selected]:
    """One golden of each skill in name order, then the next of each, until all are taken."""
    order = sorted(strata)
    deepest = max((len(items) for items in strata.values()), default=0)
    return [strata[skill][depth] for depth in range(deepest) for skill in order if depth < len(strata[skill])]


def _one_call(selected: Sequence[Selected], price: Price | None, max_tokens: int) -> float:
    """The worst case of the largest agent call the goldens recorded, as the gateway reserves it."""
    if price is None:
        return 0.0
    largest = max((call.tokens_in for item in selected for call in item.golden.model_calls), default=0)
    return largest * _BYTES_PER_TOKEN * price.input + max_tokens * price.output


def model_change_frame(
    base: AgentSide,
    head: AgentSide,
    plan: ReplayPlan,
    *,
    fields: Sequence[str],
    declared: bool,
    simulated: bool,
) -> ModelChange:
    """What the verdict says of the change before any pair is decided (with_model_change fills in the rest)."""
    return ModelChange(
        base=base,
        head=head,
        fields=list(fields),
        declared=declared,
        goldens_total=sum(plan.goldens.values()),
        replayed=len(plan.selected),
        sampled=plan.sampled,
        estimate_usd=plan.estimate_usd,
        every_usd=plan.every_usd,
        simulated=simulated,
        skills=[SkillReplayed(skill=s, goldens=n, replayed=0, decision=None) for s, n in plan.goldens.items()],
    )


def with_model_change(verdict: Verdict, change: ModelChange, *, block_confidence: float) -> Verdict:
    """`verdict` with the change on it: per skill what regressed, the summary opening with it, and at least WARN
    when a skill had none of its goldens replayed. check_edit and a shard merge both end with this."""
    policy = verdict.on_error or "block"
    by_skill: dict[str, list[PairOutcome]] = {}
    for pair in verdict.pairs:
        by_skill.setdefault(pair.golden_skill or NO_SKILL_DIR, []).append(pair)
    skills = []
    for entry in change.skills:
        pairs = by_skill.get(entry.skill, [])
        decision = decide_edit(pairs, on_error=policy, block_confidence=block_confidence)[0] if pairs else None
        regressed = [p.task_id for p in pairs if blocks(p, block_confidence)]
        skills.append(entry.model_copy(update={"replayed": len(pairs), "regressed": regressed, "decision": decision}))
    done = change.model_copy(update={"skills": skills, "replayed": len(verdict.pairs), "spent_usd": verdict.cost_usd})
    unseen = any(entry.decision is None for entry in skills)
    decision = "WARN" if unseen and _RANK[verdict.decision] < _RANK["WARN"] else verdict.decision
    # With no golden replayed (nothing fitted the budget), "no golden is affected" would be wrong: all of them are.
    rest = verdict.summary.removesuffix(NO_PAIRS).removesuffix("; ") if not verdict.pairs else verdict.summary
    summary = "; ".join(part for part in (change_line(done), rest) if part)
    return verdict.model_copy(update={"model_change": done, "decision": decision, "summary": summary})


def change_line(change: ModelChange) -> str:
    """The summary's opening: the change, per skill what regressed, and how many goldens ran at what cost."""
    if change.base.model != change.head.model:
        what = f"agent model changed ({change.base.model} -> {change.head.model})"
    else:
        what = f"agent changed ({', '.join(change.fields)}; model {change.head.model})"
    if change.declared:
        what += " by --agent-model"
    parts = []
    for entry in change.skills:
        name = _named(entry.skill)
        if entry.regressed:
            parts.append(f"{name} regressed on {len(entry.regressed)} of {entry.replayed} golden(s)")
        elif entry.decision is None:
            why = "no golden" if entry.goldens == 0 else f"{entry.goldens} golden(s), none in the sample"
            parts.append(f"{name} not replayed ({why}): unchecked")
        elif entry.decision != "PASS":
            parts.append(f"{name} {entry.decision}")
    passed = sum(1 for entry in change.skills if entry.decision == "PASS" and entry.skill != NO_SKILL_DIR)
    if passed:
        parts.append(f"{passed} {'other ' if parts else ''}skill(s) PASS")
    if any(entry.decision == "PASS" and entry.skill == NO_SKILL_DIR for entry in change.skills):
        parts.append("the canaries PASS")
    money = "simulated $" if change.simulated else "$"
    ran = f"replayed {change.replayed} of {change.goldens_total} golden(s)"
    if change.sampled:
        every = f"{money}{change.every_usd:.4f}"
        ran += f" (a seeded sample stratified by skill: all of them, estimate {every}, did not fit the budget)"
    ran += f", estimate {money}{change.estimate_usd:.4f}, spent {money}{change.spent_usd:.4f}"
    return f"{what}: {'; '.join([*parts, ran])}"


def _named(skill: str) -> str:
    return "the canaries (no skill)" if skill == NO_SKILL_DIR else f"skill {skill}"
