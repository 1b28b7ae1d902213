"""report.md's R7 section from hand-made results: with faults, stripped and state diff off side by side, edit by
edit; the same from the summary; "Not run" without R7 edits."""

from __future__ import annotations

from pathlib import Path

from ratchet import SIMULATED_BANNER
from ratchet.bench.data.results import BenchConfigRun, BenchResults, ScoredEdit, TierUsage
from ratchet.bench.data.summary import read_summary, write_summary
from ratchet.bench.report.faults import fault_section
from ratchet.bench.report.metrics import summarize
from ratchet.bench.report.sections import Doc
from ratchet.gate.models import Decision, Outcome, PairOutcome, Verdict


def _edit(eid: str, decision: Decision) -> ScoredEdit:
    kind = eid.split(".")[1]
    outcome: Outcome = "same" if decision == "PASS" else "regression"
    pair = PairOutcome(
        task_id="t1", golden_skill="s", selected_because="routed", outcome=outcome, decided_by="x", reason="r"
    )
    return ScoredEdit(
        edit_id=eid,
        type=kind,  # type: ignore[arg-type]
        skill="s",
        verdict=Verdict(base="b", head=eid, skills_changed=["s"], decision=decision, summary="", pairs=[pair]),
        expected_decision="BLOCK" if kind == "R7" else "PASS",
        expected_pairs={"t1": "regression" if kind == "R7" else "same"},
        usage={"agent": TierUsage(usd=1.0), "nano": TierUsage(usd=0.002 if decision == "BLOCK" else 0.001)},
    )


def _run(name: str, decisions: dict[str, Decision]) -> BenchConfigRun:
    edits = {eid: _edit(eid, d) for eid, d in decisions.items()}
    return BenchConfigRun(config=name, command=f"run {name}", simulated=True, edits=edits)


def _results() -> BenchResults:
    runs = {
        "cascade": _run("cascade", {"s.R7.1": "BLOCK", "s.R7.2": "BLOCK", "s.F0.1": "PASS", "s.R1.1": "BLOCK"}),
        "cascade_faults_stripped": _run(
            "cascade_faults_stripped", {"s.R7.1": "PASS", "s.R7.2": "PASS", "s.F0.1": "PASS"}
        ),
        "state_diff_off": _run(
            "state_diff_off", {"s.R7.1": "WARN", "s.R7.2": "BLOCK", "s.F0.1": "PASS", "s.R1.1": "BLOCK"}
        ),
    }
    return BenchResults(runs=runs)


def _section(results: BenchResults) -> list[str]:
    doc = Doc(simulated=True)
    metrics = {name: summarize(run, {}) for name, run in results.runs.items()}
    fault_section(doc, results, metrics)
    return doc.lines


def test_the_section_sets_the_three_runs_side_by_side() -> None:
    lines = _section(_results())
    assert f"> **{SIMULATED_BANNER}**" in lines
    assert (
        "| cascade | blessed with their seeded faults | 2 | 100.0% | 100.0% | 0/0/2 | 2 of 2 | $0.002000 | 1 | 0.0% "
        "| 1/0/0 |"
    ) in lines
    assert (
        "| cascade_faults_stripped | the same tasks re-recorded without faults | 2 | 0.0% | 0.0% | 2/0/0 | 0 of 2 "
        "| $0.001000 | 1 | 0.0% | 1/0/0 |"
    ) in lines
    assert (
        "| state_diff_off | with their faults; final-state diff off | 2 | 100.0% | 50.0% | 0/1/1 | 2 of 2 | $0.001500 "
        "| 1 | 0.0% | 1/0/0 |"
    ) in lines
    assert "| `s.R7.1` | BLOCK (expected BLOCK) | PASS (expected BLOCK) | WARN (expected BLOCK) |" in lines, (
        "edit by edit"
    )
    assert not any("s.R1.1" in line for line in lines)


def test_the_summary_renders_the_same_section(tmp_path: Path) -> None:
    results = _results()
    write_summary(tmp_path, results)
    assert _section(read_summary(tmp_path)) == _section(results)


def test_without_r7_edits_the_section_says_not_run() -> None:
    results = BenchResults(runs={"cascade": _run("cascade", {"s.R1.1": "BLOCK"})})
    assert "Not run: no R7 edit in a `cascade` run in this results directory." in _section(results)
    partial = BenchResults(runs={"cascade": _results().runs["cascade"]})
    assert "Not run here: `cascade_faults_stripped`, `state_diff_off`." in _section(partial)
