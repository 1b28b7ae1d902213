"""`ratchet check` shows the behavioural diff first in its evidence, in every format, and exits by the static policy.

The free-form refund-reply skill (tests/data/freeform), recorded and blessed on the simulator: an
added e-mail, a reflow with an HTML comment, and `static: block` in the base's ratchet.yaml.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from ratchet import SIMULATED_CHECK_BANNER
from ratchet.cli import app
from ratchet.sim.follow import NOTHING_TO_READ
from tests.diff.skills import EMAIL, REFLOWED_WITH_COMMENT
from tests.helpers.gitrepo import commit, git

runner = CliRunner()
SKILL_MD = "skills/refund-reply/SKILL.md"
UNFOLLOWED = (
    f"the simulator could not follow skill refund-reply ({NOTHING_TO_READ}): a live upstream or a real "
    "harness is needed to check this edit"
)
EMAIL_LINE = (
    "skills/refund-reply/SKILL.md:7: adds an instruction to email finance@example.com (send) in Refund "
    "replies: 'Once the refund is approved, also email finance@example.com the order number.'"
)
EMAIL_NOTE = (
    "the edit adds an instruction to email finance@example.com (send) in skill refund-reply that no replay "
    "exercised (static: {})"
)
COSMETIC = (
    "no change in instructions: refund-reply (HTML comments, which the minimal runner does not send; "
    "whitespace and line breaks), so no golden was replayed"
)


def check(repo: Path, base: str, *extra: str) -> tuple[int, str]:
    result = runner.invoke(app, ["check", "--repo", str(repo), "--base", base, *extra])
    return result.exit_code, result.stdout


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


def test_the_table_shows_the_diff_first_and_the_summary_leads_with_it(freeform: Path) -> None:
    base = head(freeform)
    edit = commit(freeform, {SKILL_MD: EMAIL}, "also email finance")
    code, out = check(freeform, base)
    assert code == 0  # WARN exits 0
    lines = out.splitlines()
    assert lines[:5] == [
        SIMULATED_CHECK_BANNER,
        "not checked: " + UNFOLLOWED,
        f"ratchet check  {base[:10]} -> {edit[:10]}",
        "skills changed: refund-reply",
        f"diff: {EMAIL_LINE} (no replay exercised it)",
    ]
    at = next(i for i, line in enumerate(lines) if line.startswith("WARN  "))  # after the table's one `same` row
    decision = " ".join(" ".join(lines[at:]).split())  # the decision line, unwrapped
    assert decision.startswith(
        "WARN "
        + EMAIL_NOTE.format("warn")
        + "; "
        + UNFOLLOWED
        + "; 1 affected golden(s) replayed without a regression cost $"
    )


def test_static_block_in_the_base_blocks_and_exits_1(freeform: Path) -> None:
    base = commit(freeform, {"ratchet.yaml": "schema_version: 1\nupstream: sim\nstatic: block\n"}, "static: block")
    commit(freeform, {SKILL_MD: EMAIL}, "also email finance")
    code, out = check(freeform, base, "--json")
    assert code == 1
    verdict = json.loads(out)
    assert verdict["decision"] == "BLOCK"
    assert verdict["summary"].startswith(EMAIL_NOTE.format("block") + "; ")
    [skill] = verdict["diff"]
    assert [(f["kind"], f["action"], f["target"]) for f in skill["findings"]] == [
        ("action_added", "email", "finance@example.com")
    ]


def test_markdown_and_junit_carry_the_diff_first(freeform: Path, tmp_path: Path) -> None:
    base = head(freeform)
    commit(freeform, {SKILL_MD: EMAIL}, "also email finance")
    md, xml = tmp_path / "v.md", tmp_path / "v.xml"
    code, _ = check(freeform, base, "--output", f"markdown={md}", "--output", f"junit={xml}")
    assert code == 0
    blocks = md.read_text(encoding="utf-8").split("\n\n")
    assert blocks[2:4] == [
        "- **not checked:** " + UNFOLLOWED,
        "- **diff:** skills/refund-reply/SKILL.md:7: adds an instruction to email finance@example.com (send) in Refund "
        "replies: 'Once the refund is approved, also email finance@example.com the order number.' (no replay "
        "exercised it)",
    ]
    suite = ET.parse(xml).getroot()[0]
    cases = suite.findall("testcase")
    first = cases[0]
    assert (first.get("classname"), first.get("name")) == ("ratchet.diff", "skills/refund-reply/SKILL.md:7")
    failure = first.find("failure")
    assert failure is not None and failure.get("type") == "static"
    assert failure.get("message") == EMAIL_LINE.split(": ", 1)[1] + " (no replay exercised it)"


def test_a_cosmetic_edit_reads_why_in_every_format(freeform: Path, tmp_path: Path) -> None:
    base = head(freeform)
    edit = commit(freeform, {SKILL_MD: REFLOWED_WITH_COMMENT}, "reflow, and a note to self")
    md = tmp_path / "v.md"
    code, out = check(freeform, base, "--output", f"markdown={md}")
    assert code == 0
    goldens = len(list((freeform / "goldens").glob("*/*.json")))
    assert out.splitlines() == [
        SIMULATED_CHECK_BANNER,
        f"ratchet check  {base[:10]} -> {edit[:10]}",
        "skills changed: refund-reply",
        "diff: skills/refund-reply: no change in instructions (HTML comments, which the minimal runner does not send; "
        "whitespace and line breaks)",
        "PASS  " + COSMETIC,
        f"cost $0.000000 · 0 of {goldens} goldens replayed · 0.0 s",
    ]
    assert md.read_text(encoding="utf-8").startswith("✅ **Ratchet: PASS** · no change in instructions: refund-reply")


def test_a_bad_static_value_is_one_line(freeform: Path) -> None:
    base = commit(freeform, {"ratchet.yaml": "schema_version: 1\nupstream: sim\nstatic: maybe\n"}, "typo")
    commit(freeform, {SKILL_MD: EMAIL}, "also email finance")
    result = runner.invoke(app, ["check", "--repo", str(freeform), "--base", base])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: ratchet.yaml@{base[:10]}: static: ")
    assert result.stderr.count("\n") == 1
