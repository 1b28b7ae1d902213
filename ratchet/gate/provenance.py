"""Provenance: where each golden was recorded, against where its replay ran, named once per kind of difference.

A pair compares like with like only when the golden and its replay ran on the same upstream, agent model,
harness (at its pinned version) and tool protocol: a golden recorded on the simulator and replayed live, or
with one model and replayed with another, differs for reasons that are not the edit's. Each difference is kept
on its pair (PairOutcome.provenance), so a shard's file carries it and a merge names it as one machine does;
the verdict names each kind once, first, as a `warn` note (at least WARN), with the goldens and the command
that re-records them (docs/adr/0019-provenance.md).

A field the golden did not record (goldens from before it was kept) is no difference. Nor is the agent
model when the upstream differs: the simulator's model id stands in for no model, so the upstream says it.
A Ratchet upgrade alone is a `note`: every upgrade would otherwise warn on every golden. When the check replays
under another agent on purpose (a model change, docs/adr/0023), each golden is compared with what the base's agent
records (BaseAgent), not with the replay: the two agents' difference is what is checked, not a provenance note.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ratchet.gate.models import PairOutcome, ProvenanceDifference, ProvenanceKind, Unseen
from ratchet.goldens.trace import NO_SKILL_DIR, HarnessRef, Trace

_NAMED = 8
"""Goldens a note names before `and N more`; over that its command re-records every task."""

_ORDER: tuple[ProvenanceKind, ...] = ("upstream", "agent_model", "harness", "tool_protocol", "ratchet_version")

_SIDES: dict[ProvenanceKind, tuple[str, str]] = {
    "agent_model": ("with agent model {}", "with {}"),
    "harness": ("through {}", "through {}"),
    "tool_protocol": ("with tool protocol {}", "with {}"),
    "ratchet_version": ("with Ratchet {}", "with {}"),
}
_UPSTREAM = {"sim": "on the simulator", "live": "live"}


def provenance_differences(golden: Trace, replay: Trace) -> list[ProvenanceDifference]:
    """How `golden` was recorded otherwise than `replay` ran, in a fixed order; [] when alike."""
    found: list[tuple[ProvenanceKind, str, str]] = []
    if golden.upstream != replay.upstream:
        found.append(("upstream", golden.upstream, replay.upstream))
    else:
        found.append(("agent_model", golden.models.get("agent", ""), replay.models.get("agent", "")))
    found.append(("harness", *_harnesses(golden.harness, replay.harness)))
    found.append(("tool_protocol", golden.tool_protocol, replay.tool_protocol))
    found.append(("ratchet_version", golden.ratchet_version, replay.ratchet_version))
    return [
        ProvenanceDifference(kind=kind, golden=was, replay=now)
        for kind, was, now in found
        if was and now and was != now
    ]


def _harnesses(golden: HarnessRef | None, replay: HarnessRef | None) -> tuple[str, str]:
    """The two harnesses as a note names them, each with its version if it has one; one harness's versions
    are compared only when both sides recorded one (`command` has none)."""
    was, now = golden or HarnessRef(name="minimal"), replay or HarnessRef(name="minimal")
    if was.name == now.name and not (was.version and now.version):
        return was.name, now.name
    return f"{was.name} {was.version}".strip(), f"{now.name} {now.version}".strip()


@dataclass(frozen=True)
class BaseAgent:
    """What a replay under the base's agent records: each golden is compared with it when the check replays under
    another agent on purpose (ratchet.gate.agent_change), since the difference between the two agents is what is
    checked; a golden recorded with yet another model, protocol or harness is still named."""

    model: str
    tool_protocol: str
    harness: str
    """The base's harness name (its version is whatever the golden recorded, when the name is the golden's)."""

    def stamp(self, golden: Trace, replay: Trace) -> Trace:
        """`replay` as the base's agent would have stamped it."""
        was = golden.harness or HarnessRef(name="minimal")
        harness = was if was.name == self.harness else HarnessRef(name=self.harness)
        return replay.model_copy(
            update={
                "models": {**replay.models, "agent": self.model},
                "tool_protocol": self.tool_protocol,
                "harness": None if harness.name == "minimal" else harness,
            }
        )


def with_provenance(
    pair: PairOutcome, golden: Trace, replay: Trace | None, *, agent: BaseAgent | None = None
) -> PairOutcome:
    """`pair` with how its golden's provenance differs from its replay's (none when nothing was replayed);
    with `agent`, from what the base's agent would have recorded (BaseAgent)."""
    if replay is not None and agent is not None:
        replay = agent.stamp(golden, replay)
    differences = provenance_differences(golden, replay) if replay is not None else []
    return pair.model_copy(update={"provenance": differences}) if differences else pair


def provenance_notes(pairs: Sequence[PairOutcome]) -> list[Unseen]:
    """One note per kind of difference (what the golden had, what the replay had) over the pairs, warnings first,
    naming the goldens in the pairs' order."""
    groups: dict[tuple[ProvenanceKind, str, str], list[PairOutcome]] = {}
    for pair in pairs:
        for difference in pair.provenance:
            groups.setdefault((difference.kind, difference.golden, difference.replay), []).append(pair)
    ordered = sorted(groups.items(), key=lambda item: _ORDER.index(item[0][0]))
    notes = [_note(kind, was, now, grouped) for (kind, was, now), grouped in ordered]
    return [n for n in notes if n.level == "warn"] + [n for n in notes if n.level == "note"]


def unseen_with_provenance(pairs: Sequence[PairOutcome], unseen: Sequence[Unseen]) -> list[Unseen]:
    """The verdict's unseen notes: the pairs' provenance notes first, then `unseen`, warnings before notes
    (what evaluate and a shard merge both name, from the same pairs)."""
    named = provenance_notes(pairs)
    if not named:
        return list(unseen)
    everything = [*named, *unseen]
    return [n for n in everything if n.level == "warn"] + [n for n in everything if n.level == "note"]


def _note(kind: ProvenanceKind, was: str, now: str, pairs: Sequence[PairOutcome]) -> Unseen:
    ids = list(dict.fromkeys(pair.task_id for pair in pairs))
    names = ", ".join(ids[:_NAMED]) + (f" and {len(ids) - _NAMED} more" if len(ids) > _NAMED else "")
    if kind == "upstream":
        recorded, replayed = _UPSTREAM.get(was, was), _UPSTREAM.get(now, now)
    else:
        recorded, replayed = (side.format(value) for side, value in zip(_SIDES[kind], (was, now), strict=True))
    command = (
        f"ratchet record {' '.join(ids)} && ratchet bless {' '.join(ids)}"
        if len(ids) <= _NAMED
        else "ratchet record && ratchet bless (every task)"
    )
    said = f"{len(ids)} golden(s) were recorded {recorded} but replayed {replayed} ({names})"
    skills = ", ".join(sorted({pair.golden_skill or NO_SKILL_DIR for pair in pairs}))
    if kind == "ratchet_version":
        detail = (
            f"{said}: a note, not a warning (an upgrade alone is no reason to doubt a golden); if a pair differs, "
            f"re-recording tells Ratchet's change from the edit's: {command}"
        )
        return Unseen(kind="provenance", skill=skills, level="note", detail=detail)
    detail = f"{said}: the comparison is not like for like; re-record them: {command}"
    return Unseen(kind="provenance", skill=skills, level="warn", detail=detail)
