"""report.md's routing section: R5/R6 recall and N0 false blocks without, by and with the trigger step, from hand-made
results; results without trigger steps say "not measured"; the summary keeps what the section reads of each edit's
trigger step, so it renders the same section."""

from __future__ import annotations

from pathlib import Path

from ratchet import SIMULATED_BANNER
from ratchet.bench.data.results import BenchConfigRun, BenchResults, ScoredEdit
from ratchet.bench.data.summary import compact_results, read_summary, write_summary
from ratchet.bench.data.triggers import EditTriggers, TriggerFlag
from ratchet.bench.report.sections import Doc
from ratchet.bench.report.triggers import TITLE, routing_section
from ratchet.gate.models import Decision, Verdict


def _flag(query_id: str, regression: str) -> TriggerFlag:
    return TriggerFlag(
        query_id=query_id,
        skill="s",
        should_fire=regression == "R6",
        outcome="worse",
        regression=regression,  # type: ignore[arg-type]
        base_fires=0 if regression == "R5" else 5,
        base_n=5,
        head_fires=5 if regression == "R5" else 0,
        head_n=5,
        p_value=0.003968,
        adjusted_p=0.007937,
    )


def _edit(eid: str, kind: str, decision: Decision, triggers: Decision | None, query: str = "s:not:1") -> ScoredEdit:
    record = None
    if triggers is not None:
        flagged = [_flag(query, "R5" if kind == "R5" else "R6")] if triggers == "BLOCK" else []
        record = EditTriggers(decision=triggers, skills=["s"], repeats=5, alpha=0.05, queries=12, flagged=flagged)
    return ScoredEdit(
        edit_id=eid,
        type=kind,  # type: ignore[arg-type]
        skill="s",
        verdict=Verdict(base="b", head=eid, skills_changed=["s"], decision=decision, summary=""),
        expected_decision="PASS" if kind == "N0" else "BLOCK",
        triggers=record,
    )


def _results(with_triggers: bool = True) -> BenchResults:
    edits = [
        _edit("s.R5.1", "R5", "PASS", "BLOCK" if with_triggers else None),  # only the trigger query catches it
        _edit("s.R5.2", "R5", "BLOCK", "PASS" if with_triggers else None),
        _edit("s.R6.1", "R6", "WARN", "BLOCK" if with_triggers else None, query="task:s-01"),
        _edit("s.R6.2", "R6", "PASS", "WARN" if with_triggers else None),
        _edit("s.N0.1", "N0", "PASS", None),
    ]
    run = BenchConfigRun(config="cascade", command="c", simulated=True, edits={e.edit_id: e for e in edits})
    return BenchResults(runs={"cascade": run})


def _section(results: BenchResults) -> list[str]:
    doc = Doc(results.simulated)
    routing_section(doc, results)
    return doc.lines


def test_section_sets_recall_without_by_and_with_the_trigger_step() -> None:
    lines = _section(_results())
    assert lines[:4] == ["", f"## {TITLE}", "", f"> **{SIMULATED_BANNER}**"]
    detect = lines.index("Recall counts BLOCK or WARN; each cell is without / trigger queries alone / with.")
    assert (
        lines[detect + 4]
        == "| cascade | 2 | 50.0% / 50.0% / 100.0% | 2 | 50.0% / 100.0% / 100.0% | 1 | 0.0% / 0.0% / 0.0% |"
    )
    block = lines.index("Block recall counts BLOCK only; each cell is without / trigger queries alone / with.")
    assert (
        lines[block + 4]
        == "| cascade | 2 | 50.0% / 50.0% / 100.0% | 2 | 0.0% / 50.0% / 50.0% | 1 | 0.0% / 0.0% / 0.0% |"
    )
    text = "\n".join(lines)
    assert "5 times each" in text and "alpha 0.05" in text
    assert "The step ran on 4 edits of the first configuration, 12.0 queries each on average." in text
    assert "No N0 edit changes a description" in text
    # s.R5.1 is blocked on a triggers.yaml query; s.R6.1 on a task's prompt only.
    assert "for 1 of 2 R5 and 0 of 2 R6 edits" in text
    assert "The trigger step alone only WARNed (unsettled) on 0 R5 and 1 R6" in text


def test_results_without_trigger_steps_say_not_measured() -> None:
    text = "\n".join(_section(_results(with_triggers=False)))
    assert "Not measured: these results were written before the bench ran trigger queries" in text
    assert "| cascade |" not in text


def test_summary_keeps_each_edits_trigger_step(tmp_path: Path) -> None:
    results = _results()
    write_summary(tmp_path, results)
    back = read_summary(tmp_path)
    kept = back.runs["cascade"].edits["s.R5.1"].triggers
    full = results.runs["cascade"].edits["s.R5.1"].triggers
    assert kept is not None and full is not None
    assert kept.decision == full.decision == "BLOCK"
    assert [(f.query_id, f.outcome) for f in kept.flagged] == [("s:not:1", "worse")]
    assert back.runs["cascade"].edits["s.N0.1"].triggers is None
    assert _section(back) == _section(compact_results(results))
