"""How far each judge tier can be trusted: its error rates on labeled pairs, with 95% Wilson intervals.

Per tier, over its labeled opinions (ratchet.bench.report.labeled, read from the tier's single-tier run
when there is one): TPR is the share of pairs labeled regression that the tier judged regression,
FPR the share of pairs labeled not-regression that it judged regression, and the unsure share is
over both. An unsure opinion is not a regression: it lowers TPR and leaves FPR alone, which is what
it costs (an escalation, not a catch). A tier is flagged when the interval cannot rule out a TPR
below the gate config's judge_tpr_floor or an FPR above its judge_fpr_ceiling; with no labeled
positives (or negatives) the interval is the whole of [0, 1], so an unmeasured tier is flagged too.

Model families: a judge that shares the agent's family may prefer its own family's output
(self-preference), so the table warns when they match; see model_family for the rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel, Field

from ratchet.bench.data.dataset import REVIEWS_FILE, read_labels, read_reviews
from ratchet.bench.data.models import BENCH_SCHEMA_VERSION, Label, Review
from ratchet.bench.data.results import BenchResults
from ratchet.bench.data.summary import read_report_source
from ratchet.bench.report.labeled import LabeledOpinion, labeled_opinions_by_tier, tier_sources
from ratchet.config.gate import GateConfig, resolve_gate_config
from ratchet.core.errors import InputError
from ratchet.core.labels import SIMULATED_BANNER
from ratchet.stats.intervals import wilson_interval

CONFIDENCE = 0.95
SIMULATED_PREFIX = "sim/"

# Checked in this order against the model name's tokens: a fine-tuned family comes before the base
# family it derives from (Llama-3_1-Nemotron is "nemotron": NVIDIA's post-training is what it is
# judged by), and a vendor's variants fold into one family (mixtral -> mistral).
FAMILIES: tuple[tuple[str, str], ...] = (
    ("nemotron", "nemotron"),
    ("chatgpt", "gpt"),
    ("gpt", "gpt"),
    ("claude", "claude"),
    ("gemini", "gemini"),
    ("gemma", "gemma"),
    ("codellama", "llama"),
    ("llama", "llama"),
    ("mixtral", "mistral"),
    ("mistral", "mistral"),
    ("qwen", "qwen"),
    ("deepseek", "deepseek"),
    ("phi", "phi"),
)
_OPENAI_REASONING = re.compile(r"o\d+")  # o1, o3, o4-mini: OpenAI's, so "gpt"


def model_family(model_id: str) -> str:
    """The model family of a model id: "openai/gpt-4o-mini" -> "gpt", "ollama/llama3.1:8b" -> "llama".

    Rule: drop the provider path (everything up to the last "/"), lowercase, split the name into
    tokens at anything not a letter or digit, and return the first family in FAMILIES that some token
    starts with; an OpenAI o-series token (o1, o3 ...) is "gpt". A name with no known family is its
    first token's leading letters ("acme-7b" -> "acme"); "sim/..." is "sim".
    """
    if model_id.startswith(SIMULATED_PREFIX):
        return "sim"
    tokens = [t for t in re.split(r"[^a-z0-9]+", model_id.rsplit("/", 1)[-1].lower()) if t]
    for prefix, family in FAMILIES:
        if any(token.startswith(prefix) for token in tokens):
            return family
    if any(_OPENAI_REASONING.fullmatch(token) for token in tokens):
        return "gpt"
    for token in tokens:
        letters = re.match(r"[a-z]+", token)
        if letters:
            return letters.group(0)
    return model_id.lower()


class Rate(BaseModel):
    """k of n, their share (None when n is 0) and its 95% Wilson interval ([0, 1] when n is 0)."""

    k: int
    n: int
    share: float | None
    low: float
    high: float


def rate(k: int, n: int) -> Rate:
    low, high = wilson_interval(k, n, CONFIDENCE)
    return Rate(k=k, n=n, share=round(k / n, 6) if n else None, low=round(low, 6), high=round(high, 6))


class TierRates(BaseModel):
    """One judge tier's error rates on labeled pairs."""

    tier: str
    source: str = Field(
        description="The runs the opinions were read from (its single-tier run, else cascade; "
        "then the E6 noise run), comma-separated."
    )
    model: str = Field(description="The tier's model in that run.")
    agent_model: str = Field(description="The agent's model in that run.")
    positives: int = Field(description="Labeled regression pairs the tier judged.")
    negatives: int = Field(description="Labeled same/pass/drift pairs the tier judged.")
    tpr: Rate = Field(description="Positives judged regression.")
    fpr: Rate = Field(description="Negatives judged regression.")
    unsure: Rate = Field(description="Opinions that were unsure, over all labeled pairs.")
    flagged: str | None = Field(default=None, description="Why the tier cannot be trusted as configured; None: ok.")


class JudgeRates(BaseModel):
    """Every tier's rates in one results directory, and the warnings that go with them."""

    schema_version: int = BENCH_SCHEMA_VERSION
    simulated: bool
    gate_config: str = Field(description="The gate config whose floor and ceiling flagged.")
    tpr_floor: float
    fpr_ceiling: float
    tiers: list[TierRates] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _flag(tpr: Rate, fpr: Rate, floor: float, ceiling: float) -> str | None:
    reasons = []
    if tpr.low < floor:
        reasons.append(f"TPR lower bound {_pct(tpr.low)} < floor {_pct(floor)}")
    if fpr.high > ceiling:
        reasons.append(f"FPR upper bound {_pct(fpr.high)} > ceiling {_pct(ceiling)}")
    return "; ".join(reasons) or None


def tier_rates(
    tier: str,
    opinions: Iterable[LabeledOpinion],
    *,
    source: str,
    model: str,
    agent_model: str,
    tpr_floor: float,
    fpr_ceiling: float,
) -> TierRates:
    """One tier's rates from its labeled opinions."""
    opinions = list(opinions)
    positives = [o for o in opinions if o.label_regression]
    negatives = [o for o in opinions if not o.label_regression]
    tpr = rate(sum(o.verdict == "regression" for o in positives), len(positives))
    fpr = rate(sum(o.verdict == "regression" for o in negatives), len(negatives))
    unsure = rate(sum(o.verdict == "unsure" for o in opinions), len(opinions))
    return TierRates(
        tier=tier,
        source=source,
        model=model,
        agent_model=agent_model,
        positives=len(positives),
        negatives=len(negatives),
        tpr=tpr,
        fpr=fpr,
        unsure=unsure,
        flagged=_flag(tpr, fpr, tpr_floor, fpr_ceiling),
    )


def family_warning(row: TierRates) -> str | None:
    """A warning when a (real) judge shares the agent's model family; simulated models are never warned about."""
    models = (row.model, row.agent_model)
    if not all(models) or any(m.startswith(SIMULATED_PREFIX) for m in models):
        return None
    family = model_family(row.model)
    if family != model_family(row.agent_model):
        return None
    return (
        f"{row.tier} judge {row.model} and the agent {row.agent_model} are both the {family} family: "
        "a judge may prefer its own family's output; judge with another family, or read its FPR with care"
    )


def judge_rates(
    results: BenchResults, config: GateConfig, labels: Mapping[str, Label] | None = None, reviews: Iterable[Review] = ()
) -> JudgeRates:
    """Per-tier TPR, FPR and unsure share with Wilson intervals, flags against `config`, and warnings.

    labels/reviews as ratchet.bench.report.labeled.labeled_opinions takes them (None: the labels in the results).
    """
    sources = tier_sources(results)
    rows: list[TierRates] = []
    for tier, opinions in labeled_opinions_by_tier(results, labels, reviews).items():
        run = results.runs[sources[tier][0]]  # the tier's own run: the model it names is the one measured
        used = [name for name in sources[tier] if any(o.config == name for o in opinions)]
        rows.append(
            tier_rates(
                tier,
                opinions,
                source=", ".join(used),
                model=run.models.get(tier, ""),
                agent_model=run.models.get("agent", ""),
                tpr_floor=config.judge_tpr_floor,
                fpr_ceiling=config.judge_fpr_ceiling,
            )
        )
    warnings = [w for w in (family_warning(row) for row in rows) if w is not None]
    return JudgeRates(
        simulated=results.simulated,
        gate_config=config.name,
        tpr_floor=config.judge_tpr_floor,
        fpr_ceiling=config.judge_fpr_ceiling,
        tiers=rows,
        warnings=warnings,
    )


def _interval(r: Rate) -> str:
    return f"{_pct(r.share)} [{_pct(r.low)}, {_pct(r.high)}] ({r.k}/{r.n})"


def rates_table(rates: JudgeRates) -> list[str]:
    """The per-tier table as Markdown lines (the CLI prints it, the bench report embeds it)."""
    lines = [
        "| tier | from | model | labeled pairs | TPR [95% CI] | FPR [95% CI] | unsure | flag |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rates.tiers:
        lines.append(
            f"| {row.tier} | {row.source} | {row.model or 'unknown'} | {row.positives + row.negatives} "
            f"({row.positives} regression, {row.negatives} not) | {_interval(row.tpr)} | "
            f"{_interval(row.fpr)} | {_pct(row.unsure.share)} | {row.flagged or 'ok'} |"
        )
    return lines


def render_text(rates: JudgeRates) -> str:
    """What `ratchet judges` prints: the banner when simulated, the thresholds, the table, the warnings."""
    lines = [f"{SIMULATED_BANNER}", ""] if rates.simulated else []
    lines.append(
        f"judges: TPR floor {_pct(rates.tpr_floor)}, FPR ceiling {_pct(rates.fpr_ceiling)} "
        f"(gate config {rates.gate_config}); 95% Wilson intervals"
    )
    lines += ["", *rates_table(rates)]
    if rates.warnings:
        lines += ["", *(f"warning: {w}" for w in rates.warnings)]
    return "\n".join(lines) + "\n"


def judge_rates_of_dir(results_dir: Path, *, labels_file: Path, config: str, project_root: Path) -> JudgeRates:
    """`ratchet judges`: the rates of a results directory against a labels file (its reviews.json beside it).

    InputError (one line) for a missing directory, no results, no labels file, or no labeled pair judged.
    """
    if not results_dir.is_dir():
        raise InputError(
            "no such results directory: pass --results, or run `ratchet bench smoke` first", path=results_dir
        )
    results = read_report_source(results_dir)
    if not results.runs:
        raise InputError(
            "no results.json or summary.json here: run `ratchet bench run` into it first", path=results_dir
        )
    found = read_labels(labels_file)
    if found is None:
        raise InputError("no labels file: pass --labels, or run `ratchet bench build` first", path=labels_file)
    reviews = read_reviews(labels_file.parent / Path(REVIEWS_FILE).name).reviews
    gate = resolve_gate_config(config, project_root=project_root)
    rates = judge_rates(results, gate, {label.edit_id: label for label in found.labels}, reviews)
    if not rates.tiers:
        raise InputError(
            f"no labeled pair reached a judge: no pair that {labels_file} labels has a judge opinion "
            "(Level 0 decided them all, or the runs have no judge tiers)",
            path=results_dir,
        )
    return rates
