"""The review pages show what a check would warn about, before anyone blesses or trusts it.

Why: a pending trace of a skill the simulator could not follow is empty (no call, no output the
skill asks for), and the review page said nothing: a reviewer could bless empty goldens that every
later check then calls `same`. The warnings are ratchet.gate.unseen's own, worded as a check words them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.bless.record import record_tasks
from ratchet.cli import app
from ratchet.config.project import Project, load_project
from ratchet.gate.models import Unseen, Verdict
from ratchet.goldens.trace import read_trace, write_trace
from ratchet.review.collect import pending_page, verdict_page
from ratchet.review.page import render_page
from ratchet.sim.follow import NOTHING_TO_READ
from tests.helpers.demo_repo import demo_project
from tests.outputs.verdicts import pair
from tests.review.test_page import _texts

FREE_FORM = """\
---
name: release-notes
description: Draft release notes from merged pull requests for a tagged release.
---
# Release notes

Write release notes the way the team likes them.

## Steps
1. Read the merged pull requests since the last tag.
2. Group them into features, fixes and chores.
"""

TASK = """\
- id: release-notes-01
  skill: release-notes
  prompt: Draft the release notes for the merged pull requests of the tagged release.
"""

UNFOLLOWED = (
    f"the simulator could not follow skill release-notes ({NOTHING_TO_READ}): "
    "a live upstream or a real harness is needed to check this edit"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The packaged demo project plus a free-form skill the simulator cannot follow, and its task."""
    root = demo_project(tmp_path, monkeypatch)
    (root / "skills" / "release-notes").mkdir()
    (root / "skills" / "release-notes" / "SKILL.md").write_text(FREE_FORM, encoding="utf-8")
    with (root / "tasks.yaml").open("a", encoding="utf-8") as tasks:
        tasks.write(TASK)
    return load_project(root)


def test_an_unfollowed_skill_is_warned_on_the_page_and_on_its_trace(project: Project) -> None:
    assert record_tasks(project, ["release-notes-01", "github-triage-01"], allow_unfollowed=True).errors == []
    page = pending_page(project)
    warning = Unseen(kind="unfollowed", skill="release-notes", level="warn", detail=UNFOLLOWED)
    assert page.unseen == [warning]
    by_id = {item.item_id: item for item in page.items}
    assert by_id["release-notes-01"].unseen == [warning]
    assert by_id["github-triage-01"].unseen == []
    html = render_page(page)
    # Prominent: above the first trace, once for the page and once on the trace it concerns.
    assert html.index('class="unseen"') < html.index('<section class="item"')
    assert _texts(html, "unseen-warn") == [f"warning: {UNFOLLOWED}"] * 2
    assert "a check of an edit to these skills would warn" in _texts(html, "unseen")[0]


def test_a_followable_trace_gets_no_warning(project: Project) -> None:
    assert record_tasks(project, ["github-triage-01"]).errors == []
    page = pending_page(project)
    assert page.unseen == [] and page.items[0].unseen == []
    assert 'class="unseen' not in render_page(page)


def test_a_trace_that_fired_no_skill_is_warned_as_a_check_would(project: Project) -> None:
    assert record_tasks(project, ["github-triage-01"]).errors == []
    path = project.pending_dir / "github-triage-01.json"
    write_trace(path, read_trace(path).model_copy(update={"skills_fired": []}))
    assert [(u.kind, u.skill, u.detail) for u in pending_page(project).unseen] == [
        (
            "unrouted",
            "github-triage",
            "task github-triage-01 is github-triage's, but its golden fired no skill: "
            "it was never replayed under the edited skill",
        ),
        (
            "unrouted",
            "github-triage",
            "no golden exercises skill github-triage: record and bless a task for it (ratchet record, ratchet bless)",
        ),
    ]


def _verdict_file(project: Project, tmp_path: Path, **update: object) -> Path:
    verdict = Verdict(
        base="a" * 40, head="b" * 40, skills_changed=["github-triage"], decision="WARN", summary="s", **update
    )  # type: ignore[arg-type]
    path = tmp_path / "verdict.json"
    path.write_text(verdict.to_json(), encoding="utf-8")
    return path


def test_a_verdict_page_shows_the_verdicts_own_unseen_warnings(project: Project, tmp_path: Path) -> None:
    warning = Unseen(kind="unfollowed", skill="release-notes", level="warn", detail=UNFOLLOWED)
    page = verdict_page(project, _verdict_file(project, tmp_path, unseen=[warning]))
    assert page.unseen == [warning]
    assert _texts(render_page(page), "unseen-warn") == [f"warning: {UNFOLLOWED}"]


def test_a_verdict_page_offers_what_can_be_run_for_a_replay(project: Project, tmp_path: Path) -> None:
    """`ratchet check` keeps no replay and has no flag to write one: the page names what does."""
    verdict = _verdict_file(project, tmp_path, pairs=[pair("github-triage-01", "unsure", skill="github-triage")])
    notes = verdict_page(project, verdict).items[0].notes
    assert notes == [
        "the golden is not in this project's goldens/ any more",
        "replay not kept by `ratchet check`: the golden's calls are marked by Level 0's findings. To see a replay "
        "beside the golden, run `ratchet record github-triage-01` in a checkout of the edit (bbbbbbbbbb), then "
        "`ratchet review`: a fresh replay, not the one this check judged; it waits in pending/ and is blessed "
        "only if you accept it",
    ]
    assert not any("--replays" in note for note in notes)


def test_the_cli_says_it_in_the_terminal_too(project: Project, tmp_path: Path) -> None:
    assert record_tasks(project, ["release-notes-01"], allow_unfollowed=True).errors == []
    out = tmp_path / "review.html"
    result = CliRunner().invoke(app, ["review", "--project", str(project.root), "--out", str(out)])
    assert (result.exit_code, result.stdout) == (0, f"wrote {out} (1 item(s), pending)\n")
    assert result.stderr == f"warning: {UNFOLLOWED}\n"
