"""A verdict as JUnit XML, the report format every CI dashboard reads (mapping in docs/outputs.md).

One <testsuite> per verdict, one <testcase> per pair (classname = the golden's skill, name = the task
id): a regression is a <failure type="regression">, an unsure or inconclusive pair a <failure type="unsure|inconclusive">, a pair
that could not be checked an <error>; same, pass and drift pass. Each warn-level note of what the
gate did not check is a testcase with <failure type="unseen">, so "not checked" is red on the
dashboard too. The goldens, noise records and tasks the edit changes come first, one testcase per
line the terminal prints (classname ratchet.evidence): a <failure type="evidence"> when it is at
least WARN, a passing case when it is a note (evidence added). Before them, what the edit changes
(the behavioural diff, ratchet.outputs.edit_diff), one testcase per line (classname ratchet.diff,
named by its location): a <failure type="static"> for a finding the static policy floors the
verdict on (no replay exercised it), a passing case otherwise. After the evidence, the trigger queries
(ratchet.gate.triggers, classname ratchet.triggers, named by query id), one testcase per query that is not
PASS, worst first: a <failure type="regression"> for a `worse` one (R5/R6, BLOCK), a <failure type="unsettled">,
an <error type="errors"> for one whose runs errored; a changed triggers file is a <failure type="evidence">.
The queries that stayed the same or got better are no testcase. Nothing is ever <skipped>: a
skipped test reads as fine, and unseen is not fine.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ratchet.core.labels import SIMULATED_CHECK_BANNER
from ratchet.gate.models import PairOutcome, Verdict
from ratchet.outputs.edit_diff import diff_lines
from ratchet.outputs.evidence import evidence_lines
from ratchet.outputs.triggers import TriggerCase, trigger_cases

NO_SKILL = "no skill"
"""The classname of a canary's pair (its golden fired no skill)."""
NOT_CHECKED = "ratchet.not-checked"
"""The classname of the testcases for what the gate could not check."""
EVIDENCE = "ratchet.evidence"
"""The classname of the testcases for the goldens, noise records and tasks the edit changes (listed first)."""
TRIGGERS = "ratchet.triggers"
"""The classname of the testcases for trigger queries that are not PASS (and a changed triggers file)."""
DIFF = "ratchet.diff"
"""The classname of the testcases for what the edit changes (the behavioural diff; listed before all others)."""
# XML 1.0 cannot carry these at all, escaped or not; a model's output may still contain them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\N{REPLACEMENT CHARACTER}", text)


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.3f}"


def pair_evidence(pair: PairOutcome) -> str:
    """The failure body: reason, findings, each tier's opinion, drift; plain text, one fact a line."""
    lines = [f"{pair.outcome} ({pair.decided_by}): {pair.reason}"]
    if pair.golden_skill != pair.replay_skill:
        lines.append(f"routing: {pair.golden_skill or NO_SKILL} -> {pair.replay_skill or NO_SKILL}")
    lines += [f"finding {f.kind} ({f.severity}): {f.detail}" for f in pair.findings]
    for opinion in pair.opinions:
        said = f"error: {opinion.error}" if opinion.error is not None else opinion.rationale
        lines.append(
            f"judge {opinion.asked_as} ({opinion.model or '?'}): {opinion.verdict or 'error'} "
            f"at {opinion.confidence:.2f}: {said}"
        )
    if pair.drift is not None:
        moved = ", ".join(f"{fact.key}{' (confirmed)' if fact.confirmed else ''}" for fact in pair.drift.moved)
        lines.append(
            f"drift: {'yes' if pair.drift.is_drift else 'no'}; moved: {moved or 'nothing'}"
            f"{'; ' + pair.drift.note if pair.drift.note else ''}"
        )
    if pair.error:
        lines.append(f"error: {pair.error}")
    if pair.hint:
        lines.append(f"next: {pair.hint}")
    return "\n".join(lines) + "\n"


def _pair_case(suite: ET.Element, pair: PairOutcome) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        {
            "classname": _xml_text(pair.golden_skill or NO_SKILL),
            "name": _xml_text(pair.task_id),
            "time": _seconds(pair.latency_ms),
        },
    )
    tag = {"regression": "failure", "unsure": "failure", "inconclusive": "failure", "error": "error"}.get(pair.outcome)
    if tag is None:
        ET.SubElement(case, "system-out").text = _xml_text(f"{pair.outcome} ({pair.decided_by}): {pair.reason}\n")
        return
    problem = ET.SubElement(case, tag, {"type": pair.outcome, "message": _xml_text(pair.reason)})
    problem.text = _xml_text(pair_evidence(pair))


def not_checked(verdict: Verdict) -> list[tuple[str, str]]:
    """(name, message) per thing the gate could not check, in the order the terminal prints them."""
    notes = [
        (f"settings changed: {path}", f"{path} changed; the edit was checked with the base's settings")
        for path in verdict.settings_changed
    ]
    notes += [
        (f"submodule changed: {path}", f"{path}: Ratchet cannot see inside a submodule")
        for path in verdict.submodules_changed
    ]
    notes += [
        (f"not checked: {note.skill} ({note.kind})", note.detail) for note in verdict.unseen if note.level == "warn"
    ]
    return notes


def _trigger_file(verdict: Verdict) -> list[str]:
    """The base's triggers file, when the edit changes it (the check ran the base's queries: at least WARN)."""
    changed = verdict.triggers.file_changed if verdict.triggers is not None else None
    return [changed] if changed else []


def _trigger_cases(suite: ET.Element, queries: list[TriggerCase], trigger_file: list[str]) -> None:
    for path in trigger_file:
        message = f"{path} changed; the edit was checked with the base's trigger queries"
        name = _xml_text(f"trigger queries changed: {path}")
        case = ET.SubElement(suite, "testcase", {"classname": TRIGGERS, "name": name, "time": "0.000"})
        ET.SubElement(case, "failure", {"type": "evidence", "message": _xml_text(message)}).text = _xml_text(
            message + "\n"
        )
    for query in queries:  # a query, or a family of them (ratchet.outputs.triggers)
        name = _xml_text(query.name)
        case = ET.SubElement(suite, "testcase", {"classname": TRIGGERS, "name": name, "time": "0.000"})
        tag, kind = {"worse": ("failure", "regression"), "unsettled": ("failure", "unsettled")}.get(
            query.query.outcome, ("error", "errors")
        )
        ET.SubElement(case, tag, {"type": kind, "message": _xml_text(query.message)}).text = _xml_text(query.body)


def render_junit(verdict: Verdict) -> str:
    """The verdict as a JUnit XML document (UTF-8 declaration, two-space indent, one final newline)."""
    notes = not_checked(verdict)
    evidence = evidence_lines(verdict)
    changes = diff_lines(verdict)
    queries = trigger_cases(verdict.triggers) if verdict.triggers is not None else []
    trigger_file = _trigger_file(verdict)
    failures = (
        sum(p.outcome in ("regression", "unsure", "inconclusive") for p in verdict.pairs)
        + len(notes)
        + sum(line.level != "note" for line in evidence)
        + sum(line.level != "note" for line in changes)
        + sum(case.query.outcome != "errors" for case in queries)
        + len(trigger_file)
    )
    errors = sum(p.outcome == "error" for p in verdict.pairs) + sum(case.query.outcome == "errors" for case in queries)
    tests = len(verdict.pairs) + len(notes) + len(evidence) + len(changes) + len(queries) + len(trigger_file)
    root = ET.Element(
        "testsuites",
        {
            "name": "ratchet",
            "tests": str(tests),
            "failures": str(failures),
            "errors": str(errors),
            "time": _seconds(verdict.wall_ms),
        },
    )
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": _xml_text(f"ratchet check {verdict.base[:10]}..{verdict.head[:10]}"),
            "tests": str(tests),
            "failures": str(failures),
            "errors": str(errors),
            "skipped": "0",
            "time": _seconds(verdict.wall_ms),
        },
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("decision", verdict.decision),
        ("summary", verdict.summary),
        ("base", verdict.base),
        ("head", verdict.head),
        ("skills_changed", ", ".join(verdict.skills_changed)),
        ("gate_config", verdict.gate_config or ""),
        ("cost_usd", f"{verdict.cost_usd:.6f}"),
        ("simulated", str(verdict.simulated).lower()),
        *((("label", SIMULATED_CHECK_BANNER),) if verdict.simulated else ()),
        *((("harness_untested", verdict.harness_untested),) if verdict.harness_untested is not None else ()),
    ):
        ET.SubElement(properties, "property", {"name": name, "value": _xml_text(value)})
    for change in changes:  # first: what the edit changes, read without a model
        case = ET.SubElement(
            suite, "testcase", {"classname": DIFF, "name": _xml_text(change.where or "diff"), "time": "0.000"}
        )
        if change.level == "note":
            ET.SubElement(case, "system-out").text = _xml_text(f"{change}\n")
        else:
            ET.SubElement(case, "failure", {"type": "static", "message": _xml_text(change.text)}).text = _xml_text(
                f"{change}\n"
            )
    for line in evidence:  # then what the edit does to what every later check compares with
        case = ET.SubElement(suite, "testcase", {"classname": EVIDENCE, "name": _xml_text(line.label), "time": "0.000"})
        if line.level == "note":
            ET.SubElement(case, "system-out").text = _xml_text(f"{line.label}: {line.text}\n")
        else:
            ET.SubElement(case, "failure", {"type": "evidence", "message": _xml_text(line.text)}).text = _xml_text(
                f"{line.label}: {line.text}\n"
            )
    _trigger_cases(suite, queries, trigger_file)  # the summary opens with them
    for pair in verdict.pairs:
        _pair_case(suite, pair)
    for name, message in notes:
        case = ET.SubElement(suite, "testcase", {"classname": NOT_CHECKED, "name": _xml_text(name), "time": "0.000"})
        ET.SubElement(case, "failure", {"type": "unseen", "message": _xml_text(message)}).text = _xml_text(
            message + "\n"
        )
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
