"""The behavioural diff on a verdict (Verdict.diff) leads the evidence in the table, Markdown, JUnit and the
review page: a finding no replay exercised is said so (and is a JUnit failure), one the replays exercised
says the pairs decide, the rest are capped with the command that lists them all."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ratchet.cli.gate import table_text
from ratchet.config.project import load_project
from ratchet.diff.models import DiffFinding, DiffKind, SkillDiff
from ratchet.gate.models import PairOutcome, Verdict
from ratchet.outputs.edit_diff import MAX_NOTES, diff_lines
from ratchet.outputs.junit import render_junit
from ratchet.outputs.markdown import render_markdown
from ratchet.review.collect import verdict_page
from tests.helpers.demo_repo import demo_project
from tests.outputs.verdicts import pair

EMAIL = DiffFinding(
    kind=DiffKind.ACTION_ADDED,
    path="skills/fx/SKILL.md",
    line=7,
    where="Steps",
    action="email",
    effect="send",
    target="finance@example.com",
    message="adds an instruction to email finance@example.com (send) in Steps: 'Email the totals.'",
)
RATE = DiffFinding(
    kind=DiffKind.CONSTANT_CHANGED,
    path="skills/fx/SKILL.md",
    line=9,
    where="Steps",
    old="0.8",
    new="0.5",
    message="changes 0.8 to 0.5 in Steps",
)


def fx_diff(*findings: DiffFinding) -> SkillDiff:
    return SkillDiff(skill="fx", folder="skills/fx", harness="minimal", status="changed", findings=list(findings))


def verdict(*pairs_: PairOutcome, diff: list[SkillDiff]) -> Verdict:
    return Verdict(
        base="a" * 40,
        head="b" * 40,
        skills_changed=["fx"],
        decision="WARN",
        summary="s",
        pairs=list(pairs_),
        diff=diff,
        simulated=False,
    )


def test_an_unexercised_floor_finding_leads_and_says_no_replay_exercised_it() -> None:
    unseen = verdict(pair("fx-01", "same"), diff=[fx_diff(RATE, EMAIL)])
    assert [(str(line), line.level) for line in diff_lines(unseen)] == [
        (
            "skills/fx/SKILL.md:7: adds an instruction to email finance@example.com (send) in Steps: 'Email the "
            "totals.' (no replay exercised it)",
            "warn",
        ),
        ("skills/fx/SKILL.md:9: changes 0.8 to 0.5 in Steps", "note"),
    ]
    table = table_text(unseen)
    assert table.startswith("ratchet check  aaaaaaaaaa -> bbbbbbbbbb\nskills changed: fx\ndiff: skills/fx/SKILL.md:7: ")
    # Right after `skills changed:`, before the pairs (the file's 120 columns wrap the long line).
    assert " ".join(table.split()).startswith(
        "ratchet check aaaaaaaaaa -> bbbbbbbbbb skills changed: fx diff: skills/fx/SKILL.md:7: adds an instruction to "
        "email finance@example.com (send) in Steps: 'Email the totals.' (no replay exercised it) diff: "
        "skills/fx/SKILL.md:9: changes 0.8 to 0.5 in Steps task "
    )


def test_a_finding_the_replays_exercised_is_listed_beside_its_pairs() -> None:
    judged = verdict(pair("fx-01", "regression", reason="added email_send"), diff=[fx_diff(EMAIL)])
    assert [(line.text, line.level) for line in diff_lines(judged)] == [
        (EMAIL.message + " (replayed: the pairs decide)", "note")
    ]
    suite = ET.fromstring(render_junit(judged))[0]
    first = suite.findall("testcase")[0]
    assert (first.get("classname"), first.get("name"), first.find("failure")) == (
        "ratchet.diff",
        "skills/fx/SKILL.md:7",
        None,
    )
    assert suite.get("failures") == "1"  # the regression alone


def test_junit_and_markdown_carry_each_line_first() -> None:
    unseen = verdict(pair("fx-01", "same"), diff=[fx_diff(EMAIL, RATE)])
    suite = ET.fromstring(render_junit(unseen))[0]
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("ratchet.diff", "skills/fx/SKILL.md:7"),
        ("ratchet.diff", "skills/fx/SKILL.md:9"),
        ("fx", "fx-01"),
    ]
    failure = cases[0].find("failure")
    assert failure is not None and failure.get("type") == "static"
    assert (suite.get("tests"), suite.get("failures")) == ("3", "1")
    markdown = render_markdown(unseen).split("\n\n")
    assert markdown[1] == (
        "- **diff:** skills/fx/SKILL.md:7: adds an instruction to email finance@example.com "
        "(send) in Steps: 'Email the totals.' (no replay exercised it)\n"
        "- **diff:** skills/fx/SKILL.md:9: changes 0.8 to 0.5 in Steps"
    )


def test_a_long_diff_is_capped_with_the_command_that_lists_it_all() -> None:
    many = [RATE.model_copy(update={"line": n}) for n in range(1, MAX_NOTES + 4)]
    lines = diff_lines(verdict(diff=[fx_diff(EMAIL, *many)]))
    assert len(lines) == 1 + MAX_NOTES + 1
    assert str(lines[-1]) == ("and 3 more change(s): ratchet diff --base aaaaaaaaaa --head bbbbbbbbbb lists every one")


def test_a_verdict_without_a_diff_renders_as_before() -> None:
    plain = verdict(pair("fx-01", "same"), diff=[])
    assert diff_lines(plain) == []
    assert '"diff"' not in plain.to_json()  # absent, so verdicts written before it keep their bytes


def test_the_review_page_shows_the_diff_before_the_pairs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = load_project(demo_project(tmp_path, monkeypatch))
    path = tmp_path / "verdict.json"
    path.write_text(verdict(pair("fx-01", "same"), diff=[fx_diff(EMAIL)]).to_json(), encoding="utf-8")
    first = verdict_page(project, path).items[0]
    assert (first.item_id, first.title) == ("diff", "What the edit changes (ratchet diff)")
    assert first.text == (
        "skills/fx/SKILL.md:7: adds an instruction to email finance@example.com (send) in Steps: "
        "'Email the totals.' (no replay exercised it)"
    )
