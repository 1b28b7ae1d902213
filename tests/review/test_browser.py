"""The review page in a real headless Chromium (Debian's package, through Playwright's client)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ratchet.config.project import Project
from ratchet.review.actions import pending_session
from ratchet.review.collect import pending_page
from ratchet.review.page import render_page
from ratchet.review.serve import ReviewServer
from tests.review.conftest import CHANGED_TASK


def test_file_page_shows_the_changed_argument_and_screenshots(
    changed_argument: Project,
    chromium: Any,
    tmp_path: Path,
) -> None:
    out = tmp_path / "review.html"
    out.write_text(render_page(pending_page(changed_argument)), encoding="utf-8")
    page = chromium.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(out.as_uri())
    assert page.title() == "Ratchet review: pending traces"
    item = page.locator(f'section.item[data-item="{CHANGED_TASK}"]')
    changed = item.locator("tr.row-changed .changed-arg")
    assert changed.all_inner_texts()[:2] == ['label="priority/normal"', 'label="priority/medium"']
    assert item.locator("td.golden .changed-arg").first.get_attribute("data-arg") == "label"
    assert changed.first.evaluate("e => getComputedStyle(e).fontWeight") == "700"  # the CSS applied, inline
    page.locator("#hide-same").check()
    assert page.locator("tr.row-same").first.is_hidden()
    assert page.locator("tr.row-changed").first.is_visible()
    shot = tmp_path / "review.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    assert requests == [out.as_uri()]  # nothing else fetched: no CDN, no font, no image


def test_served_page_accept_click_blesses_the_golden(changed_argument: Project, chromium: Any) -> None:
    pending = changed_argument.pending_dir / f"{CHANGED_TASK}.json"
    golden = changed_argument.path("goldens") / "github-triage" / f"{CHANGED_TASK}.json"
    assert pending.is_file() and "priority/normal" in golden.read_text(encoding="utf-8")
    with ReviewServer(pending_session(changed_argument)).running() as server:
        page = chromium.new_page()
        page.goto(server.url)
        item = page.locator(f'section.item[data-item="{CHANGED_TASK}"]')
        item.locator('button[data-action="accept"]').click()
        page.wait_for_selector(f'section.item[data-item="{CHANGED_TASK}"][data-state="blessed"]')
        assert item.locator(".status").inner_text() == f"blessed into goldens/github-triage/{CHANGED_TASK}.json"
    assert not pending.exists()
    assert golden.is_file() and "priority/medium" in golden.read_text(encoding="utf-8")
