"""The terminal table groups pairs with the same finding: one row for an added call hit by 9 tasks."""

from __future__ import annotations

import io

from rich.console import Console

from ratchet.gate.models import Verdict
from ratchet.outputs.grouping import collapse_ids, compact_ids
from ratchet.outputs.table import render_verdict
from tests.outputs.verdicts import pair, sends


def rendered(*pairs: object, width: int = 300) -> list[str]:
    verdict = Verdict.model_validate(
        {
            "base": "a" * 40,
            "head": "b" * 40,
            "skills_changed": ["fx"],
            "decision": "BLOCK",
            "summary": "9 regression(s)",
            "pairs": list(pairs),
            "goldens_total": 23,
            "simulated": False,
        }
    )
    out = io.StringIO()
    render_verdict(verdict, Console(file=out, width=width, color_system=None, highlight=False, soft_wrap=False))
    return [line.rstrip() for line in out.getvalue().splitlines()]


def test_nine_pairs_with_one_added_call_are_one_row_naming_every_task() -> None:
    lines = rendered(*sends(9), pair("fx-10", "same", reason="identical to the golden"))
    rows = [line for line in lines if "regression (level0)" in line]
    assert rows == [
        "9 tasks   regression (level0)   new side-effecting call email_send [send] (details differ per task:"
        " --format markdown shows each) · fx-01..09"
    ]
    assert lines[0] == "ratchet check  aaaaaaaaaa -> bbbbbbbbbb" and lines[-3] == "BLOCK  9 regression(s)"


def test_pairs_that_share_the_reason_show_it_and_different_outcomes_stay_apart() -> None:
    lines = rendered(
        pair("a-1", "unsure", decided_by="ultra", reason="judges unsure"),
        pair("a-2", "unsure", decided_by="ultra", reason="judges unsure"),
        pair("a-3", "regression", decided_by="ultra", reason="judges unsure"),
    )
    assert "2 tasks   unsure (ultra)       judges unsure · a-1..2" in lines
    assert "a-3       regression (ultra)   judges unsure" in lines


def test_a_single_pair_keeps_its_own_row_and_markup_in_it_is_shown_literally() -> None:
    lines = rendered(pair("fx-01", "regression", reason="new call x [send] [bold]y[/bold]"))
    assert "fx-01   regression (level0)   new call x [send] [bold]y[/bold]" in lines


def test_task_ids_fold_without_losing_one() -> None:
    assert compact_ids(["gh-07", "gh-02", "gh-03", "gh-04", "canary", "gh-10"]) == [
        "canary",
        "gh-02..04",
        "gh-07",
        "gh-10",
    ]
    assert collapse_ids(["a-1", "b-1", "c-1", "d-1", "e-1"]) == "5 tasks: a-1, b-1, c-1, d-1, …"
    assert collapse_ids(["only"]) == "only"
