"""Every format opens with the evidence the edit changes: coverage removed, re-blessed goldens, additions.

The same lines in the terminal table, the Markdown comment (right under the decision line and the
banner, after the settings) and JUnit (testcases of their own, first: a failure when the line is
at least WARN, a passing case for a note); the JSON carries them as `evidence_changed`, and leaves
the key out when there are none, so verdicts without any keep their bytes.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from junitparser import Failure, JUnitXml, TestSuite

from ratchet import SIMULATED_CHECK_BANNER
from ratchet.outputs.formats import OutputFormat, render_text
from ratchet.outputs.junit import EVIDENCE
from tests.outputs.test_schema import PUBLISHED
from tests.outputs.verdicts import mixed_verdict, pair, sends

FX = "fx"
EVIDENCE_CHANGED: dict[str, Any] = {
    "changes": [
        {"kind": "golden", "change": "removed", "task_id": "gh-07", "skill": "github-triage", "skill_changed": False},
        *(
            {"kind": "golden", "change": "changed", "task_id": f"fx-{n:02d}", "skill": FX, "skill_changed": True}
            for n in range(1, 11)
        ),
        {"kind": "task", "change": "added", "task_id": "fx-99", "skill": FX},
    ],
    "coverage_removed": [
        {"skill": "github-triage", "goldens_base": 10, "goldens_head": 9, "tasks_base": 10, "tasks_head": 10}
    ],
}
COVERAGE = "coverage removed: github-triage (goldens 10 -> 9): later edits are checked against less; review the removal"
REMOVED = "goldens removed: github-triage: gh-07"
REBLESSED = (
    "goldens re-blessed in this change: fx (skill also changed: replayed against the base's goldens): "
    "10 tasks: fx-01..10; 9 of the 9 regression(s) are on these goldens"
)
ADDED = "tasks added: fx: fx-99 (they take effect once merged)"


def verdict_with_evidence() -> Any:
    return mixed_verdict(
        pairs=[*sends(9), pair("fx-10", "same")],
        settings_changed=[],
        submodules_changed=[],
        unseen=[],
        evidence_changed=EVIDENCE_CHANGED,
        summary="9 regression(s), first fx-01",
    )


def test_the_table_opens_with_the_evidence_lines() -> None:
    from ratchet.cli.gate import table_text

    text = table_text(verdict_with_evidence())  # 120 columns: the long re-bless line wraps once
    assert text.splitlines()[:3] == [SIMULATED_CHECK_BANNER, COVERAGE, REMOVED]
    assert " ".join(text.split()).startswith(
        " ".join(" ".join([SIMULATED_CHECK_BANNER, COVERAGE, REMOVED, REBLESSED, ADDED, "ratchet check"]).split())
    )


def test_the_markdown_lists_them_right_under_the_decision_line() -> None:
    blocks = render_text(verdict_with_evidence(), OutputFormat.MARKDOWN).split("\n\n")
    assert blocks[2].splitlines() == [
        "- **coverage removed:** github-triage (goldens 10 -\\> 9): later edits are checked against less; review the "
        "removal",
        "- **goldens removed:** github-triage: gh-07",
        "- **goldens re-blessed in this change:** fx (skill also changed: replayed against the base's goldens): "
        "10 tasks: fx-01..10; 9 of the 9 regression(s) are on these goldens",
        "- **tasks added:** fx: fx-99 (they take effect once merged)",
    ]


def test_junit_has_one_testcase_per_line_first_and_a_note_passes() -> None:
    xml = JUnitXml.fromstring(render_text(verdict_with_evidence(), OutputFormat.JUNIT))
    [suite] = list(xml) if isinstance(xml, JUnitXml) else [xml]
    assert isinstance(suite, TestSuite)
    cases = list(suite)
    assert [(c.classname, c.name) for c in cases[:4]] == [
        (EVIDENCE, "coverage removed"),
        (EVIDENCE, "goldens removed"),
        (EVIDENCE, "goldens re-blessed in this change"),
        (EVIDENCE, "tasks added"),
    ]
    [coverage] = cases[0].result
    assert isinstance(coverage, Failure) and coverage.type == "evidence"
    assert coverage.message == COVERAGE.split(": ", 1)[1]
    assert cases[3].result == [] and cases[3].system_out == ADDED + "\n"
    assert (suite.tests, suite.failures) == (14, 12)  # 10 pairs, 4 lines; 9 regressions and 3 evidence failures


def test_the_json_carries_them_and_fits_the_published_schema() -> None:
    data = json.loads(verdict_with_evidence().to_json())
    assert data["evidence_changed"]["coverage_removed"] == EVIDENCE_CHANGED["coverage_removed"]
    assert data["evidence_changed"]["changes"][0] == EVIDENCE_CHANGED["changes"][0]
    jsonschema.Draft202012Validator(json.loads(PUBLISHED.read_text(encoding="utf-8"))).validate(data)


def test_a_verdict_without_evidence_changes_keeps_its_bytes() -> None:
    assert "evidence_changed" not in json.loads(mixed_verdict().to_json())
