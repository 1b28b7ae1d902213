"""The page builder: escaped, deterministic, self-contained, and the demo's changed argument highlighted."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from ratchet.config.project import Project
from ratchet.gate.models import DriftEvidence, Finding, MovedFact, Opinion
from ratchet.goldens.trace import ToolCall, Trace
from ratchet.review.collect import pending_page
from ratchet.review.models import ReviewItem, ReviewPage
from ratchet.review.page import render_page
from tests.review.conftest import CHANGED_TASK

EVIL = '<script>alert("x")</script>&\'"'


class _Classes(HTMLParser):
    """Text inside every element carrying a given class, in document order."""

    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted, self.depth, self.found, self.buffer = wanted, 0, [], ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth:
            self.depth += 1
        elif self.wanted in (dict(attrs).get("class") or "").split():
            self.depth, self.buffer = 1, ""

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1
            if not self.depth:
                self.found.append(self.buffer)

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.buffer += data


def _texts(html: str, cls: str) -> list[str]:
    parser = _Classes(cls)
    parser.feed(html)
    return parser.found


def _trace(**update: object) -> Trace:
    base = Trace(
        task_id="t-1",
        prompt=EVIL,
        seed=1,
        frozen_time="2026-01-01T00:00:00Z",
        tool_calls=[ToolCall(index=0, name="label", arguments={"label": EVIL}, effect="write")],
        final_output=f"line one\n{EVIL}\n",
    )
    return base.model_copy(update=update)


def _evil_page() -> ReviewPage:
    replay = _trace(
        tool_calls=[ToolCall(index=0, name="label", arguments={"label": "plain"}, effect="write")],
        final_output="line one\nline two\n",
    )
    item = ReviewItem(
        item_id=EVIL,
        title=EVIL,
        golden=_trace(),
        replay=replay,
        findings=[Finding(kind="args_changed", severity="diff", detail=EVIL, golden_index=0, replay_index=0)],
        opinions=[
            Opinion(
                tier="nano",
                model=EVIL,
                prompt_version="v1",
                verdict="unsure",
                confidence=0.4,
                rationale=EVIL,
                changed_elements=[EVIL],
            )
        ],
        drift=DriftEvidence(moved=[MovedFact(key=EVIL, golden_value=EVIL, replay_value=1)], note=EVIL),
        notes=[EVIL],
        text=EVIL,
        actions=["accept", "reject", "skip"],
    )
    return ReviewPage(mode="pending", title=EVIL, source=EVIL, summary=EVIL, items=[item])


def test_everything_user_written_is_escaped() -> None:
    for served in (False, True):
        html = render_page(_evil_page(), served=served)
        assert "<script>alert" not in html
        assert html.count("<script>") == 1  # the page's own script, and only it
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#x27;&quot;" in html


def test_same_page_same_bytes() -> None:
    assert render_page(_evil_page()) == render_page(_evil_page())
    assert render_page(_evil_page(), served=True) == render_page(_evil_page(), served=True)


def test_the_opinion_drift_and_output_diff_are_shown() -> None:
    html = render_page(_evil_page())
    assert _texts(html, "opinion")[0].startswith('nano<script>alert("x")</script>')
    assert _texts(html, "del") == [f"- {EVIL}"]
    assert _texts(html, "ins") == ["+ line two"]
    assert "not drift · no base replay" in _texts(html, "drift")[0]
    assert _texts(html, "changed-arg") == [f"label={json.dumps(EVIL, ensure_ascii=False)}", 'label="plain"']


def test_demo_changed_argument_is_highlighted_and_the_page_is_self_contained(changed_argument: Project) -> None:
    page = pending_page(changed_argument)
    assert [item.item_id for item in page.items] == [CHANGED_TASK]
    html = render_page(page)
    assert html == render_page(pending_page(changed_argument))
    changed = _texts(html, "changed-arg")
    assert changed[:2] == ['label="priority/normal"', 'label="priority/medium"']
    assert re.search(r"https?://", html) is None
    assert re.search(r"\b(src|href)\s*=", html) is None
    assert "default-src 'none'" in html
    assert "ratchet bless github-triage-02" in html  # a file page says how to act; only --serve has buttons
    assert "<button" not in html and "<button" in render_page(page, served=True)


def test_a_page_showing_simulated_traces_or_a_simulated_verdict_carries_the_banner() -> None:
    from ratchet import SIMULATED_CHECK_BANNER
    from ratchet.goldens.trace import Trace
    from ratchet.review.models import ReviewItem, ReviewPage
    from ratchet.review.page import render_page

    def trace(simulated: bool) -> Trace:
        return Trace(
            task_id="t-1",
            prompt="p",
            simulated=simulated,
            upstream="sim" if simulated else "live",
            seed=1,
            frozen_time="2026-10-14T16:00:00Z",
        )

    live = ReviewPage(
        mode="pending", title="t", source="s", items=[ReviewItem(item_id="t-1", title="t", replay=trace(False))]
    )
    assert SIMULATED_CHECK_BANNER not in render_page(live)
    sim = live.model_copy(update={"items": [ReviewItem(item_id="t-1", title="t", replay=trace(True))]})
    assert f'<p class="simulated">{SIMULATED_CHECK_BANNER}</p>' in render_page(sim)
    verdict = ReviewPage(mode="verdict", title="t", source="s", simulated=True)
    assert SIMULATED_CHECK_BANNER in render_page(verdict)
