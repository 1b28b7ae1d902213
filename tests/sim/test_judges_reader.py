"""The simulated judges read answers as a careful reader would: list items, field values, names and
content lines are substance; the simulated agent's stock framing, reordering and punctuation are not."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ratchet.sim.agent import FRAMING_HEADINGS, FRAMING_LEADS, NO_SKILL_NOTE
from ratchet.sim.judges import Comparison, compare

LEAD = "I followed the shopping-list skill.\n\nResult:\n"
SHOPPING = LEAD + "store: Corner Market\nitems:\n  - rye bread\n  - oat milk\n  - apples\n  - dish soap\n"


def judged(golden: str, replay: str) -> Comparison:
    return compare(
        {
            "task": "t",
            "golden_output": golden,
            "replay_output": replay,
            "level0_findings": "- [diff] final output differs",
            "trace_diff": "",
        }
    )


# --- list items --------------------------------------------------------------------------------


def test_a_bullet_removed_from_a_shopping_list_is_a_regression() -> None:
    result = judged(SHOPPING, SHOPPING.replace("  - oat milk\n", ""))
    assert result.verdict == "regression"
    assert result.changed == ("list item removed: items: oat milk",)


def test_a_bullet_added_to_a_list_is_a_regression() -> None:
    result = judged(SHOPPING, SHOPPING + "  - batteries\n")
    assert (result.verdict, result.changed) == ("regression", ("list item added: items: batteries",))


def test_an_item_moved_to_another_field_is_a_regression() -> None:
    golden = LEAD + "approved:\n  - Offsite lunch\nheld_back:\n  - Thank-you gifts\n"
    replay = LEAD + "approved:\n  - Offsite lunch\n  - Thank-you gifts\nheld_back: none\n"
    result = judged(golden, replay)
    assert result.verdict == "regression"
    assert "list item added: approved: Thank-you gifts" in result.changed
    assert "list item removed: held_back: Thank-you gifts" in result.changed


def test_reindented_repunctuated_or_reordered_items_are_not_a_change() -> None:
    replay = LEAD + "store: Corner Market\nitems:\n* Apples.\n    + dish soap\n+ rye bread,\n- oat milk\n"
    assert judged(SHOPPING, replay).verdict == "pass"
    assert judged(SHOPPING, SHOPPING.replace("store: Corner Market\n", "store:   Corner Market \n")).verdict == "same"


# --- labelled fields ---------------------------------------------------------------------------


def test_a_field_whose_words_changed_is_a_regression() -> None:
    golden = LEAD + "report: EXP-1\nstatus: approved by finance\n"
    result = judged(golden, golden.replace("approved by finance", "rejected by finance"))
    assert result.verdict == "regression"
    assert "field changed: status" in result.changed


def test_swapped_field_values_are_a_regression() -> None:
    golden = LEAD + "from: euro\nto: dollar\n"
    result = judged(golden, LEAD + "from: dollar\nto: euro\n")
    assert result.changed == ("field changed: from", "field changed: to")


def test_an_article_or_capital_in_a_value_is_wording() -> None:
    golden = LEAD + "repo: acme/widgets\nstatus: closed as duplicate\n"
    assert judged(golden, golden.replace("closed as duplicate", "Closed as a duplicate")).verdict == "pass"


# --- names ---------------------------------------------------------------------------------------


def test_a_changed_persons_name_is_a_regression() -> None:
    golden = "## Meeting booked\n\nThe review with Marta Silva is on the calendar for Friday.\n"
    result = judged(golden, golden.replace("Marta Silva", "Martin Silva"))
    assert result.verdict == "regression"
    assert "name only in the golden: Marta" in result.changed
    assert "name only in the replay: Martin" in result.changed


def test_a_changed_name_in_a_heading_is_a_regression() -> None:
    golden = "## Expense report for Dana Kim\nTotal: 1,234.50 EUR\n"
    result = judged(golden, golden.replace("Dana", "Sam"))
    assert "name only in the golden: Dana" in result.changed


def test_a_quoted_word_is_a_name() -> None:
    golden = LEAD + 'Labelled the issue `bug` and wrote "duplicate" in the note.\n'
    result = judged(golden, golden.replace('"duplicate"', '"wontfix"'))
    assert "name only in the golden: duplicate" in result.changed


def test_a_capital_that_starts_a_line_or_sentence_is_not_a_name() -> None:
    golden = "## Notes\n\nThe meeting ran long. Everyone agreed to ship.\n"
    result = judged(golden, golden.replace("Everyone", "All of us"))
    assert result.verdict == "regression"
    assert not [element for element in result.changed if element.startswith("name")], result.changed


# --- content lines -----------------------------------------------------------------------------

SUMMARY = (
    "## Weekly summary\n\n"
    "The launch moved to the second week of the quarter.\n"
    "The budget for the offsite was approved.\n"
    "Hiring for the support team continues.\n"
)


def test_a_changed_sentence_in_a_summary_is_a_regression() -> None:
    result = judged(SUMMARY, SUMMARY.replace("was approved", "was rejected"))
    assert result.verdict == "regression"
    assert result.changed == (
        "line only in the golden: The budget for the offsite was approved.",
        "line only in the replay: The budget for the offsite was rejected.",
    )


def test_a_dropped_sentence_is_a_regression() -> None:
    result = judged(SUMMARY, SUMMARY.replace("Hiring for the support team continues.\n", ""))
    assert result.changed == ("line only in the golden: Hiring for the support team continues.",)


def test_reordered_or_rewrapped_lines_are_not_a_change() -> None:
    lines = SUMMARY.splitlines()
    reordered = "\n".join([*lines[:2], lines[4], lines[2], lines[3]]) + "\n"
    assert judged(SUMMARY, reordered).verdict == "pass"
    rewrapped = SUMMARY.replace("approved.\nHiring", "approved. Hiring")
    assert judged(SUMMARY, rewrapped).verdict == "same"


def test_a_reworded_heading_is_wording() -> None:
    assert judged(SUMMARY, SUMMARY.replace("## Weekly summary", "## Summary of the week")).verdict == "pass"


# --- framing stays framing ----------------------------------------------------------------------

FIELDS = (
    "file: receipts/london.csv\nstatus: converted\nlines:\n  - 2026-09-29 | Hotel | 356.00 GBP\ntotal_usd: 453.97\n"
)


@pytest.mark.parametrize("lead", FRAMING_LEADS)
@pytest.mark.parametrize("heading", FRAMING_HEADINGS)
def test_every_stock_lead_and_heading_is_a_rewording(lead: str, heading: str) -> None:
    golden = f"I followed the fx-expense-converter skill.\n\nResult:\n{FIELDS}"
    noisy = f"{lead.format(skill='fx-expense-converter')}\n\n{heading}\n{FIELDS}"
    expected = "same" if noisy == golden else "pass"
    assert judged(golden, noisy) == judged(golden, noisy)
    assert judged(golden, noisy).verdict == expected
    assert judged(noisy, golden).verdict == expected


def test_the_no_skill_note_is_a_rewording() -> None:
    golden = (
        "No skill applies to this request, so I am answering it directly, without tools.\n\n"
        "Request: Write a haiku about autumn leaves."
    )
    result = judged(golden, f"{golden}\n\n{NO_SKILL_NOTE}")
    assert (result.verdict, result.changed) == ("pass", ("wording",))


def test_substance_under_a_noisy_framing_is_still_seen() -> None:
    golden = f"I followed the fx-expense-converter skill.\n\nResult:\n{FIELDS}"
    noisy = f"{FRAMING_LEADS[1].format(skill='fx-expense-converter')}\n\n{FRAMING_HEADINGS[1]}\n{FIELDS}"
    result = judged(golden, noisy.replace("status: converted", "status: partly converted"))
    assert result.changed == ("field changed: status",)


def test_a_huge_one_line_answer_is_read_in_linear_time() -> None:
    # 40,000 capitalised words on one line: a prefix rescan per word would take minutes.
    code = (
        "from ratchet.sim.judges import compare\n"
        "text = ' '.join(f'Word{i}' for i in range(40000))\n"
        "sections = {'golden_output': 'x ' + text, 'replay_output': 'y ' + text[::-1]}\n"
        "print(compare(sections).verdict)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert result.stdout == "regression\n", result.stderr
