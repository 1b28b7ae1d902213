"""A verdict's review page shows its trigger queries (ratchet.gate.triggers, docs/triggers.md): one row per query,
worst first, with what it expects, its fire counts at base and head, the exact test's p-values and its outcome."""

from __future__ import annotations

from pathlib import Path

from ratchet.config.project import load_project
from ratchet.review.collect import verdict_page
from ratchet.review.models import ReviewPage
from ratchet.review.page import render_page
from tests.helpers.trigger_checks import family_check, mixed_check, verdict_with_triggers
from tests.review.test_page import EVIL, _texts


def _page(demo_repo: Path, tmp_path: Path, **update: object) -> str:
    verdict = verdict_with_triggers().model_copy(update=update)
    path = tmp_path / "verdict.json"
    path.write_text(verdict.to_json(), encoding="utf-8")
    page = verdict_page(load_project(demo_repo), path)
    assert page.triggers == verdict.triggers
    return render_page(page)


def test_the_trigger_table_shows_every_query_worst_first(demo_repo: Path, tmp_path: Path) -> None:
    html = _page(demo_repo, tmp_path)
    assert _texts(html, "triggers-header") == [
        "trigger queries: 5 run 5 time(s) at base and head (github-triage; neighbours fx-expense-converter), "
        "alpha 0.05 Holm-corrected: 1 worse, 1 unsettled, 1 errors, 1 better, 1 same"
    ]
    assert _texts(html, "trigger-columns") == ["queryskillshouldbase firedhead firedpHolm-adjusted poutcomeregression"]
    assert _texts(html, "trigger-query") == [
        "github-triage:not:1: Summarise the release notesgithub-triagenot fire0/55/50.003970.00794worseR5",
        "github-triage:fire:3: prompt of github-triage:fire:3github-triagefire5/52/50.08330.167unsettled",
        "github-triage:fire:2: prompt of github-triage:fire:2github-triagefire5/53/3 +2 err——errors",
        "canary:not:1: prompt of canary:not:1none (canary)not fire2/50/51—better",
        "github-triage:fire:1: prompt of github-triage:fire:1github-triagefire5/55/51—same",
    ]
    assert 'data-outcome="worse"' in html


def test_a_worse_family_is_a_row_above_its_queries_naming_those_that_moved(demo_repo: Path, tmp_path: Path) -> None:
    html = _page(demo_repo, tmp_path, triggers=family_check())
    assert _texts(html, "trigger-family") == [
        "family: github-triage should-fire queries (4, 3 moved); moved: github-triage:fire:1, github-triage:fire:2, "
        "github-triage:fire:3github-triagefire20/205/206.25e-082.5e-07worseR6"
    ]
    assert html.index('class="trigger-family') < html.index('class="trigger-query')


def test_a_changed_trigger_file_is_said_and_no_triggers_no_section(demo_repo: Path, tmp_path: Path) -> None:
    check = mixed_check().model_copy(update={"file_changed": "triggers.yaml"})
    assert _texts(_page(demo_repo, tmp_path, triggers=check), "triggers-file") == [
        "the edit changes triggers.yaml: the check ran the base's trigger queries; review the change"
    ]
    html = _page(demo_repo, tmp_path, triggers=None)
    assert _texts(html, "triggers") == [] and "trigger-query" not in html


def test_every_word_of_a_query_is_escaped() -> None:
    check = mixed_check(prompt=EVIL).model_copy(update={"skills": [EVIL], "file_changed": EVIL})
    html = render_page(ReviewPage(mode="verdict", title="t", source="s", triggers=check))
    assert "<script>alert" not in html
    assert html.count("<script>") == 1  # the page's own script, and only it
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#x27;&quot;" in html
