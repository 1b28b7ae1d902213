"""Decide: pair outcomes -> PASS / WARN / BLOCK per edit, with a one-line summary.

A pair replayed again because its golden is known to vary (ratchet.gate.repeats) blocks only when
the exact test says so; otherwise it is `inconclusive`, which warns with the numbers.

Fail closed: a pair whose replay failed is `error`, never `pass`; an edit with an error pair
is at least WARN, and BLOCK under on_error="block" (what `ratchet check` runs with unless told
otherwise; with no --on-error flag the CLI also exits 3). What the gate could not check at all is
named first in the summary (`with_unchecked`): its own settings changed or a submodule moved (at
least WARN, BLOCK under on_error="block"), the evidence it changes (ratchet.gate.evidence: coverage
removed as a settings change, a re-bless or removal at least WARN, an addition a note), nothing
blessed at the base (WARN), and the parts of the edit no replay could see (ratchet.gate.unseen: a
`warn` note is at least WARN, a `note` is listed and changes nothing).
"""

from __future__ import annotations

from collections.abc import Sequence

from ratchet.core.chat import USD_PLACES
from ratchet.gate.evidence import evidence_notes
from ratchet.gate.models import Decision, EvidenceChanges, PairOutcome, Unseen, Verdict

NO_PAIRS = "no golden is affected by this edit"
"""The summary of an edit with no pair to decide."""


def pairs_cost(pairs: Sequence[PairOutcome]) -> float:
    """What `pairs` cost together, each as its file holds it (USD rounds to 9 places): a verdict merged from
    --shard files then costs to the last digit what the unsharded check's does."""
    return sum(round(pair.cost_usd, USD_PLACES) for pair in pairs)


def blocks(pair: PairOutcome, block_confidence: float) -> bool:
    """A regression blocks when Level 0 decided it or its judge was at least `block_confidence` sure."""
    return pair.outcome == "regression" and (pair.confidence is None or pair.confidence >= block_confidence)


def decide_edit(
    pairs: Sequence[PairOutcome], *, on_error: str = "warn", block_confidence: float = 0.0
) -> tuple[Decision, str]:
    """The per-edit decision and a one-line summary of why."""
    if not pairs:
        return "PASS", NO_PAIRS
    regressions = [p for p in pairs if blocks(p, block_confidence)]
    doubtful = [p for p in pairs if p.outcome == "regression" and not blocks(p, block_confidence)]
    errors = [p for p in pairs if p.outcome == "error"]
    unsure = [p for p in pairs if p.outcome == "unsure"]
    inconclusive = [p for p in pairs if p.outcome == "inconclusive"]
    drift = [p for p in pairs if p.outcome == "drift"]
    if regressions:
        return "BLOCK", f"{len(regressions)} regression(s), first {regressions[0].task_id}: {regressions[0].reason}"
    if errors and on_error == "block":
        return (
            "BLOCK",
            f"{len(errors)} pair(s) could not be checked (unchecked pairs block), first {errors[0].task_id}: {errors[0].reason}",
        )
    if errors or unsure or doubtful or inconclusive:
        parts = []
        if inconclusive:
            parts.append(
                f"{len(inconclusive)} pair(s) inconclusive over repeated replays, first {inconclusive[0].task_id}: "
                f"{inconclusive[0].reason}"
            )
        if doubtful:
            parts.append(f"{len(doubtful)} possible regression(s) below block confidence, first {doubtful[0].task_id}")
        if unsure:
            parts.append(f"{len(unsure)} pair(s) differ and need judging")
        if errors:
            parts.append(f"{len(errors)} pair(s) could not be checked")
        return "WARN", "; ".join(parts)
    if drift:
        return "PASS", f"{len(pairs)} affected golden(s), no regression; {len(drift)} moved with the world (re-bless)"
    return "PASS", f"{len(pairs)} affected golden(s) replayed without a regression"


def no_change(*, base: str, head: str, simulated: bool, on_error: str, wall_ms: float = 0.0) -> Verdict:
    """The verdict for an edit that changes no skill."""
    return Verdict(
        base=base,
        head=head,
        skills_changed=[],
        decision="PASS",
        summary="no skill changed",
        simulated=simulated,
        on_error="block" if on_error == "block" else "warn",
        wall_ms=wall_ms,
    )


_RANK: dict[Decision, int] = {"PASS": 0, "WARN": 1, "BLOCK": 2}


def with_unchecked(
    verdict: Verdict,
    *,
    settings_changed: Sequence[str] = (),
    submodules_changed: Sequence[str] = (),
    nothing_blessed_at: str | None = None,
    unseen: Sequence[Unseen] = (),
    evidence: EvidenceChanges | None = None,
) -> Verdict:
    """`verdict` with what the gate could not check named first: at least WARN, BLOCK under on_error=block.

    `settings_changed`: the edit changes the gate's own settings, which it was checked without;
    `submodules_changed`: submodules in the skills folder moved, and their content is unseen;
    `nothing_blessed_at`: the base (this revision) has no project yet, so there was nothing to replay;
    `unseen`: parts of the edit no replay could see; each `warn` is at least WARN (never BLOCK: the
    edit is unchecked, not tampering), a `note` only rides along on the verdict;
    `evidence`: goldens, noise records and tasks the edit changes (ratchet.gate.evidence), named right
    after the settings: removing coverage floors like a settings change, changing, moving or removing
    evidence at WARN, and adding it is a note.
    """
    notes: list[str] = []
    if nothing_blessed_at is not None:  # first: it is why everything below was not checked
        notes.append(f"nothing is blessed at {nothing_blessed_at}: no golden to replay")
    if settings_changed:
        notes.append(
            f"the gate's own settings changed ({', '.join(settings_changed)}): "
            "checked with the base's settings; review the change"
        )
    if evidence:
        notes.extend(evidence_notes(evidence, verdict.pairs))
    notes.extend(
        f"{path} is a submodule whose commit changed: Ratchet cannot see inside it" for path in submodules_changed
    )
    notes.extend(note.detail for note in unseen if note.level == "warn")
    listed: dict[str, object] = {"unseen": [*verdict.unseen, *unseen]} if unseen else {}
    if nothing_blessed_at is not None:
        # With no golden at the base, every `unrouted` note is "no golden exercises skill X", which
        # the note above says once for all of them (and wrongly suggests the edit lacks goldens).
        listed = {"unseen": [note for note in [*verdict.unseen, *unseen] if note.kind != "unrouted"]}
    if evidence:
        listed["evidence_changed"] = evidence
    if not notes:
        return verdict.model_copy(update=listed)
    # Settings or submodules the edit controls block under on_error=block; a base with nothing blessed
    # (a first push, the commit before adoption) is no one's tampering: it warns, never passes. Its
    # ratchet.yaml, if the edit adds one, softens nothing, since there is no golden for it to soften.
    tampered = (
        bool(settings_changed or submodules_changed or (evidence and evidence.coverage_removed))
        and nothing_blessed_at is None
    )
    floor: Decision = "BLOCK" if tampered and verdict.on_error == "block" else "WARN"
    decision = verdict.decision if _RANK[verdict.decision] >= _RANK[floor] else floor
    # With nothing blessed there are no pairs, and "no golden is affected" would only repeat the note.
    summary = "; ".join(notes if nothing_blessed_at is not None else [*notes, verdict.summary])
    return verdict.model_copy(
        update={
            "decision": decision,
            "summary": summary,
            "settings_changed": list(settings_changed),
            "submodules_changed": list(submodules_changed),
            **listed,
        }
    )
