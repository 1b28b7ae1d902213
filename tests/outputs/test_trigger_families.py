"""A family of trigger queries (ratchet.triggers.compare: a skill's should-fire queries read as one stratified exact
test) as the terminal, the pull-request comment and a CI report show it: a row above its queries, a case first."""

from __future__ import annotations

from rich.console import Console

from ratchet.outputs.junit import TRIGGERS, render_junit
from ratchet.outputs.markdown import render_markdown
from ratchet.outputs.table import render_verdict
from tests.helpers.trigger_checks import family_check, verdict_with_triggers
from tests.outputs.test_junit import suite_of

HEADER = (
    "trigger queries: 4 run 5 time(s) at base and head (github-triage), alpha 0.05 Holm-corrected: 3 unsettled, "
    "1 same; families of queries: 1 worse"
)
FAMILY = "family: github-triage should-fire queries (4, 3 moved)"


def test_the_family_is_a_row_above_its_queries_in_the_comment_and_the_terminal() -> None:
    verdict = verdict_with_triggers(family_check())
    lines = render_markdown(verdict).splitlines()
    at = lines.index(f"**{HEADER}**")
    assert lines[at + 4 : at + 6] == [
        f"| {FAMILY} | github-triage fires | 20/20 | 5/20 | 6.25e-08 | 2.5e-07 | worse (R6) |",
        "| github-triage:fire:1: prompt of github-triage:fire:1 | github-triage fires | 5/5 | 0/5 | 0.00397 | 0.0159 "
        "| unsettled |",
    ]
    console = Console(width=200, no_color=True, force_terminal=False, record=True)
    render_verdict(verdict, console)
    text = console.export_text()
    assert HEADER in text and f"{FAMILY}   github-triage fires   20/20   5/20   6.25e-08   2.5e-07   worse (R6)" in text
    # A query id is printed as it is: `:fire:` is no emoji code here.
    assert "github-triage:fire:1: prompt of github-triage:fire:1     github-triage fires   5/5" in text


def test_a_worse_family_is_the_first_trigger_case_a_regression_failure_naming_its_queries() -> None:
    suite = suite_of(render_junit(verdict_with_triggers(family_check())))
    cases = [c for c in suite if c.classname == TRIGGERS]
    assert [c.name for c in cases] == [FAMILY, *(f"github-triage:fire:{i}" for i in (1, 2, 3))]
    [result] = cases[0].result
    assert result.type == "regression"
    assert result.message == (
        "R6: github-triage fires: its 4 queries fired 20/20 at base -> 5/20 at head, p=6.25e-08, Holm 2.5e-07"
    )
    assert result.text is not None and result.text.splitlines() == [
        "worse (R6): github-triage fires on its 4 queries: github-triage:fire:1, github-triage:fire:2, "
        "github-triage:fire:3, github-triage:fire:4",
        "moved the wrong way: github-triage:fire:1, github-triage:fire:2, github-triage:fire:3",
        "fired at base 20/20, at head 5/20 (summed over the queries, 5 run(s) each)",
        "stratified exact p 6.25e-08, Holm-adjusted 2.5e-07, alpha 0.05",
    ]
    assert suite.tests == 4 and suite.failures == 4 and suite.errors == 0
