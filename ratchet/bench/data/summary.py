"""summary.json: what report.md is rendered from, small enough to commit (docs/bench-summary.md).

results.json holds every finding, rationale and diff (19 MB for a smoke, and another 19 MB of
history per regenerated smoke). summary.json is the same BenchResults (ratchet.bench.data.results)
cut down to what the report and its metrics read: `ratchet bench report` renders the same report.md
from either, and the full file is produced on demand and not committed.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from ratchet.bench.data.models import BENCH_SCHEMA_VERSION
from ratchet.bench.data.mutation import MutationRun, MutationSkill
from ratchet.bench.data.results import (
    RESULTS_FILE,
    SUMMARY_FILE,
    BenchConfigRun,
    BenchResults,
    DiffClassifierRun,
    NoiseGolden,
    ScoredEdit,
    read_results,
)
from ratchet.bench.data.triggers import compact_triggers
from ratchet.core.errors import InputError
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, load_json_text, read_utf8
from ratchet.diff.measure import Outcome as DiffOutcome
from ratchet.gate.models import Opinion, PairOutcome, Verdict


def worked_example_ids(results: BenchResults) -> tuple[str | None, list[str]]:
    """The configuration the report's worked examples come from, and its first edit of each type."""
    run = results.runs.get("cascade") or next((r for r in results.runs.values() if r.edits), None)
    if run is None:
        return None, []
    first: dict[str, str] = {}
    for edit_id in sorted(run.edits):
        first.setdefault(run.edits[edit_id].type, edit_id)
    return run.config, list(first.values())


def _compact_opinion(opinion: Opinion) -> Opinion:
    # confidence stays: judge rates and calibration (ratchet.bench.report.labeled) read it from the summary.
    return Opinion(
        tier=opinion.tier,
        prompt_version="",
        verdict=opinion.verdict,
        confidence=opinion.confidence,
        tokens_in=opinion.tokens_in,
        tokens_out=opinion.tokens_out,
        run=opinion.run,
    )


def _compact_pair(pair: PairOutcome, *, evidence: bool) -> PairOutcome:
    """A pair as metrics read it: outcome and opinions; a worked example's also keeps its one-line evidence."""
    return PairOutcome(
        task_id=pair.task_id,
        golden_skill=None,
        selected_because=pair.selected_because,
        outcome=pair.outcome,
        decided_by=pair.decided_by if evidence else "",
        reason=pair.reason if evidence else "",
        # The swapped-order asks are left out: every reader skips them, and their tokens are in the usage.
        opinions=[_compact_opinion(o) for o in pair.opinions if not o.swapped],
        repeats=pair.repeats,
    )


def _compact_edit(edit: ScoredEdit, *, example: bool) -> ScoredEdit:
    verdict = edit.verdict
    kept = Verdict(
        base="",
        head="",
        skills_changed=[],
        decision=verdict.decision,
        summary=verdict.summary if example else "",
        simulated=verdict.simulated,
        pairs=[_compact_pair(p, evidence=example) for p in verdict.pairs],
    )
    return ScoredEdit(
        edit_id=edit.edit_id,
        type=edit.type,
        verdict=kept,
        expected_decision=edit.expected_decision,
        skill=edit.skill,
        expected_pairs=edit.expected_pairs,
        usage=edit.usage,
        diff=edit.diff if example else "",
        triggers=compact_triggers(edit.triggers),
    )


def compact_results(results: BenchResults) -> BenchResults:
    """The summary: `results` with only what report.md reads (same report, a fraction of the bytes).

    Kept per edit: type, labels, decision, per-tier usage, and per pair its outcome and each
    opinion's tier, verdict and tokens; the worked examples (worked_example_ids) keep their diff,
    pair evidence and summary. Dropped: findings, rationales, drift evidence, hints, costs per pair
    (the usage carries the money), replay paths. A summary compacts to itself.
    """
    example_config, examples = worked_example_ids(results)
    runs = {}
    for name, run in results.runs.items():
        edits = {
            edit_id: _compact_edit(edit, example=name == example_config and edit_id in examples)
            for edit_id, edit in run.edits.items()
        }
        noise = {
            task_id: NoiseGolden(
                task_id=golden.task_id,
                skill=None,
                outcomes=[_compact_pair(o, evidence=False) for o in golden.outcomes],
                decisions=golden.decisions,
                usage=golden.usage,
            )
            for task_id, golden in run.noise.items()
        }
        runs[name] = run.model_copy(update={"edits": edits, "noise": noise})
    return results.model_copy(update={"runs": runs})


def write_summary(out: Path, results: BenchResults) -> None:
    """summary.json: one edit per line, so a regenerated smoke diffs edit by edit in review."""
    atomic_write_text(out / SUMMARY_FILE, summary_text(compact_results(results)))


def summary_text(summary: BenchResults) -> str:
    """The summary's bytes: the header object, then one line per run and one per edit or noise golden.

    Fields at their defaults are left out of the edit lines (read back, they are the defaults again). The
    diff classifier's measurement, when there is one, is a line of its own and then one line per outcome;
    so is the goldens' mutation score, with one line per skill.
    """
    head = summary.model_dump(mode="json", exclude={"runs", "diff_classifier", "mutation"})
    lines = [canonical_dumps({"kind": "summary", **head}, indent=None)]
    classifier = summary.diff_classifier
    if classifier is not None:
        lines.append(
            canonical_dumps(
                {"kind": "diff_classifier", **classifier.model_dump(mode="json", exclude={"corpus", "bench"})},
                indent=None,
            )
        )
        lines += [
            canonical_dumps({"kind": "diff_outcome", "set": name, "item": outcome.model_dump(mode="json")}, indent=None)
            for name in ("corpus", "bench")
            for outcome in getattr(classifier, name)
        ]
    lines += _mutation_lines(summary.mutation)
    for name in sorted(summary.runs):
        run = summary.runs[name]
        lines.append(
            canonical_dumps({"kind": "run", **run.model_dump(mode="json", exclude={"edits", "noise"})}, indent=None)
        )
        lines += [
            canonical_dumps(
                {"kind": "edit", "config": name, "item": run.edits[k].model_dump(mode="json", exclude_defaults=True)},
                indent=None,
            )
            for k in sorted(run.edits)
        ]
        lines += [
            canonical_dumps(
                {"kind": "noise", "config": name, "item": run.noise[k].model_dump(mode="json", exclude_defaults=True)},
                indent=None,
            )
            for k in sorted(run.noise)
        ]
    return "\n".join(lines) + "\n"


def _mutation_lines(mutation: MutationRun | None) -> list[str]:
    if mutation is None:
        return []
    head = canonical_dumps({"kind": "mutation", **mutation.model_dump(mode="json", exclude={"skills"})}, indent=None)
    return [head] + [
        canonical_dumps({"kind": "mutation_skill", "item": skill.model_dump(mode="json")}, indent=None)
        for skill in mutation.skills
    ]


def read_summary(out: Path) -> BenchResults:
    """summary.json back into the BenchResults it was cut from (as compact_results left it)."""
    path = out / SUMMARY_FILE
    try:
        rows = [
            load_json_text(line, source=f"{path}:{n}", error=InputError)
            for n, line in enumerate(read_utf8(path, error=InputError).splitlines(), start=1)
        ]
        header = rows[0]
        if header.get("kind") != "summary" or header.get("schema_version") != BENCH_SCHEMA_VERSION:
            raise InputError(f"not a bench summary of schema_version {BENCH_SCHEMA_VERSION}", path=path, line=1)
        header.pop("kind")
        results = BenchResults.model_validate(header)
        for row in rows[1:]:
            kind = row.pop("kind")
            if kind == "diff_classifier":
                results.diff_classifier = DiffClassifierRun.model_validate(row)
            elif kind == "diff_outcome":
                if results.diff_classifier is None or row.get("set") not in ("corpus", "bench"):
                    raise InputError(
                        "a diff_outcome line needs a diff_classifier line before it and "
                        "a set (corpus or bench); regenerate it with ratchet bench report",
                        path=path,
                    )
                getattr(results.diff_classifier, row["set"]).append(DiffOutcome.model_validate(row["item"]))
            elif kind == "mutation":
                results.mutation = MutationRun.model_validate(row)
            elif kind == "mutation_skill":
                if results.mutation is None:
                    raise InputError(
                        "a mutation_skill line needs a mutation line before it; regenerate it with ratchet bench report",
                        path=path,
                    )
                results.mutation.skills.append(MutationSkill.model_validate(row["item"]))
            elif kind == "run":
                results.runs[row["config"]] = BenchConfigRun.model_validate(row)
            elif kind == "edit":
                edit = ScoredEdit.model_validate(row["item"])
                results.runs[row["config"]].edits[edit.edit_id] = edit
            else:
                golden = NoiseGolden.model_validate(row["item"])
                results.runs[row["config"]].noise[golden.task_id] = golden
    except (ValidationError, AttributeError, KeyError, IndexError, TypeError) as exc:
        raise InputError(
            f"not a bench summary ({type(exc).__name__}); regenerate it with ratchet bench report", path=path
        ) from None
    return results


def read_report_source(out: Path) -> BenchResults:
    """What the report renders from: results.json when the full file is there, else summary.json."""
    if not (out / RESULTS_FILE).exists() and (out / SUMMARY_FILE).exists():
        return read_summary(out)
    return read_results(out)
