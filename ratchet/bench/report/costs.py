"""The cost section: judging cost apart from the replays' cost, and the cascade against Ultra alone (docs/adr/0026).

Replays are most of a run's money and are the same whichever judges run, so a judging policy is
measured on judging cost alone: the cascade's against ultra_only's, in the same results, beside
the recall it keeps. The noise run has no Ultra-alone twin; its judging cost is set against what
Ultra would have cost asking both orders of every judged replay, at the tokens each replay's
prompt had (the same estimate is shown for the smoke's cascade next to its measured ultra_only).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ratchet.bench.data.results import BenchConfigRun, BenchResults
from ratchet.bench.report.metrics import ConfigMetrics
from ratchet.bench.report.sections import Doc, pct, usd
from ratchet.gate.models import PairOutcome

JUDGES = ("nano", "super", "ultra")
REPLAYS = "agent"


def judging_usd(run: BenchConfigRun) -> float:
    """Every judge call of a run (its edits and its A/A replays), at catalog prices."""
    usages = [e.usage for e in run.edits.values()] + [g.usage for g in run.noise.values()]
    return sum(u.usd for usage in usages for tier, u in usage.items() if tier in JUDGES)


def total_usd(run: BenchConfigRun) -> float:
    usages = [e.usage for e in run.edits.values()] + [g.usage for g in run.noise.values()]
    return sum(u.usd for usage in usages for u in usage.values())


def ultra_both_orders_usd(pairs: Iterable[PairOutcome], prices: Mapping[str, Sequence[float]]) -> float:
    """What Ultra alone would cost asking both orders of every judged replay (ultra_only's policy).

    Per replay judged (a repeated pair's replays are each judged), Ultra's first-order tokens when
    it was asked, else the first tier's: the prompt is the same pair, the answer about as long.
    """
    unit = prices.get("ultra", [0.0, 0.0])
    total = 0.0
    for pair in pairs:
        by_run: dict[int, list[tuple[str, int, int]]] = {}
        for o in pair.opinions:
            if not o.swapped:
                by_run.setdefault(o.run, []).append((o.tier, o.tokens_in, o.tokens_out))
        for asked in by_run.values():
            _, tokens_in, tokens_out = next((a for a in asked if a[0] == "ultra"), asked[0])
            total += 2 * (tokens_in * unit[0] + tokens_out * unit[1])
    return total


def _pairs(run: BenchConfigRun) -> list[PairOutcome]:
    return [p for e in run.edits.values() for p in e.verdict.pairs] + [
        o for g in run.noise.values() for o in g.outcomes
    ]


def _ratio(part: float, whole: float) -> str:
    return pct(part / whole) if whole else "n/a"


def _recall_ratio(a: float | None, b: float | None) -> str:
    return pct(a / b) if a is not None and b else "n/a"


def cost_section(doc: Doc, results: BenchResults, metrics: Mapping[str, ConfigMetrics]) -> None:
    """Judging vs total cost per configuration, and the cascade's judging cost and recall against ultra_only's."""
    doc.section(
        "Judging cost and total cost",
        "`ratchet.bench.report.costs.judging_usd`, `total_usd` and `ultra_both_orders_usd` over each run's "
        "per-tier usage, with `ratchet.bench.report.metrics.detection_recall` and `block_recall`",
    )
    doc.add(
        "| config | judging cost | replays (agent) cost | total cost | judging share of total |",
        "|---|---|---|---|---|",
    )
    for name in metrics:
        run = results.runs[name]
        judging, total = judging_usd(run), total_usd(run)
        doc.add(f"| {name} | {usd(judging)} | {usd(total - judging)} | {usd(total)} | {_ratio(judging, total)} |")
    doc.add("", "Costs are summed over the run at catalog prices, whether or not the response cache served a call.")
    cascade, ultra = results.runs.get("cascade"), results.runs.get("ultra_only")
    if cascade is not None and ultra is not None and "cascade" in metrics and "ultra_only" in metrics:
        c, u = metrics["cascade"], metrics["ultra_only"]
        estimate = ultra_both_orders_usd(_pairs(cascade), results.dataset.prices)
        doc.add(
            "",
            "**cascade against ultra_only, this run:**",
            "",
            "| judging cost cascade / ultra_only | recall ratio | block recall ratio | false blocks N0 "
            "(cascade / ultra_only) | false blocks D1 (cascade / ultra_only) | cascade / Ultra-both-orders estimate |",
            "|---|---|---|---|---|---|",
            f"| {_ratio(judging_usd(cascade), judging_usd(ultra))} | "
            f"{_recall_ratio(c.detection_recall['overall'], u.detection_recall['overall'])} | "
            f"{_recall_ratio(c.block_recall['overall'], u.block_recall['overall'])} | "
            f"{pct(c.false_block_rate['N0'])} / {pct(u.false_block_rate['N0'])} | "
            f"{pct(c.false_block_rate['D1'])} / {pct(u.false_block_rate['D1'])} | "
            f"{_ratio(judging_usd(cascade), estimate)} |",
        )
    for name, m in metrics.items():
        run = results.runs[name]
        if run.mode != "noise" or m.noise is None:
            continue
        estimate = ultra_both_orders_usd(_pairs(run), results.dataset.prices)
        doc.add(
            "",
            f"**{name} (A/A replays):** judging cost {usd(judging_usd(run))} against {usd(estimate)} for Ultra "
            f"alone in both orders ({_ratio(judging_usd(run), estimate)}); A/A false BLOCK {pct(m.noise.aa_false_block)}.",
        )
    doc.add(
        "",
        "The Ultra-both-orders estimate prices Ultra's own tokens where it was asked, else the first tier's "
        "(the same pair's prompt). On the simulator the swapped order always agrees with the first (it has no "
        "position bias), so asking it less changes cost here and nothing else (docs/adr/0026).",
    )
