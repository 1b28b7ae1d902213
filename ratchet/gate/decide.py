"""Decide: pair outcomes -> PASS / WARN / BLOCK per edit, with a one-line summary.

Fail closed: a pair whose replay failed is `error`, never `pass`; an edit with an error pair
is at least WARN, and BLOCK under on_error="block" (the default when CI is set).
"""

from __future__ import annotations

from collections.abc import Sequence

from ratchet.gate.models import Decision, PairOutcome, Verdict


def blocks(pair: PairOutcome, block_confidence: float) -> bool:
    """A regression blocks when Level 0 decided it or its judge was at least `block_confidence` sure."""
    return pair.outcome == "regression" and (pair.confidence is None or pair.confidence >= block_confidence)


def decide_edit(
    pairs: Sequence[PairOutcome], *, on_error: str = "warn", block_confidence: float = 0.0
) -> tuple[Decision, str]:
    """The per-edit decision and a one-line summary of why."""
    if not pairs:
        return "PASS", "no golden is affected by this edit"
    regressions = [p for p in pairs if blocks(p, block_confidence)]
    doubtful = [p for p in pairs if p.outcome == "regression" and not blocks(p, block_confidence)]
    errors = [p for p in pairs if p.outcome == "error"]
    unsure = [p for p in pairs if p.outcome == "unsure"]
    drift = [p for p in pairs if p.outcome == "drift"]
    if regressions:
        return "BLOCK", f"{len(regressions)} regression(s), first {regressions[0].task_id}: {regressions[0].reason}"
    if errors and on_error == "block":
        return "BLOCK", f"{len(errors)} pair(s) could not be checked (on-error block), first {errors[0].task_id}: {errors[0].reason}"
    if errors or unsure or doubtful:
        parts = []
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
        base=base, head=head, skills_changed=[], decision="PASS", summary="no skill changed",
        simulated=simulated, on_error="block" if on_error == "block" else "warn", wall_ms=wall_ms,
    )
