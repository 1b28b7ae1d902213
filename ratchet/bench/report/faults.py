"""The report's fault-handling section: R7 detected with faults in the goldens, without them, and with the
state diff off (issue 30; docs/faults.md).

Three runs of the same edits: `cascade` (goldens blessed with their seeded faults), the same gate over
goldens of the same tasks re-recorded without faults (`cascade_faults_stripped`, ratchet.bench.run.stripped),
and `state_diff_off` (faults in the goldens, no final-state finding). Read from decisions alone, so
report.md renders the same from results.json and summary.json.
"""

from __future__ import annotations

from ratchet.bench.data.models import STRIPPED_SUFFIX
from ratchet.bench.data.results import BenchResults
from ratchet.bench.report.metrics import ConfigMetrics, pair_level
from ratchet.bench.report.sections import Doc, metric_fn, pct, usd

WITH_FAULTS = "cascade"
STRIPPED = WITH_FAULTS + STRIPPED_SUFFIX
STATE_DIFF_OFF = "state_diff_off"
ROWS = (
    (WITH_FAULTS, "blessed with their seeded faults"),
    (STRIPPED, "the same tasks re-recorded without faults"),
    (STATE_DIFF_OFF, "with their faults; final-state diff off"),
)
_DECISIONS = ("PASS", "WARN", "BLOCK")


def _decisions(m: ConfigMetrics, edit_type: str) -> str:
    counts = m.decisions.get(edit_type, {})
    return "/".join(str(counts.get(d, 0)) for d in _DECISIONS)


def fault_section(doc: Doc, results: BenchResults, metrics: dict[str, ConfigMetrics]) -> None:
    """R7 (fault handling removed) and its F0 controls under the three runs, then edit by edit."""
    doc.section(
        "R7: fault handling removed, with and without faults in the goldens",
        f"{metric_fn('detection_recall')}, {metric_fn('block_recall')}, {metric_fn('pair_level')} (over R7 edits) "
        f"and {metric_fn('false_block_rate')}; judging cost from each R7 edit's usage",
    )
    present = [(name, goldens) for name, goldens in ROWS if name in metrics]
    if WITH_FAULTS not in metrics or not any(e.type == "R7" for e in results.runs[WITH_FAULTS].edits.values()):
        doc.add("Not run: no R7 edit in a `cascade` run in this results directory.")
        return
    doc.add(
        "| config | goldens | R7 edits | R7 recall | R7 block recall | R7 PASS/WARN/BLOCK | R7 pairs caught | "
        "R7 judging cost (mean) | F0 edits | F0 false blocks | F0 PASS/WARN/BLOCK |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    )
    for name, goldens in present:
        m, run = metrics[name], results.runs[name]
        r7 = [e for e in run.edits.values() if e.type == "R7"]
        f0 = sum(1 for e in run.edits.values() if e.type == "F0")
        pairs = pair_level(r7)
        judging = [sum(u.usd for tier, u in e.usage.items() if tier != "agent") for e in r7]
        doc.add(
            f"| {name} | {goldens} | {len(r7)} | {pct(m.detection_recall.get('R7'))} | "
            f"{pct(m.block_recall.get('R7'))} | {_decisions(m, 'R7')} | {pairs.caught} of {pairs.labeled_regressions} | "
            f"{usd(sum(judging) / len(judging)) if judging else 'n/a'} | {f0} | {pct(m.false_block_rate.get('F0'))} | "
            f"{_decisions(m, 'F0')} |"
        )
    missing = [name for name, _ in ROWS if name not in metrics]
    if missing:
        doc.add("", "Not run here: " + ", ".join(f"`{name}`" for name in missing) + ".")
    doc.add("", "| edit | " + " | ".join(name for name, _ in present) + " |", "|---|" + "---|" * len(present))
    for edit_id in sorted(results.runs[WITH_FAULTS].edits):
        if results.runs[WITH_FAULTS].edits[edit_id].type not in ("R7", "F0"):
            continue
        cells = []
        for name, _ in present:
            edit = results.runs[name].edits.get(edit_id)
            cells.append("not run" if edit is None else f"{edit.verdict.decision} (expected {edit.expected_decision})")
        doc.add(f"| `{edit_id}` | " + " | ".join(cells) + " |")
    doc.add(
        "",
        "An R7 edit deletes a retry, or the check a skill makes before retrying, and is kept only when it manifests "
        "on goldens with faults. On goldens recorded on a world that never fails the deleted step never runs, so "
        "what the first two rows differ by is what the seeded faults in the goldens buy. The third row is the "
        "final-state diff's share: without it a deleted retry shows only as a missing call and a changed answer, and a "
        "blind retry as a repeated one, so the judges decide on less (see the judging cost). F0 controls refactor "
        "the same steps and keep them (expected PASS). The benchmark scores replays and judges only; `ratchet check` "
        "also applies the behavioural diff's static floor (docs/diff.md), so an R7 edit that removes a side-effect "
        "call (`action_removed`) is a WARN there, not a PASS, over goldens without faults: the diff sees what no "
        "replay could, and says so, but only the goldens with faults decide it.",
    )
