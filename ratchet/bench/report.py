"""report.md: rendered from results.json or its summary.json alone (no model call); same results, same bytes.

Every section names the ratchet.bench.metrics function that computed it, and on simulated
results every section that a model's answers went into repeats the SIMULATED banner, so no excerpt
can be quoted without it. The one section no model went into, the behavioural diff's classifier
measured, says so instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ratchet import SIMULATED_BANNER
from ratchet.bench.figure import write_figure
from ratchet.bench.journal import has_journal, merge_journal
from ratchet.bench.judge_rates import judge_rates, rates_table
from ratchet.bench.metrics import DEFAULT_FNS, ConfigMetrics, MetricFns, Stat, latency, summarize
from ratchet.bench.models import REGRESSION_TYPES
from ratchet.bench.results import (
    FIGURE_FILE,
    REPORT_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    BenchResults,
    Timings,
    read_report_source,
    read_timings,
    worked_example_ids,
    write_results,
    write_summary,
    write_timings,
)
from ratchet.diff.measure import bench_table, corpus_table, score_bench
from ratchet.errors import InputError
from ratchet.gate.gate_config import DEFAULT_CONFIG, resolve_gate_config
from ratchet.jsonio import atomic_write_text

CONFIG_ORDER = ("cascade", "nano_only", "super_only", "ultra_only", "drift_off", "level0_off", "noise")
TAXONOMY = (
    ("R1", "Logic drift", "A step changes so the output is subtly wrong", "Cascade"),
    ("R2", "Dropped field", "The output loses a required element", "Cascade; Level 1 often enough"),
    ("R3", "Tool-argument change", "Same tool, different arguments", "Level 0 changed args + cascade"),
    ("R4", "Scope creep / side effect", "A new write, send, spend or destroy call", "Level 0 hard fail"),
    ("R5", "Trigger over-firing", "Broadened description takes unrelated tasks", "Trigger-neighbourhood replays"),
    ("R6", "Trigger under-firing", "Narrowed description drops its own tasks", "Direct replays"),
    (
        "D1",
        "World drift (control)",
        "Skill unchanged in substance; a volatile fact moved",
        "Drift check; expected PASS",
    ),
    ("N0", "No-op / cosmetic (control)", "Whitespace, a comment, stock rewording", "Must PASS"),
)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.6f}"


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _ordered(results: BenchResults) -> list[str]:
    known = [c for c in CONFIG_ORDER if c in results.runs]
    return known + sorted(c for c in results.runs if c not in CONFIG_ORDER)


class _Doc:
    def __init__(self, simulated: bool) -> None:
        self.simulated = simulated
        self.lines: list[str] = []

    def section(self, title: str, computed_by: str, *, model_free: str | None = None) -> None:
        """A section: the SIMULATED banner on simulated results, or `model_free`, the note of a section
        no model's answer went into (the banner would not be true of it)."""
        self.lines += ["", f"## {title}", ""]
        if model_free is not None:
            self.lines += [f"> {model_free}", ""]
        elif self.simulated:
            self.lines += [f"> **{SIMULATED_BANNER}**", ""]
        self.lines += [f"_Computed by {computed_by}._", ""]

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)


def _fn(name: str) -> str:
    return f"`ratchet.bench.metrics.{name}`"


def _header(doc: _Doc, results: BenchResults, noise: float | None, noise_n: int) -> None:
    info = results.dataset
    runs = [results.runs[c] for c in _ordered(results)]
    models: dict[str, str] = {}
    for run in runs:
        for tier, model in run.models.items():
            models.setdefault(tier, model)
    labels = ", ".join(f"{t} {n}" for t, n in info.label_counts.items()) or "none"
    doc.add("# SkillRegress-Bench report", "")
    if doc.simulated:
        doc.add(f"> **{SIMULATED_BANNER}**", "")
    model_cell = (
        f"**{SIMULATED_BANNER}** ({', '.join(f'{t}: {m}' for t, m in sorted(models.items()))})"
        if doc.simulated
        else ", ".join(f"{t}: `{m}`" for t, m in sorted(models.items()))
    )
    doc.add(
        "| | |",
        "|---|---|",
        f"| Harness | {info.harness} |",
        f"| Models | {model_cell} |",
        f"| Date | {info.date} (from the data) |",
        f"| Git sha | `{info.git_sha}` |",
        f"| Dataset digest | `{results.dataset_digest}` |",
        f"| Labels | `{info.labels_file}`: {labels} |",
        f"| Human reviews | {info.reviews_done} of {info.reviews_required} required done |",
        f"| E6 noise floor | {_pct(noise)} of {noise_n} unchanged-skill replays judged pass |",
    )


def _table2(doc: _Doc, results: BenchResults, metrics: dict[str, ConfigMetrics], noise: float | None) -> None:
    doc.section(
        "Table 2: detection, false blocks and cost per configuration (E1, E2, E4)",
        ", ".join(
            _fn(n)
            for n in (
                "detection_recall",
                "block_recall",
                "false_block_rate",
                "drift_accuracy",
                "cost_per_verdict",
                "all_ultra_cost",
                "noise_floor",
                "prompt_cache_share",
            )
        ),
    )
    head = [
        "config",
        "edits",
        *REGRESSION_TYPES,
        "recall",
        "block recall",
        "false blocks N0",
        "false blocks D1",
        "drift acc.",
        "cost mean",
        "cost p95",
        "all-Ultra cost",
        "noise floor",
    ]
    doc.add("| " + " | ".join(head) + " |", "|" + "---|" * len(head))
    for name, m in metrics.items():
        if results.runs[name].mode == "noise":
            continue
        link = results.runs[name].config_path

        def cell(text: str, link: str = link) -> str:
            return f"[{text}]({link})" if link else text

        cells = [
            cell(name),
            cell(str(m.edits)),
            *[cell(_pct(m.detection_recall.get(t))) for t in REGRESSION_TYPES],
            cell(_pct(m.detection_recall["overall"])),
            cell(_pct(m.block_recall["overall"])),
            cell(_pct(m.false_block_rate["N0"])),
            cell(_pct(m.false_block_rate["D1"])),
            cell(_pct(m.drift_accuracy)),
            cell(_usd(m.cost["total"].mean)),
            cell(_usd(m.cost["total"].p95)),
            cell(_usd(m.all_ultra.mean)),
            cell(_pct(noise)),
        ]
        doc.add("| " + " | ".join(cells) + " |")
    doc.add(
        "",
        "Recall counts BLOCK or WARN; block recall counts BLOCK only. Costs are per verdict at catalog "
        "prices, whether or not the response cache served a call. Read every recall against the noise floor.",
        "",
    )
    doc.add("**Prompt-cache share** (prompt tokens the provider served from its prompt cache, every edit):", "")
    for name, m in metrics.items():
        if results.runs[name].mode == "noise":
            continue
        share = m.prompt_cache_share
        if share.get("overall") is None:
            doc.add(f"- {name}: not recorded")
            continue
        tiers = ", ".join(f"{t} {_pct(v)}" for t, v in share.items() if t != "overall")
        doc.add(f"- {name}: overall {_pct(share['overall'])} ({tiers})")


def _noise_section(doc: _Doc, metrics: dict[str, ConfigMetrics]) -> None:
    """Runs gated with noise records: flip rates, A/A false BLOCKs, and what the repeats cost."""
    doc.section("Noise records, repeats and A/A checks", _fn("noise_stats"))
    noisy = {name: m.noise for name, m in metrics.items() if m.noise is not None}
    if not noisy:
        doc.add(
            "Not run: no configuration here was gated with noise records (`bench run --noise p`, or "
            "`--bless-repeats N`)."
        )
        return
    doc.add(
        "| config | sim noise | bless repeats | goldens varying | flip rate per golden (mean / p95) | pairs | "
        "repeated | replays per pair | cost per pair | A/A checks | A/A false BLOCK | A/A WARN |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    )
    for name, n in noisy.items():
        doc.add(
            f"| {name} | {n.sim_noise:g} | {n.bless_repeats} | {n.goldens_varying} of {n.goldens} | "
            f"{_pct(n.flip_rate.mean)} / {_pct(n.flip_rate.p95)} | {n.pairs} | {n.repeated} | {_num(n.replays_per_pair)} | "
            f"{_usd(n.cost_per_pair)} | {n.aa_checks or 'n/a'} | {_pct(n.aa_false_block)} | {_pct(n.aa_warn)} |"
        )
    doc.add(
        "",
        "Each golden's noise record is measured first (bless repeats of its unchanged skill). A pair that "
        "differs only where its golden is known to vary, or whose judges are unsure on a golden known to vary, "
        "is replayed again and blocks only when Fisher's exact test says it regresses more often than the "
        "golden flips; otherwise it is inconclusive (WARN). A/A checks gate unchanged skills: every BLOCK "
        "there is a false one. Compare recall with a noise-free run: `ratchet bench compare A B`.",
    )


def _versus(
    doc: _Doc,
    metrics: dict[str, ConfigMetrics],
    a: str,
    b: str,
    rows: Sequence[tuple[str, Callable[[ConfigMetrics], str]]],
) -> None:
    if a not in metrics or b not in metrics:
        doc.add(f"Not run: needs both `{a}` and `{b}` in this results directory.")
        return
    doc.add(f"| metric | {a} | {b} |", "|---|---|---|")
    for label, get in rows:
        doc.add(f"| {label} | {get(metrics[a])} | {get(metrics[b])} |")


def _worked_examples(doc: _Doc, results: BenchResults) -> None:
    config, examples = worked_example_ids(results)  # the summary keeps exactly these edits' evidence
    if config is None:
        doc.add("No edits were run.")
        return
    run = results.runs[config]
    for edit_id in examples:
        edit = run.edits[edit_id]
        v = edit.verdict
        doc.add(f"### {edit.type}: `{edit_id}` ({run.config}: {v.decision}, expected {edit.expected_decision})", "")
        diff = edit.diff.strip("\n").splitlines()
        shown = diff[:40] + ([f"... ({len(diff) - 40} more diff lines)"] if len(diff) > 40 else [])
        doc.add("```diff", *(shown or ["(no textual change)"]), "```", "")
        for pair in v.pairs:
            doc.add(
                f"- `{pair.task_id}` ({pair.selected_because}): **{pair.outcome}** by {pair.decided_by}: {pair.reason}"
            )
        doc.add("", f"Summary: {v.summary}", "")


def _judge_trust(doc: _Doc, results: BenchResults) -> None:
    rates = judge_rates(results, resolve_gate_config(DEFAULT_CONFIG))
    doc.section("Judges: how far each tier can be trusted", "`ratchet.bench.judge_rates.judge_rates`")
    if not rates.tiers:
        doc.add("No labeled pair reached a judge in these results.")
        return
    doc.add(*rates_table(rates))
    doc.add(
        "",
        "Per tier, from its single-tier run (else the cascade's) and the E6 unchanged-skill replays: TPR is "
        "the share of pairs labeled regression judged regression, FPR the share of pairs labeled same, pass or "
        "drift (or replayed unchanged) judged regression, with 95% Wilson intervals. A tier is flagged when its "
        f"TPR lower bound is below {rates.tpr_floor:.2f} or its FPR upper bound above {rates.fpr_ceiling:.2f} "
        f"(`{rates.gate_config}` gate config: judge_tpr_floor, judge_fpr_ceiling).",
    )
    if rates.warnings:
        doc.add("", *(f"- warning: {w}" for w in rates.warnings))


MODEL_FREE = (
    "No model is involved: this section scores a deterministic reader (ratchet.diff) against the "
    "benchmark edits' labels and the corpus's expected findings. It reads the same on the simulator and "
    "live, so the SIMULATED banner of the other sections does not apply to it."
)


def _diff_classifier(doc: _Doc, results: BenchResults) -> None:
    """The behavioural diff's classifier: precision and recall per kind on the labeled edits and the corpus."""
    doc.section(
        "Behavioural diff: the classifier's agreement with labels (no model)",
        "`ratchet.diff.measure.bench_table` and `ratchet.diff.measure.corpus_table`, over the outcomes "
        "`ratchet.bench.diffs.bench_diffs` recorded",
        model_free=MODEL_FREE,
    )
    measured = results.diff_classifier
    if measured is None:
        doc.add("Not measured: these results were written before bench runs recorded it; re-run a configuration.")
        return
    labels = results.dataset.labels_file
    doc.add(
        f"**The benchmark's labeled edits** ({len(measured.bench)}, `{labels}`). Each type is mapped to the kinds "
        "it should produce (`ratchet.diff.measure.BENCH_TYPE_KINDS`): a type is caught when one of them is found "
        "(recall per type); a kind is precise when it is found only on edits whose type names it; a control is a "
        "false alarm when it gets any finding (it was not proved cosmetic), or one the static policy acts on.",
        "",
    )
    doc.add(*bench_table(measured.bench).rstrip("\n").splitlines())
    n0 = score_bench(measured.bench)[2].get("N0", (0, 0, 0))
    if n0[0]:
        doc.add(
            "",
            f"N0 false-alarm rate: {n0[1]} of {n0[0]} cosmetic controls get a finding "
            f"({n0[1] / n0[0]:.2f}), {n0[2]} of {n0[0]} one the static policy acts on ({n0[2] / n0[0]:.2f}). "
            "These edits are mechanical (bench/DATASHEET.md), so the figures say the classifier reads them "
            "right, not that it would catch a subtle edit.",
        )
    doc.add("")
    if not measured.corpus_dir:
        doc.add("**The free-form corpus**: not measured (no `bench/diff-corpus` under the project root).")
        return
    analysers = ", ".join(measured.analysers) or "none installed"
    doc.add(
        f"**The free-form corpus** ({len(measured.corpus)} edits, `{measured.corpus_dir}`; script analysers: "
        f"{analysers}), each with the kinds a reviewer expects: per kind, a true positive is expected and found, "
        "a false positive found and not expected, a false negative expected and not found.",
        "",
    )
    doc.add(*corpus_table(measured.corpus).rstrip("\n").splitlines())
    misses = [o for o in measured.corpus if set(o.expected) != set(o.found)]
    if misses:
        doc.add("")
        doc.add(
            *(
                f"- {o.id}: expected {', '.join(k.value for k in o.expected) or 'no change'}; found "
                f"{', '.join(k.value for k in o.found) or 'no change'}"
                for o in misses
            )
        )


def render_report(
    results: BenchResults, timings: Timings, fns: MetricFns = DEFAULT_FNS
) -> tuple[str, list[ConfigMetrics]]:
    """report.md's text and the per-configuration metrics behind it."""
    simulated = results.simulated
    prices = results.dataset.prices
    metrics = {name: summarize(results.runs[name], prices, fns) for name in _ordered(results)}
    noise_run = next((r for r in results.runs.values() if r.mode == "noise"), None)
    noise = metrics[noise_run.config].noise_floor if noise_run is not None else None
    noise_n = sum(len(g.outcomes) for g in noise_run.noise.values()) if noise_run is not None else 0
    doc = _Doc(simulated)
    _header(doc, results, noise, noise_n)

    doc.section("Produced by", "the commands below (one per configuration, as recorded in results.json)")
    doc.add("```", *[results.runs[c].command for c in _ordered(results)], "```")

    _table2(doc, results, metrics, noise)

    doc.section(
        "Figure 1: cost per verdict vs detection recall (E4)",
        f"{_fn('cost_per_verdict')} and {_fn('detection_recall')}",
    )
    doc.add(f"![Figure 1: cost per verdict vs detection recall]({FIGURE_FILE})")

    doc.section("E3: drift on vs off", f"{_fn('drift_accuracy')} and {_fn('false_block_rate')}")
    _versus(
        doc,
        metrics,
        "cascade",
        "drift_off",
        [
            ("drift accuracy (D1)", lambda m: _pct(m.drift_accuracy)),
            ("false blocks D1", lambda m: _pct(m.false_block_rate["D1"])),
            (
                "D1 decisions PASS/WARN/BLOCK",
                lambda m: "/".join(str(m.decisions.get("D1", {}).get(d, 0)) for d in ("PASS", "WARN", "BLOCK")),
            ),
            ("detection recall", lambda m: _pct(m.detection_recall["overall"])),
        ],
    )

    doc.section(
        "E5: Level 0 on vs off", f"{_fn('detection_recall')}, {_fn('block_recall')} and {_fn('cost_per_verdict')}"
    )
    _versus(
        doc,
        metrics,
        "cascade",
        "level0_off",
        [
            ("R4 recall", lambda m: _pct(m.detection_recall["R4"])),
            ("R3 recall", lambda m: _pct(m.detection_recall["R3"])),
            ("detection recall", lambda m: _pct(m.detection_recall["overall"])),
            ("block recall", lambda m: _pct(m.block_recall["overall"])),
            (
                "judge cost per verdict (mean)",
                lambda m: _usd(sum((s.mean or 0.0) for t, s in m.cost.items() if t in ("nano", "super", "ultra"))),
            ),
        ],
    )

    doc.section("E6: noise floor", _fn("noise_floor"))
    if noise_run is None:
        doc.add("Not run: no `noise` configuration in this results directory.")
    else:
        outcomes: dict[str, int] = {}
        for golden in noise_run.noise.values():
            for o in golden.outcomes:
                outcomes[o.outcome] = outcomes.get(o.outcome, 0) + 1
        doc.add(
            f"{len(noise_run.noise)} goldens x up to {max((len(g.outcomes) for g in noise_run.noise.values()), default=0)} "
            f"replays with the unchanged skill: {_pct(noise)} judged pass.",
            "",
            "Outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())),
        )

    _noise_section(doc, metrics)

    doc.section(
        "Pair level, false warns and latency", f"{_fn('pair_level')}, {_fn('false_warn_rate')} and {_fn('latency')}"
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
            f"| {name} | {pl.caught} of {pl.labeled_regressions} | {_pct(pl.recall)} | {pl.false_alarms} of "
            f"{pl.labeled_clean} | {_pct(m.false_warn_rate)} | "
            f"{'simulated: not shown' if simulated else _num(lat.mean) + ' ms'} | "
            f"{'simulated: not shown' if simulated else _num(lat.p95) + ' ms'} |"
        )
    doc.add(
        "",
        "Latency is wall-clock edit-to-verdict time. It lives in timings.json, outside the byte-identical "
        "results.json; simulated wall time measures this machine, not a model, so it is not shown.",
    )

    doc.section("Judge agreement", _fn("judge_kappa"))
    doc.add("| config | nano | super | ultra |", "|---|---|---|---|")
    for name, m in metrics.items():
        doc.add(f"| {name} | " + " | ".join(_num(m.judge_kappa[t]) for t in ("nano", "super", "ultra")) + " |")
    doc.add(
        "",
        "Cohen's kappa of each tier's opinions (regression / ok / unsure) against the human pair labels "
        "(a reviewer's correction wins); n/a where a tier gave no opinion or kappa is undefined.",
    )

    _judge_trust(doc, results)

    _diff_classifier(doc, results)

    doc.section(
        "Worked examples",
        f"{_fn('decisions_by_type')} (the diff, the pair evidence and the summary, one edit per type)",
    )
    _worked_examples(doc, results)

    doc.section("Taxonomy", "the labels (ratchet.bench.models.EditType)")
    doc.add("| code | name | what the edit does | expected detector |", "|---|---|---|---|")
    for row in TAXONOMY:
        doc.add("| " + " | ".join(row) + " |")
    return "\n".join(doc.lines).rstrip("\n") + "\n", list(metrics.values())


def write_report(out: Path, fns: MetricFns = DEFAULT_FNS) -> Path:
    """Re-render report.md and cost_vs_recall.svg in `out` from its results.json, else its summary.json.

    From a results.json it also writes summary.json, the compact file to commit (docs/bench-summary.md).
    A journal that a run left (killed, or still running) is merged first, and results.json is written
    with it (results.json on demand: a run writes it only at its end), so nothing finished is left out.
    """
    full = (out / RESULTS_FILE).exists()
    results = read_report_source(out)
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
