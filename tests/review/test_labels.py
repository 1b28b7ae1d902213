"""`--labels`: the bench's label queue on the page, and its buttons recording what `ratchet bench label` records."""

from __future__ import annotations

from pathlib import Path

import httpx

from ratchet.bench.build.label_review import review_queue
from ratchet.bench.data.dataset import BenchPaths, read_reviews
from ratchet.config.project import load_project
from ratchet.review.actions import labels_session
from ratchet.review.collect import labels_page
from ratchet.review.page import render_page
from ratchet.review.serve import ReviewServer


def test_label_queue_page_and_its_buttons(bench_project: Path) -> None:
    project = load_project(bench_project)
    queue = [item.label.edit_id for item in review_queue(BenchPaths(project)) if item.review is None]
    assert len(queue) >= 2
    page = labels_page(BenchPaths(project))
    assert [item.item_id for item in page.items] == queue
    html = render_page(page, served=True)
    assert '<select class="decision">' in html and f"ratchet bench label {queue[0]}" not in html
    assert f"ratchet bench label {queue[0]} --agree" in render_page(page)
    server = ReviewServer(labels_session(project, reviewer="ada"), token="t")
    with (
        server.running(),
        httpx.Client(base_url=f"http://127.0.0.1:{server.port}", headers={"X-Ratchet-Token": "t"}) as client,
    ):
        agree = client.post("/api/decide", json={"item": queue[0], "action": "accept"})
        assert agree.json() == {"ok": True, "state": "agreed", "message": f"recorded: {queue[0]} agree"}
        no_decision = client.post("/api/decide", json={"item": queue[1], "action": "reject"})
        assert no_decision.status_code == 400 and "reject needs a decision" in no_decision.json()["message"]
        override = client.post("/api/decide", json={"item": queue[1], "action": "reject", "decision": "BLOCK"})
        assert override.json()["state"] == "overridden"
        remaining = client.get("/?token=t").text
    reviews = {r.edit_id: r for r in read_reviews(BenchPaths(project).reviews).reviews}
    assert (reviews[queue[0]].verdict, reviews[queue[0]].reviewer) == ("agree", "ada")
    assert (reviews[queue[1]].verdict, reviews[queue[1]].decision) == ("disagree", "BLOCK")
    assert f'data-item="{queue[0]}"' not in remaining and f'data-item="{queue[1]}"' not in remaining
