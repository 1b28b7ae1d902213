"""Static: what the behavioural diff decides on its own (ratchet.diff; docs/diff.md, docs/adr/0018).

A replay sees a change only if the agent acts on it: the simulator reads no prose and cannot follow a
free-form skill, and a live model may not reach the step. The diff reads every change, without a
model. Two rules, under the base's ratchet.yaml `static:` (`warn` by default; docs/adr/0011):

- **Cosmetic.** An edit the diff proves cosmetic for every changed skill (no finding at all: the same
  instructions once what the configured harness does not send is dropped) changes nothing the model
  reads. `cosmetic_verdict` PASSes it at $0 and check_edit replays nothing and calls no model, live too.
- **Floor.** A finding the policy acts on (`FLOOR_KINDS`: an added side-effect action, a removed or
  weakened rule, content after a skill-closing line, a dangerous or unanalysed script line) in a skill
  no replay exercised floors the edit at WARN, BLOCK under `static: block`, and leads the summary
  (`with_static`). In a skill the replays exercised it is listed beside the pairs, which decide.

**Exercised**, precisely: at least one pair whose golden or replay fired the skill came out `pass`,
`regression`, `unsure` or `inconclusive`, so its replay differed from the golden and that difference was
judged: the change reached the agent. A skill whose pairs are all `same` (the replay could not see
the change), `drift` (the world moved; the skill's replay on the base matched) or `error` (nothing was
checked), or that has no pair at all (no golden routes to it), was not exercised. The rule is per
skill, not per finding: nothing ties a replay's difference to one line of the diff.
"""

from __future__ import annotations

from collections.abc import Sequence

from ratchet.config.project import StaticPolicy
from ratchet.diff.models import DiffFinding, DiffKind, SkillDiff
from ratchet.gate.models import Decision, Outcome, PairOutcome, Verdict
from ratchet.skills.names import optional_skill_key, skill_key

__all__ = [
    "EXERCISED",
    "cosmetic_verdict",
    "exercised_skills",
    "proved_cosmetic",
    "static_note",
    "unexercised",
    "with_static",
]

EXERCISED: frozenset[Outcome] = frozenset({"pass", "regression", "unsure", "inconclusive"})
"""Pair outcomes whose replay differed from the golden because of the edit, and was judged."""

_RANK: dict[Decision, int] = {"PASS": 0, "WARN": 1, "BLOCK": 2}
_SCRIPT_KINDS = frozenset({DiffKind.SCRIPT_COMMAND, DiffKind.SCRIPT_NETWORK, DiffKind.SCRIPT_DELETION})


def proved_cosmetic(diffs: Sequence[SkillDiff]) -> bool:
    """Whether the diff proves the edit cosmetic for every changed skill (and there is a changed skill)."""
    return bool(diffs) and all(diff.cosmetic for diff in diffs)


def cosmetic_verdict(
    diffs: Sequence[SkillDiff],
    *,
    base: str,
    head: str,
    simulated: bool,
    on_error: str,
    gate_config: str | None,
    goldens_total: int,
    wall_ms: float,
) -> Verdict:
    """The PASS for an edit `proved_cosmetic`: nothing replayed, nothing paid, and why."""
    why = ", ".join(f"{diff.skill} ({diff.cosmetic_reason})" for diff in diffs)
    return Verdict(
        base=base,
        head=head,
        skills_changed=[diff.skill for diff in diffs],
        decision="PASS",
        summary=f"no change in instructions: {why}, so no golden was replayed",
        goldens_total=goldens_total,
        wall_ms=wall_ms,
        simulated=simulated,
        on_error="block" if on_error == "block" else "warn",
        gate_config=gate_config,
        diff=list(diffs),
    )


def exercised_skills(pairs: Sequence[PairOutcome]) -> set[str]:
    """The skill keys (ratchet.skills.names.skill_key) some pair exercised: see the module docstring."""
    return {
        key
        for pair in pairs
        if pair.outcome in EXERCISED
        for key in (optional_skill_key(pair.golden_skill), optional_skill_key(pair.replay_skill))
        if key
    }


def unexercised(verdict: Verdict) -> list[SkillDiff]:
    """The verdict's skill diffs with a finding the policy acts on, in skills no pair exercised."""
    exercised = exercised_skills(verdict.pairs)
    return [diff for diff in verdict.diff if diff.floor_findings() and skill_key(diff.skill) not in exercised]


def with_static(verdict: Verdict, diffs: Sequence[SkillDiff], *, policy: StaticPolicy) -> Verdict:
    """`verdict` (decided over its pairs) with the diff on it and, for each skill `unexercised`, its first
    floor finding leading the summary, at least WARN (BLOCK under `static: block`)."""
    verdict = verdict.model_copy(update={"diff": list(diffs)})
    notes = [static_note(diff, policy) for diff in unexercised(verdict)]
    if not notes:
        return verdict
    floor: Decision = "BLOCK" if policy == "block" else "WARN"
    decision = verdict.decision if _RANK[verdict.decision] >= _RANK[floor] else floor
    return verdict.model_copy(update={"decision": decision, "summary": "; ".join([*notes, verdict.summary])})


def static_note(diff: SkillDiff, policy: StaticPolicy) -> str:
    """`the edit <first floor finding> [and N more] in skill <name> that no replay exercised (static: <policy>)`."""
    first, *rest = diff.floor_findings()
    more = f" and {len(rest)} more" if rest else ""
    return f"the edit {_phrase(first)}{more} in skill {diff.skill} that no replay exercised (static: {policy})"


def _phrase(finding: DiffFinding) -> str:
    """A finding as a verb phrase, without the quote and section its full line in the evidence carries."""
    if finding.kind is DiffKind.SCRIPT_FINDING:
        return f"adds a line to {finding.path} flagged by {finding.analyser}"
    if finding.kind is DiffKind.ANALYSER_UNAVAILABLE:
        return f"changes {finding.path}, unanalysed ({finding.message})"
    text = finding.message
    if finding.where:
        text = text.replace(f" in {finding.where}", "", 1)
    text = text.split(": '", 1)[0]
    return f"{text} to {finding.path}" if finding.kind in _SCRIPT_KINDS else text
