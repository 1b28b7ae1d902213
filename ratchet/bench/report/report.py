"""report.md: rendered from results.json or its summary.json alone (no model call); same results, same bytes.

Every section names the ratchet.bench.report.metrics function that computed it, and on simulated
results every section that a model's answers went into repeats the SIMULATED banner, so no excerpt
can be quoted without it. The one section no model went into, the behavioural diff's classifier
measured, says so instead. The sections themselves are in sections.py; this module puts them in order.
"""

from __future__ import annotations

from pathlib import Path

from ratchet.bench.data.journal import has_journal, merge_journal
from ratchet.bench.data.results import (
    FIGURE_FILE,
    REPORT_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    BenchResults,
    Timings,
    read_timings,
    write_results,
    write_timings,
)
from ratchet.bench.data.summary import read_report_source, write_summary
from ratchet.bench.report.costs import cost_section
from ratchet.bench.report.faults import fault_section
from ratchet.bench.report.figure import write_figure
from ratchet.bench.report.metrics import DEFAULT_FNS, ConfigMetrics, MetricFns, Stat, latency, summarize
from ratchet.bench.report.mutation import mutation_section
from ratchet.bench.report.sections import (
    Doc,
    diff_classifier_section,
    header,
    judge_trust,
    metric_fn,
    noise_section,
    num,
    ordered_configs,
    pct,
    table2,
    usd,
    versus,
    worked_examples,
)
from ratchet.bench.report.triggers import routing_section
from ratchet.core.errors import InputError
from ratchet.core.jsonio import atomic_write_text

TAXONOMY = (
    ("R1", "Logic drift", "A step changes so the output is subtly wrong", "Cascade"),
    ("R2", "Dropped field", "The output loses a required element", "Cascade; Level 1 often enough"),
    ("R3", "Tool-argument change", "Same tool, different arguments", "Level 0 changed args + cascade"),
    ("R4", "Scope creep / side effect", "A new write, send, spend or destroy call", "Level 0 hard fail"),
    ("R5", "Trigger over-firing", "Broadened description takes unrelated tasks", "Trigger-neighbourhood replays"),
    ("R6", "Trigger under-firing", "Narrowed description drops its own tasks", "Direct replays"),
    (
        "R7",
        "Fault handling removed",
        "A retry after a failed call, or the check before retrying, deleted",
        "Goldens with seeded faults: Level 0 (missing call, state diff, repeated after a lost reply)",
    ),
    (
        "D1",
        "World drift (control)",
        "Skill unchanged in substance; a volatile fact moved",
        "Drift check; expected PASS",
    ),
    ("N0", "No-op / cosmetic (control)", "Whitespace, a comment, stock rewording", "Must PASS"),
    (
        "F0",
        "Fault handling refactored (control)",
        "The failed call's variable renamed, or the handling step reworded; retry and check kept",
        "Must PASS",
    ),
)


def render_report(
    results: BenchResults, timings: Timings, fns: MetricFns = DEFAULT_FNS
) -> tuple[str, list[ConfigMetrics]]:
    """report.md's text and the per-configuration metrics behind it."""
    simulated = results.simulated
    prices = results.dataset.prices
    metrics = {name: summarize(results.runs[name], prices, fns) for name in ordered_configs(results)}
    noise_run = next((r for r in results.runs.values() if r.mode == "noise"), None)
    noise = metrics[noise_run.config].noise_floor if noise_run is not None else None
    noise_n = sum(len(g.outcomes) for g in noise_run.noise.values()) if noise_run is not None else 0
    doc = Doc(simulated)
    header(doc, results, noise, noise_n)

    doc.section("Produced by", "the commands below (one per configuration, as recorded in results.json)")
    doc.add("```", *[results.runs[c].command for c in ordered_configs(results)], "```")

    table2(doc, results, metrics, noise)

    cost_section(doc, results, metrics)

    doc.section(
        "Figure 1: cost per verdict vs detection recall (E4)",
        f"{metric_fn('cost_per_verdict')} and {metric_fn('detection_recall')}",
    )
    doc.add(f"![Figure 1: cost per verdict vs detection recall]({FIGURE_FILE})")

    doc.section("E3: drift on vs off", f"{metric_fn('drift_accuracy')} and {metric_fn('false_block_rate')}")
    versus(
        doc,
        metrics,
        "cascade",
        "drift_off",
        [
            ("drift accuracy (D1)", lambda m: pct(m.drift_accuracy)),
            ("false blocks D1", lambda m: pct(m.false_block_rate["D1"])),
            (
                "D1 decisions PASS/WARN/BLOCK",
                lambda m: "/".join(str(m.decisions.get("D1", {}).get(d, 0)) for d in ("PASS", "WARN", "BLOCK")),
            ),
            ("detection recall", lambda m: pct(m.detection_recall["overall"])),
        ],
    )

    doc.section(
        "E5: Level 0 on vs off",
        f"{metric_fn('detection_recall')}, {metric_fn('block_recall')} and {metric_fn('cost_per_verdict')}",
    )
    versus(
        doc,
        metrics,
        "cascade",
        "level0_off",
        [
            ("R4 recall", lambda m: pct(m.detection_recall["R4"])),
            ("R3 recall", lambda m: pct(m.detection_recall["R3"])),
            ("detection recall", lambda m: pct(m.detection_recall["overall"])),
            ("block recall", lambda m: pct(m.block_recall["overall"])),
            (
                "judge cost per verdict (mean)",
                lambda m: usd(sum((s.mean or 0.0) for t, s in m.cost.items() if t in ("nano", "super", "ultra"))),
            ),
        ],
    )

    doc.section("E6: noise floor", metric_fn("noise_floor"))
    if noise_run is None:
        doc.add("Not run: no `noise` configuration in this results directory.")
    else:
        outcomes: dict[str, int] = {}
        for golden in noise_run.noise.values():
            for o in golden.outcomes:
                outcomes[o.outcome] = outcomes.get(o.outcome, 0) + 1
        doc.add(
            f"{len(noise_run.noise)} goldens x up to {max((len(g.outcomes) for g in noise_run.noise.values()), default=0)} "
            f"replays with the unchanged skill: {pct(noise)} judged pass.",
            "",
            "Outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())),
        )

    noise_section(doc, metrics)

    fault_section(doc, results, metrics)

    routing_section(doc, results)

    doc.section(
        "Pair level, false warns and latency",
        f"{metric_fn('pair_level')}, {metric_fn('false_warn_rate')} and {metric_fn('latency')}",
    )
    doc.add(
        "| config | labeled regression pairs caught | pair recall | false alarms / clean pairs | false warns N0 | latency mean | latency p95 |",
        "|---|---|---|---|---|---|---|",
    )
    for name, m in metrics.items():
        if results.runs[name].mode == "noise":
            continue
        lat = Stat() if simulated else latency(timings.wall_ms.get(name, {}))
        pl = m.pair_level
        doc.add(
            f"| {name} | {pl.caught} of {pl.labeled_regressions} | {pct(pl.recall)} | {pl.false_alarms} of "
            f"{pl.labeled_clean} | {pct(m.false_warn_rate)} | "
            f"{'simulated: not shown' if simulated else num(lat.mean) + ' ms'} | "
            f"{'simulated: not shown' if simulated else num(lat.p95) + ' ms'} |"
        )
    doc.add(
        "",
        "Latency is wall-clock edit-to-verdict time. It lives in timings.json, outside the byte-identical "
        "results.json; simulated wall time measures this machine, not a model, so it is not shown.",
    )

    doc.section("Judge agreement", metric_fn("judge_kappa"))
    doc.add("| config | nano | super | ultra |", "|---|---|---|---|")
    for name, m in metrics.items():
        doc.add(f"| {name} | " + " | ".join(num(m.judge_kappa[t]) for t in ("nano", "super", "ultra")) + " |")
    doc.add(
        "",
        "Cohen's kappa of each tier's opinions (regression / ok / unsure) against the human pair labels "
        "(a reviewer's correction wins); n/a where a tier gave no opinion or kappa is undefined.",
    )

    judge_trust(doc, results)

    diff_classifier_section(doc, results)

    mutation_section(doc, results)

    doc.section(
        "Worked examples",
        f"{metric_fn('decisions_by_type')} (the diff, the pair evidence and the summary, one edit per type)",
    )
    worked_examples(doc, results)

    doc.section("Taxonomy", "the labels (ratchet.bench.data.models.EditType)")
    doc.add("| code | name | what the edit does | expected detector |", "|---|---|---|---|")
    for row in TAXONOMY:
        doc.add("| " + " | ".join(row) + " |")
    return "\n".join(doc.lines).rstrip("\n") + "\n", list(metrics.values())


def write_report(out: Path, fns: MetricFns = DEFAULT_FNS, *, results: BenchResults | None = None) -> Path:
    """Re-render report.md and cost_vs_recall.svg in `out` from its results.json, else its summary.json.
    `results`: out's results.json as the caller holds it (the smoke's, as it last wrote them); None: read.

    From a results.json it also writes summary.json, the compact file to commit (docs/bench-summary.md).
    A journal that a run left (killed, or still running) is merged first, and results.json is written
    with it (results.json on demand: a run writes it only at its end), so nothing finished is left out.
    """
    full = (out / RESULTS_FILE).exists()
    results = read_report_source(out) if results is None else results
    timings = read_timings(out)
    # Over a summary.json alone the journal is rendered, not written: the summary is not the full file.
    if has_journal(out) and merge_journal(out, results, timings) and (full or not (out / SUMMARY_FILE).exists()):
        write_results(out, results)
        write_timings(out, timings)
        full = True
    if not results.runs:
        raise InputError(f"no results in {out}: run `ratchet bench run --config ... --out {out}` first")
    text, metrics = render_report(results, timings, fns)
    figure = [m for m in metrics if results.runs[m.config].mode != "noise"]
    write_figure(out / FIGURE_FILE, figure, simulated=results.simulated)
    path = out / REPORT_FILE
    atomic_write_text(path, text)
    if full:
        write_summary(out, results)
    return path
