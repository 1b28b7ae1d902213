"""A verdict's review page shows each edited skill's mutation score as the edit's BASE keeps it.

Why (issue 24, build 3): a reviewer weighing a verdict should see how much the goldens behind it would
catch, and which deliberate breakages they missed (the surviving mutants: the tests a team should add).
Read at the base (goldens/<skill>/mutation.score.json, saved by `ratchet mutate`), as the PR comment reads
it and the gate reads everything it gates with (docs/adr/0011): an edit cannot bring its own score.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ratchet.config.project import load_project
from ratchet.gate.models import Verdict
from ratchet.goldens.mutation import SCORE_FILE, MutationScore, Survivor
from ratchet.review.collect import pending_page, verdict_page
from ratchet.review.models import MutationSection, ReviewPage, SkillMutation
from ratchet.review.page import render_page
from tests.helpers.gitrepo import commit
from tests.helpers.mutation_scores import blind_score, good_score
from tests.review.test_page import EVIL, _texts

FX, GH = "fx-expense-converter", "github-triage"


def _verdict(tmp_path: Path, base: str, *skills: str) -> Path:
    verdict = Verdict(base=base, head="b" * 40, skills_changed=list(skills), decision="PASS", summary="s")
    path = tmp_path / "verdict.json"
    path.write_text(verdict.to_json(), encoding="utf-8")
    return path


def test_each_edited_skill_s_score_is_read_at_the_base_not_the_head(demo_repo: Path, tmp_path: Path) -> None:
    base = commit(demo_repo, {f"goldens/{GH}/{SCORE_FILE}": good_score(GH).to_json()}, "score")
    commit(
        demo_repo,
        {
            f"goldens/{GH}/{SCORE_FILE}": blind_score(GH).to_json(),
            f"goldens/{FX}/{SCORE_FILE}": good_score(FX).to_json(),
        },
        "scores the edit brings",
    )
    page = verdict_page(load_project(demo_repo), _verdict(tmp_path, base, GH, FX))
    assert page.mutation == MutationSection(
        base=base[:10], skills=[SkillMutation(skill=GH, score=good_score(GH)), SkillMutation(skill=FX)]
    )
    html = render_page(page)
    assert _texts(html, "mutation")[0].startswith(
        f"Mutation score of the edited skills at the base {base[:10]} (docs/mutate.md)"
    )
    assert _texts(html, "mutation-score") == [
        f"{GH}: goldens kill 21 of 24 mutants (88%); R1 8/9, R2 3/3, R3 3/3, R4 3/3, R5 2/3, R6 2/3 "
        "(at c0ffeec0ff, seed 0, simulated)"
    ]
    assert _texts(html, "mutation-class") == [
        "R1a deleted or inverted instruction89",
        "R2a dropped output field or heading33",
        "R3a changed value, name, path or argument33",
        "R4a new side-effecting instruction33",
        "R5a broadened description23",
        "R6a narrowed description23",
    ]
    assert _texts(html, "survivors-heading") == ["Surviving mutants: the tests a team should add"]
    assert _texts(html, "survivor") == [
        f"{GH}/delete-step-1 · R1: survivor 1",
        f"{GH}/delete-step-2 · R5: survivor 2",
        f"{GH}/delete-step-3 · R6: survivor 3",
    ]
    assert _texts(html, "mutation-none") == [f"{FX}: no mutation score measured: ratchet mutate {FX}"]


def test_goldens_that_kill_nothing_are_said_so(demo_repo: Path, tmp_path: Path) -> None:
    base = commit(demo_repo, {f"goldens/{GH}/{SCORE_FILE}": blind_score(GH).to_json()}, "score")
    html = render_page(verdict_page(load_project(demo_repo), _verdict(tmp_path, base, GH)))
    assert _texts(html, "mutation-blind") == [
        "these goldens would not notice this kind of change: they killed none of the 2 mutants checked"
    ]
    assert _texts(html, "survivor") == [
        f"{GH}/delete-step-1 · R1: deletes step 2 (SKILL.md:12)",
        f"{GH}/broaden-description-1 · R5: broadens the description",
    ]


def test_a_base_that_cannot_be_read_is_one_line(demo_repo: Path, tmp_path: Path) -> None:
    project = load_project(demo_repo)
    missing = verdict_page(project, _verdict(tmp_path, "0" * 40, GH)).mutation
    assert (
        missing is not None and missing.skills == [] and missing.unread is not None and "0000000000" in missing.unread
    )
    bad = commit(demo_repo, {f"goldens/{GH}/{SCORE_FILE}": "{not json"}, "a broken score")
    shown = _texts(render_page(verdict_page(project, _verdict(tmp_path, bad, GH))), "mutation-unread")
    assert len(shown) == 1 and shown[0].startswith(
        f"Mutation score not read at the base: goldens/{GH}/{SCORE_FILE}@{bad[:10]}:1: not valid JSON"
    )


def test_no_edited_skill_and_a_pending_page_show_no_section(demo_repo: Path, tmp_path: Path) -> None:
    project = load_project(demo_repo)
    base = commit(demo_repo, {f"goldens/{GH}/{SCORE_FILE}": good_score(GH).to_json()}, "score")
    page = verdict_page(project, _verdict(tmp_path, base))
    assert page.mutation is None and _texts(render_page(page), "mutation") == []
    assert pending_page(project).mutation is None


def _evil_score() -> MutationScore:
    score = blind_score(GH)
    return score.model_copy(
        update={"survivors": [Survivor(id=EVIL, mutant_class="R1", description=EVIL), score.survivors[1]]}
    )


def test_every_word_of_a_score_is_escaped() -> None:
    section = MutationSection(
        base=EVIL, skills=[SkillMutation(skill=EVIL, score=_evil_score()), SkillMutation(skill=EVIL)], unread=None
    )
    for page in (
        ReviewPage(mode="verdict", title="t", source="s", mutation=section),
        ReviewPage(mode="verdict", title="t", source="s", mutation=MutationSection(base=EVIL, unread=EVIL)),
    ):
        html = render_page(page)
        assert "<script>alert" not in html
        assert html.count("<script>") == 1  # the page's own script, and only it
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#x27;&quot;" in html


def test_the_section_shows_in_a_browser_and_fetches_nothing(demo_repo: Path, tmp_path: Path, chromium: Any) -> None:
    base = commit(demo_repo, {f"goldens/{GH}/{SCORE_FILE}": blind_score(GH).to_json()}, "score")
    out = tmp_path / "review.html"
    out.write_text(render_page(verdict_page(load_project(demo_repo), _verdict(tmp_path, base, GH, FX))), "utf-8")
    page = chromium.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(out.as_uri())
    section = page.locator("section.mutation")
    assert section.is_visible()
    assert section.locator(".survivor").all_inner_texts() == [
        f"{GH}/delete-step-1 · R1: deletes step 2 (SKILL.md:12)",
        f"{GH}/broaden-description-1 · R5: broadens the description",
    ]
    assert section.locator(".mutation-none").inner_text() == f"{FX}: no mutation score measured: ratchet mutate {FX}"
    assert requests == [out.as_uri()]
