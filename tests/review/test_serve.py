"""The review server over real HTTP on loopback: the guard, and accept doing what `ratchet bless` does."""

from __future__ import annotations

import httpx

from ratchet.config.project import Project
from ratchet.review.actions import pending_session
from ratchet.review.serve import ReviewServer
from tests.review.conftest import CHANGED_TASK


def _golden(project: Project) -> bool:
    return (project.path("goldens") / "github-triage" / f"{CHANGED_TASK}.json").is_file()


def test_page_and_posts_need_the_token_and_a_loopback_host(changed_argument: Project) -> None:
    server = ReviewServer(pending_session(changed_argument), token="t0ken")
    with server.running(), httpx.Client(base_url=f"http://127.0.0.1:{server.port}") as client:
        assert client.get("/").status_code == 401
        assert client.get("/?token=wrong").status_code == 401
        page = client.get("/?token=t0ken")
        assert page.status_code == 200 and 'data-item="github-triage-02"' in page.text
        assert "t0ken" not in page.text
        foreign = client.get("/?token=t0ken", headers={"Host": "evil.example:80"})
        assert foreign.status_code == 403
        body = {"item": CHANGED_TASK, "action": "accept"}
        assert client.post("/api/decide", json=body).status_code == 401
        assert client.post("/api/decide?token=t0ken", json=body).status_code == 401  # POSTs want the header
        assert (changed_argument.pending_dir / f"{CHANGED_TASK}.json").is_file()


def test_reject_and_skip_leave_the_pending_trace_accept_blesses_it(changed_argument: Project) -> None:
    pending = changed_argument.pending_dir / f"{CHANGED_TASK}.json"
    before = (changed_argument.path("goldens") / "github-triage" / f"{CHANGED_TASK}.json").read_bytes()
    server = ReviewServer(pending_session(changed_argument), token="t0ken")
    with (
        server.running(),
        httpx.Client(base_url=f"http://127.0.0.1:{server.port}", headers={"X-Ratchet-Token": "t0ken"}) as client,
    ):
        for action, state in (("reject", "rejected"), ("skip", "skipped")):
            answer = client.post("/api/decide", json={"item": CHANGED_TASK, "action": action})
            assert answer.status_code == 200 and answer.json()["state"] == state
            assert pending.is_file()
        bad = client.post("/api/decide", json={"item": CHANGED_TASK, "action": "explode"})
        assert bad.status_code == 400 and "unknown action" in bad.json()["message"]
        answer = client.post("/api/decide", json={"item": CHANGED_TASK, "action": "accept"})
        assert answer.json() == {
            "ok": True,
            "state": "blessed",
            "message": f"blessed into goldens/github-triage/{CHANGED_TASK}.json",
        }
        again = client.post("/api/decide", json={"item": CHANGED_TASK, "action": "accept"})
        assert again.status_code == 400 and "no pending trace for: github-triage-02" in again.json()["message"]
        assert 'data-item="github-triage-02"' not in client.get("/?token=t0ken").text  # rebuilt from disk
    assert not pending.exists() and _golden(changed_argument)
    assert (changed_argument.path("goldens") / "github-triage" / f"{CHANGED_TASK}.json").read_bytes() != before
