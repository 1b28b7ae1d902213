"""report.md's section on routing regressions (R5, R6) caught with and without trigger queries.

Each bench edit's verdict is the gate's decision without trigger queries (Table 2's columns). Beside it,
a bench run records what the check's trigger step decided about the edit (ratchet.bench.data.triggers:
run when the edit changes a catalog entry). The section sets three figures side by side per configuration:
without (the verdict), the trigger step alone, and with (the verdict and the trigger step combined as
`ratchet check` combines them: the worse of the two decisions). Rendered from the results alone
(results.json or summary.json); results written before the bench ran trigger queries say "not measured".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel

from ratchet.bench.data.results import BenchConfigRun, BenchResults, ScoredEdit
from ratchet.bench.report.metrics import DETECTED
from ratchet.bench.report.sections import Doc, ordered_configs, pct
from ratchet.gate.models import Decision

TITLE = "Routing regressions (R5/R6) with and without trigger queries"
TASK_PREFIX = "task:"
"""Trigger queries made from tasks.yaml have ids task:<id>; the rest come from triggers.yaml."""
_RANK: dict[Decision, int] = {"PASS": 0, "WARN": 1, "BLOCK": 2}


def combined_decision(edit: ScoredEdit) -> Decision:
    """The edit's decision with its trigger step folded in, as the check folds it: the worse of the two."""
    triggers = edit.triggers
    if triggers is None or _RANK[triggers.decision] <= _RANK[edit.verdict.decision]:
        return edit.verdict.decision
    return triggers.decision


def trigger_decision(edit: ScoredEdit) -> Decision:
    """What the trigger step alone decided; PASS when it did not run (the edit changes no catalog entry)."""
    return edit.triggers.decision if edit.triggers is not None else "PASS"


class RoutingRates(BaseModel):
    """One edit type's figures in one configuration; shares are None over no edits."""

    edits: int
    ran: int
    """Edits the trigger step ran on (they change a catalog entry)."""
    without: float | None
    alone: float | None
    with_triggers: float | None
    on_triggers_file: int
    """Edits the trigger step BLOCKed with a worse query from triggers.yaml (not a task's prompt)."""


def _share(edits: Sequence[ScoredEdit], hit: Callable[[ScoredEdit], bool]) -> float | None:
    return round(sum(hit(e) for e in edits) / len(edits), 6) if edits else None


def routing_rates(edits: Sequence[ScoredEdit], edit_type: str, *, block_only: bool) -> RoutingRates:
    """Recall (R5, R6: share of labeled regressions decided BLOCK or WARN, or BLOCK with `block_only`) or the
    false-block rate (N0: share of harmless edits decided BLOCK) without, by and with the trigger step."""
    harmless = edit_type == "N0"
    wanted = ("BLOCK",) if block_only or harmless else DETECTED
    group = [e for e in edits if e.type == edit_type and e.expected_decision == ("PASS" if harmless else "BLOCK")]
    return RoutingRates(
        edits=len(group),
        ran=sum(e.triggers is not None for e in group),
        without=_share(group, lambda e: e.verdict.decision in wanted),
        alone=_share(group, lambda e: trigger_decision(e) in wanted),
        with_triggers=_share(group, lambda e: combined_decision(e) in wanted),
        on_triggers_file=sum(
            e.triggers is not None
            and any(f.outcome == "worse" and not f.query_id.startswith(TASK_PREFIX) for f in e.triggers.flagged)
            for e in group
        ),
    )


def _cell(rates: RoutingRates) -> str:
    return f"{pct(rates.without)} / {pct(rates.alone)} / {pct(rates.with_triggers)}"


def routing_section(doc: Doc, results: BenchResults) -> None:
    """Per configuration: R5 and R6 recall and N0 false blocks without / by / with the trigger step."""
    doc.section(TITLE, "`ratchet.bench.report.triggers.routing_rates` over each edit's verdict and trigger step")
    runs = [results.runs[c] for c in ordered_configs(results) if results.runs[c].edits]
    if not any(e.triggers is not None for run in runs for e in run.edits.values()):
        doc.add(
            "Not measured: these results were written before the bench ran trigger queries; run "
            "`ratchet bench smoke` (or `ratchet bench run`) again."
        )
        return
    doc.add(_intro(list(runs[0].edits.values())), "")
    for title, block_only in (("Recall counts BLOCK or WARN", False), ("Block recall counts BLOCK only", True)):
        doc.add(
            f"{title}; each cell is without / trigger queries alone / with.",
            "",
            "| config | R5 edits | R5 | R6 edits | R6 | N0 edits | N0 false blocks |",
            "|---|---|---|---|---|---|---|",
        )
        for run in runs:
            edits = list(run.edits.values())
            r5, r6, n0 = (routing_rates(edits, t, block_only=block_only) for t in ("R5", "R6", "N0"))
            doc.add(
                f"| {run.config} | {r5.edits} | {_cell(r5)} | {r6.edits} | {_cell(r6)} | {n0.edits} | {_cell(n0)} |"
            )
        doc.add("")
    doc.add(*_notes(runs))


def _intro(edits: Sequence[ScoredEdit]) -> str:
    ran = [e.triggers for e in edits if e.triggers is not None]
    repeats = "/".join(str(r) for r in sorted({t.repeats for t in ran})) or "n/a"
    alpha = "/".join(f"{a:g}" for a in sorted({t.alpha for t in ran})) or "n/a"
    mean = f"{sum(t.queries for t in ran) / len(ran):.1f}" if ran else "n/a"
    return (
        "**Without** is the gate's decision from golden replays alone (Table 2). **Trigger queries alone** is the "
        "check's trigger step (`ratchet.gate.triggers`): for an edit that changes a catalog entry, the affected "
        "trigger queries (`bench/triggers.yaml`, and one per task of `bench/tasks.yaml`) run at base and head "
        f"through the run's agent model, {repeats} times each; a one-sided exact test per query and a stratified "
        "exact test per skill and direction (its should-fire queries, its should-not-fire ones, the canaries), "
        f"Holm-corrected together, decide at alpha {alpha} (a worse query or family BLOCKs; an unsettled or "
        "errored one WARNs). "
        "**With** folds the two as `ratchet check` does: the worse decision. "
        f"The step ran on {len(ran)} edits of the first configuration, {mean} queries each on average. Re-judging "
        "configurations make no agent call and carry the recording run's trigger step, so only the without and "
        "with columns can differ between configurations. The bench keeps an R5 or R6 edit only when a golden "
        "replay diverges at Level 0 (bench/DATASHEET.md), so recall without trigger queries is high by "
        "construction here; the trigger step's own column is the one this section adds."
    )


def _notes(runs: Sequence[BenchConfigRun]) -> list[str]:
    notes = []
    n0 = [e for run in runs for e in run.edits.values() if e.type == "N0"]
    if n0 and all(e.triggers is None for e in n0):
        notes.append(
            "No N0 edit changes a description (the cosmetic controls never touch the frontmatter), so the trigger "
            "step ran on none of them and cannot add a false block there; a cosmetic description edit is tested "
            "in tests/gate/ instead, not measured here."
        )
    if runs:
        edits = list(runs[0].edits.values())
        r5, r6 = (routing_rates(edits, t, block_only=True) for t in ("R5", "R6"))
        notes.append(
            f"`{runs[0].config}`: the trigger step BLOCKed on a worse `bench/triggers.yaml` query (a prompt no golden "
            f"replays) for {r5.on_triggers_file} of {r5.edits} R5 and {r6.on_triggers_file} of {r6.edits} R6 edits; "
            "its other BLOCKs rest on tasks' prompts and canaries only."
        )
        notes.append(_unsettled(edits))
    return [line for note in notes for line in ("", note)][1:]


def _unsettled(edits: Sequence[ScoredEdit]) -> str:
    """How many regression edits the trigger step alone only WARNed on, and how many queries moved in them: every
    moved query is tested, so the more queries an edit moves, the smaller each Holm-corrected alpha gets."""
    parts = []
    for kind in ("R5", "R6"):
        warned = [
            e.triggers
            for e in edits
            if e.type == kind
            and e.expected_decision == "BLOCK"
            and e.triggers is not None
            and e.triggers.decision == "WARN"
        ]
        moved = sorted(sum(f.outcome != "errors" for f in t.flagged) for t in warned)
        spread = f" ({moved[0]}-{moved[-1]} queries moved the wrong way in each)" if moved else ""
        parts.append(f"{len(warned)} {kind}{spread}")
    return (
        "The trigger step alone only WARNed (unsettled) on " + " and ".join(parts) + " edits of those expected to "
        "BLOCK (a move the exact tests could not settle at these repeats)."
    )
