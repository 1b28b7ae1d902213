"""Decide: Level 0 findings -> an outcome per pair; pair outcomes -> PASS / WARN / BLOCK per edit.

Fail closed: a pair whose replay failed is `error`, never `pass`; an edit with an error pair
is at least WARN, and BLOCK under on_error="block" (the default when CI is set).
"""

from __future__ import annotations

from collections.abc import Sequence

from ratchet.gate.verdict import Decision, Finding, Outcome, PairOutcome


def level0_outcome(findings: Sequence[Finding]) -> tuple[Outcome, str]:
    """What Level 0 alone can say about a pair. `unsure` means a judge must look."""
    if any(f.kind == "replay_error" for f in findings):
        return "error", "replay failed: " + next(f.detail for f in findings if f.kind == "replay_error")
    hard = [f for f in findings if f.severity == "hard"]
    if hard:
        return "regression", "hard fail: " + hard[0].detail
    diffs = [f for f in findings if f.severity == "diff"]
    if diffs:
        return "unsure", f"needs judging: {len(diffs)} difference(s), first: {diffs[0].detail}"
    return "same", "identical to the golden"


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
