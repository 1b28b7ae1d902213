"""A team's own simulated check says what SIMULATED means there; the bench's label stays the bench's.

Why: a user's check printed "pipeline smoke test; not benchmark results", the label written for
the benchmark's artifacts, which tells a team nothing about their verdict: that it came from the
offline simulator, not their models, and what to set for a live one.
"""

from __future__ import annotations

from ratchet import SIMULATED, SIMULATED_BANNER, SIMULATED_CHECK_BANNER
from ratchet.cli.gate import table_text
from ratchet.gate.models import Verdict
from ratchet.outputs.junit import render_junit
from ratchet.outputs.markdown import render_markdown
from ratchet.review.models import ReviewPage
from ratchet.review.page import render_page

BENCH_WORDS = "not benchmark results"


def _verdict(simulated: bool = True) -> Verdict:
    return Verdict(
        base="a" * 40, head="b" * 40, skills_changed=["fx"], decision="PASS", summary="s", simulated=simulated
    )


def test_the_check_label_says_where_the_answer_came_from_and_what_to_set() -> None:
    expected = (
        f"{SIMULATED} — the offline simulator answered, not your models; for a live check set "
        "upstream: live in ratchet.yaml"
    )
    assert expected == SIMULATED_CHECK_BANNER
    assert BENCH_WORDS in SIMULATED_BANNER  # the bench's artifacts keep theirs


def test_the_terminal_table_opens_with_the_check_label() -> None:
    text = table_text(_verdict())
    assert text.splitlines()[0] == SIMULATED_CHECK_BANNER
    assert BENCH_WORDS not in text
    assert SIMULATED not in table_text(_verdict(simulated=False))


def test_markdown_and_junit_carry_the_check_label() -> None:
    markdown = render_markdown(_verdict())
    assert markdown.splitlines()[2] == f"> {SIMULATED_CHECK_BANNER}"  # nothing in it Markdown would need escaped
    assert f'name="label" value="{SIMULATED_CHECK_BANNER}"' in render_junit(_verdict())
    assert BENCH_WORDS not in markdown


def test_a_review_page_carries_the_check_label() -> None:
    html = render_page(ReviewPage(mode="verdict", title="t", source="s", simulated=True))
    assert f'<p class="simulated">{SIMULATED_CHECK_BANNER}</p>' in html
    assert BENCH_WORDS not in html
