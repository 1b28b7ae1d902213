"""`ratchet bench selftest`: three scripted gates through the real metrics and report.

An oracle that reads the labels must score perfectly; a gate that passes everything must
have zero recall and zero false blocks; one that blocks everything must have full recall
and a 100% false-block rate, the row that shows why false blocks are measured at all.
If the metrics or the report break, one of the three rows stops matching and it fails.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ratchet.bench.build.labels import effective_labels
from ratchet.bench.data.dataset import BenchPaths, read_labels, read_reviews
from ratchet.bench.data.models import CONTROL_TYPES, REGRESSION_TYPES, Label
from ratchet.bench.data.results import (
    BenchConfigRun,
    BenchResults,
    DatasetInfo,
    ScoredEdit,
    TierUsage,
    read_results,
    write_results,
)
from ratchet.bench.report.metrics import DEFAULT_FNS, ConfigMetrics, MetricFns
from ratchet.bench.report.report import write_report
from ratchet.config.gate import JudgeVerdict
from ratchet.gate.models import Decision, Opinion, Outcome, PairOutcome, Verdict

Gate = Callable[[Label], tuple[Decision, dict[str, Outcome]]]


def _oracle(label: Label) -> tuple[Decision, dict[str, Outcome]]:
    return label.expected_decision, dict(label.expected_pairs)


def _pass_everything(label: Label) -> tuple[Decision, dict[str, Outcome]]:
    return "PASS", {t: "same" for t in label.expected_pairs}


def _block_everything(label: Label) -> tuple[Decision, dict[str, Outcome]]:
    return "BLOCK", {t: "regression" for t in label.expected_pairs}


GATES: dict[str, Gate] = {"oracle": _oracle, "pass_everything": _pass_everything, "block_everything": _block_everything}


def synthetic_labels() -> list[Label]:
    """Two edits of every type, for a checkout without a built dataset."""
    labels: list[Label] = []
    for kind in (*REGRESSION_TYPES, *CONTROL_TYPES):
        for n in (1, 2):
            outcome: Outcome = "regression" if kind.startswith("R") else ("drift" if kind == "D1" else "same")
            labels.append(
                Label(
                    edit_id=f"synthetic.{kind}.{n}",
                    type=kind,
                    skill="synthetic",
                    affected_goldens=[f"t{n}"],
                    expected_decision="BLOCK" if kind.startswith("R") else "PASS",
                    expected_pairs={f"t{n}": outcome, "t0": "same"},
                )
            )
    return labels


def _scored(label: Label, gate: Gate) -> ScoredEdit:
    decision, outcomes = gate(label)
    pairs = []
    for task_id, outcome in sorted(outcomes.items()):
        said: JudgeVerdict = "regression" if outcome == "regression" else "pass"
        opinions = [
            Opinion(tier=t, prompt_version="selftest", verdict=said, confidence=1.0, tokens_in=1000, tokens_out=100)
            for t in ("nano", "super", "ultra")
        ]
        pairs.append(
            PairOutcome(
                task_id=task_id,
                golden_skill=label.skill,
                selected_because="routed",
                outcome=outcome,
                decided_by="selftest",
                reason="scripted",
                opinions=opinions,
            )
        )
    verdict = Verdict(
        base="selftest",
        head=label.edit_id,
        skills_changed=[label.skill],
        decision=decision,
        summary="scripted gate",
        pairs=pairs,
    )
    usage = {
        "nano": TierUsage(
            calls=len(pairs), tokens_in=1000 * len(pairs), tokens_out=100 * len(pairs), usd=0.0001 * len(pairs)
        )
    }
    return ScoredEdit(
        edit_id=label.edit_id,
        type=label.type,
        skill=label.skill,
        verdict=verdict,
        expected_decision=label.expected_decision,
        affected_goldens=label.affected_goldens,
        expected_pairs=label.expected_pairs,
        usage=usage,
    )


def _expectations(name: str, m: ConfigMetrics, has: set[str]) -> list[str]:
    wrong: list[str] = []

    def want(what: str, got: float | None, expected: float) -> None:
        if got is None or abs(got - expected) > 1e-9:
            wrong.append(f"{name}: {what} is {got}, expected {expected}")

    recall, blocks = m.detection_recall["overall"], m.false_block_rate["controls"]
    if name == "oracle":
        want("detection recall", recall, 1.0)
        want("block recall", m.block_recall["overall"], 1.0)
        want("false-block rate", blocks, 0.0)
        if "N0" in has:
            want("false-warn rate", m.false_warn_rate, 0.0)
        if "D1" in has:
            want("drift accuracy", m.drift_accuracy, 1.0)
    elif name == "pass_everything":
        want("detection recall", recall, 0.0)
        want("false-block rate", blocks, 0.0)
    else:
        want("detection recall", recall, 1.0)
        want("false-block rate", blocks, 1.0)
    return wrong


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


@dataclass
class SelftestOutcome:
    rows: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    source: str = ""

    @property
    def passed(self) -> bool:
        return not self.failures

    def render(self) -> str:
        lines = [*self.rows]
        lines += [f"FAIL {f}" for f in self.failures]
        lines.append(f"selftest {'passed' if self.passed else 'FAILED'} on {self.source}")
        return "\n".join(lines) + "\n"


def _labels(root: Path) -> tuple[list[Label], str]:
    try:
        paths = BenchPaths.at(root)
        found = read_labels(paths.labels)
    except Exception:  # no project here: fall back to the synthetic labels
        found = None
    if found is None or not found.labels:
        return synthetic_labels(), "16 synthetic labels (no labels/labels.json)"
    labels = effective_labels(found.labels, read_reviews(paths.reviews).reviews)
    return [labels[k] for k in sorted(labels)], f"{len(labels)} label(s) in {paths.rel(paths.labels)}"


def run_selftest(root: Path, *, fns: MetricFns = DEFAULT_FNS, out: Path | None = None) -> SelftestOutcome:
    """Score the three scripted gates with `fns` and render their report (into `out`, else a temp dir)."""
    labels, source = _labels(root)
    results = BenchResults(
        dataset_digest="selftest", dataset=DatasetInfo(harness="scripted gates (selftest)", date="selftest")
    )
    for name, gate in GATES.items():
        results.runs[name] = BenchConfigRun(
            config=name,
            command=f"ratchet bench selftest ({name})",
            simulated=True,
            models={"gate": f"scripted/{name}"},
            edits={label.edit_id: _scored(label, gate) for label in labels},
        )
    outcome = SelftestOutcome(source=source)
    has: set[str] = {str(label.type) for label in labels}
    with tempfile.TemporaryDirectory(prefix="ratchet-selftest-") as tmp:
        target = out or Path(tmp)
        write_results(target, results)
        write_report(target, fns)  # the real report: it must render every section from these results
        from ratchet.bench.report.metrics import summarize

        reread = read_results(target)
        for name in GATES:
            m = summarize(reread.runs[name], reread.dataset.prices, fns)
            outcome.rows.append(
                f"{name:<17} recall {_pct(m.detection_recall['overall']):>6}  block recall {_pct(m.block_recall['overall']):>6}"
                f"  false blocks {_pct(m.false_block_rate['controls']):>6}  false warns {_pct(m.false_warn_rate):>6}"
                f"  drift acc. {_pct(m.drift_accuracy):>6}"
            )
            outcome.failures += _expectations(name, m, has)
    return outcome
