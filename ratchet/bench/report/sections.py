"""report.md's sections: the document, its number formats and each section a report renders.

render_report (report.py) puts them in order. Each section names the function that computed it;
on simulated results every section a model's answers went into repeats the SIMULATED banner
(Doc.section), and the behavioural diff's section, which no model went into, says so instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ratchet.bench.data.models import REGRESSION_TYPES
from ratchet.bench.data.results import BenchResults
from ratchet.bench.data.summary import worked_example_ids
from ratchet.bench.report.judge_rates import judge_rates, rates_table
from ratchet.bench.report.metrics import ConfigMetrics
from ratchet.config.gate import DEFAULT_CONFIG, resolve_gate_config
from ratchet.core.labels import SIMULATED_BANNER
from ratchet.diff.measure import bench_table, corpus_table, score_bench

CONFIG_ORDER = (
    "cascade",
    "nano_only",
    "super_only",
    "ultra_only",
    "drift_off",
    "level0_off",
    "state_diff_off",
    "cascade_faults_stripped",
    "noise",
)


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.6f}"


def num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def ordered_configs(results: BenchResults) -> list[str]:
    known = [c for c in CONFIG_ORDER if c in results.runs]
    return known + sorted(c for c in results.runs if c not in CONFIG_ORDER)


class Doc:
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


def metric_fn(name: str) -> str:
    return f"`ratchet.bench.report.metrics.{name}`"


def header(doc: Doc, results: BenchResults, noise: float | None, noise_n: int) -> None:
    info = results.dataset
    runs = [results.runs[c] for c in ordered_configs(results)]
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
        f"| E6 noise floor | {pct(noise)} of {noise_n} unchanged-skill replays judged pass |",
    )


def table2(doc: Doc, results: BenchResults, metrics: dict[str, ConfigMetrics], noise: float | None) -> None:
    doc.section(
        "Table 2: detection, false blocks and cost per configuration (E1, E2, E4)",
        ", ".join(
            metric_fn(n)
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
            *[cell(pct(m.detection_recall.get(t))) for t in REGRESSION_TYPES],
            cell(pct(m.detection_recall["overall"])),
            cell(pct(m.block_recall["overall"])),
            cell(pct(m.false_block_rate["N0"])),
            cell(pct(m.false_block_rate["D1"])),
            cell(pct(m.drift_accuracy)),
            cell(usd(m.cost["total"].mean)),
            cell(usd(m.cost["total"].p95)),
            cell(usd(m.all_ultra.mean)),
            cell(pct(noise)),
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
        tiers = ", ".join(f"{t} {pct(v)}" for t, v in share.items() if t != "overall")
        doc.add(f"- {name}: overall {pct(share['overall'])} ({tiers})")


def noise_section(doc: Doc, metrics: dict[str, ConfigMetrics]) -> None:
    """Runs gated with noise records: flip rates, A/A false BLOCKs, and what the repeats cost."""
    doc.section("Noise records, repeats and A/A checks", metric_fn("noise_stats"))
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
            f"{pct(n.flip_rate.mean)} / {pct(n.flip_rate.p95)} | {n.pairs} | {n.repeated} | {num(n.replays_per_pair)} | "
            f"{usd(n.cost_per_pair)} | {n.aa_checks or 'n/a'} | {pct(n.aa_false_block)} | {pct(n.aa_warn)} |"
        )
    doc.add(
        "",
        "Each golden's noise record is measured first (bless repeats of its unchanged skill). A pair that "
        "differs only where its golden is known to vary, or whose judges are unsure on a golden known to vary, "
        "is replayed again and blocks only when Fisher's exact test says it regresses more often than the "
        "golden flips; otherwise it is inconclusive (WARN). A/A checks gate unchanged skills: every BLOCK "
        "there is a false one. Compare recall with a noise-free run: `ratchet bench compare A B`.",
    )


def versus(
    doc: Doc,
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


def worked_examples(doc: Doc, results: BenchResults) -> None:
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


def judge_trust(doc: Doc, results: BenchResults) -> None:
    rates = judge_rates(results, resolve_gate_config(DEFAULT_CONFIG))
    doc.section("Judges: how far each tier can be trusted", "`ratchet.bench.report.judge_rates.judge_rates`")
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


def diff_classifier_section(doc: Doc, results: BenchResults) -> None:
    """The behavioural diff's classifier: precision and recall per kind on the labeled edits and the corpus."""
    doc.section(
        "Behavioural diff: the classifier's agreement with labels (no model)",
        "`ratchet.diff.measure.bench_table` and `ratchet.diff.measure.corpus_table`, over the outcomes "
        "`ratchet.bench.report.diffs.bench_diffs` recorded",
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
