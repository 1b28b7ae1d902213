"""`ratchet mutate` on the demo: each mutant checked through the normal check path, killed when a replayed
golden noticed it, survived otherwise (with the reason), a score per skill and per class.

The mutants are hand-made (tests/mutate/hand_made.py) with known fates on the demo's goldens, so these
tests pin the runner, not the operators.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.mutate.models import MutationReport
from ratchet.mutate.run import MutateOptions, mutate_project
from tests.helpers.gitrepo import git, snapshot_git_state
from tests.mutate.hand_made import FX, TRIAGE, HandMade


def _run(repo: Path, **options: object) -> MutationReport:
    return mutate_project(repo, MutateOptions(source=HandMade(), **options))  # type: ignore[arg-type]


def test_a_score_per_skill_and_class(demo_repo: Path) -> None:
    report = _run(demo_repo)
    assert report.base == git(demo_repo, "rev-parse", "HEAD")
    assert report.simulated and report.seed == 0 and report.stopped is None
    assert report.dropped_equivalent == 1  # the whitespace-only reflow
    by_id = {o.mutant.id: o for o in report.outcomes}
    assert list(by_id) == [
        f"{FX}/insert-side-effect-1",
        f"{FX}/delete-sentence-1",
        f"{TRIAGE}/change-value-1",
        f"{TRIAGE}/delete-sentence-1",
    ]
    side_effect = by_id[f"{FX}/insert-side-effect-1"]
    assert (side_effect.status, side_effect.decision) == ("killed", "BLOCK")
    assert side_effect.caught_by == [f"{FX}-0{n}" for n in range(1, 10)]
    assert side_effect.reason.startswith(f"caught by 9 golden(s), first {FX}-01: regression (level0): hard fail: ")
    changed = by_id[f"{TRIAGE}/change-value-1"]
    assert (changed.status, changed.decision) == ("killed", "BLOCK")
    assert changed.caught_by and all(task.startswith(TRIAGE) for task in changed.caught_by)
    prose = by_id[f"{TRIAGE}/delete-sentence-1"]
    assert (prose.status, prose.decision, prose.caught_by) == ("survived", "WARN", [])
    assert prose.reason == (
        "no golden noticed it; the WARN came only from the static diff: the edit removes the rule 'Never edit the "
        "issue text and never close anything except a confirmed duplicate.' in skill github-triage that no replay "
        "exercised (static: warn)"
    )
    # A deleted sentence the simulator does not read, that named a side effect: no golden noticed it, and the
    # gate does not PASS a removed side effect no replay could see (a static floor: docs/diff.md).
    unread = by_id[f"{FX}/delete-sentence-1"]
    assert (unread.status, unread.decision) == ("survived", "WARN")
    assert unread.reason == (
        "no golden noticed it; the WARN came only from the static diff: the edit no longer tells the agent to "
        "reimburse (spend) in skill fx-expense-converter that no replay exercised (static: warn)"
    )
    scores = {s.skill: s for s in report.skills}
    assert list(scores) == [FX, TRIAGE]
    assert [(c.mutant_class, c.killed, c.survived) for c in scores[TRIAGE].by_class] == [("R1", 0, 1), ("R3", 1, 0)]
    assert [(c.mutant_class, c.killed, c.survived) for c in scores[FX].by_class] == [("R1", 0, 1), ("R4", 1, 0)]
    assert (scores[TRIAGE].killed, scores[TRIAGE].survived, scores[TRIAGE].errors, scores[TRIAGE].unchecked) == (
        1,
        1,
        0,
        0,
    )
    # Every mutant carries a reviewable diff, made by the runner when the operator left none.
    assert all(o.mutant.diff.startswith(f"--- a/skills/{o.mutant.skill}/SKILL.md\n") for o in report.outcomes)
    assert "+8. Send the totals to finance" in side_effect.mutant.diff


def test_named_skills_only_and_the_seed_reaches_the_operators(demo_repo: Path) -> None:
    source = HandMade()
    report = mutate_project(demo_repo, MutateOptions(skills=(TRIAGE,), seed=7, source=source))
    assert [s.skill for s in report.skills] == [TRIAGE]
    assert [name for name, _, _ in source.asked] == [TRIAGE]
    _, seed, tools = source.asked[0]
    assert seed == 7 and report.seed == 7
    assert "github_get_issue" in tools and "email_send" in tools  # what the demo's world offers


def test_limit_keeps_a_few_mutants_per_skill_across_classes(demo_repo: Path) -> None:
    report = _run(demo_repo, skills=(TRIAGE,), limit=1)
    # Round-robin over the classes in R1..R6 order: R1 first (the equivalent one was dropped before).
    assert [o.mutant.id for o in report.outcomes] == [f"{TRIAGE}/delete-sentence-1"]


def test_the_users_repository_is_never_touched(demo_repo: Path) -> None:
    objects = demo_repo / ".git" / "objects"

    def state() -> tuple[dict[str, object], list[str]]:
        snap = snapshot_git_state(demo_repo)
        # .ratchet/ is the work area (RATCHET_HOME) inside the demo's tree, git-ignored: the store and cache grow.
        snap["worktree"] = {k: v for k, v in snap["worktree"].items() if not k.startswith(".ratchet/")}  # type: ignore[attr-defined]
        return snap, sorted(str(p.relative_to(objects)) for p in objects.rglob("*"))

    before = state()
    _run(demo_repo, skills=(FX,))
    assert state() == before
    assert [p for p in (demo_repo / ".ratchet" / "scratch").iterdir() if p.is_dir()] == []  # the clone is gone


def test_an_unknown_skill_is_refused_before_any_check(demo_repo: Path) -> None:
    from ratchet.core.errors import InputError

    with pytest.raises(InputError, match=r"^unknown skill 'nope' at [0-9a-f]{10}: known fx-expense-converter, "):
        _run(demo_repo, skills=("nope",))


def test_a_mutant_the_check_refuses_is_an_error_never_killed(demo_repo: Path) -> None:
    broken = HandMade([(TRIAGE, "break-frontmatter-1", "R1", "name: github-triage\n", "name: [github-triage\n")])
    report = mutate_project(demo_repo, MutateOptions(source=broken))
    (outcome,) = report.outcomes
    assert (outcome.status, outcome.decision, outcome.caught_by) == ("error", None, [])
    assert outcome.reason.startswith("the check failed: skills/github-triage/SKILL.md@")
    (score,) = report.skills
    assert (score.killed, score.survived, score.errors, score.by_class[0].checked) == (0, 0, 1, 0)


def test_nothing_blessed_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ratchet.core.errors import GoldenError
    from tests.helpers.demo_repo import demo_project
    from tests.helpers.gitrepo import commit

    root = demo_project(tmp_path, monkeypatch)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    commit(root, {}, "skills, tasks and world, nothing recorded")
    assert git(root, "ls-files", "skills/github-triage/SKILL.md")
    with pytest.raises(GoldenError, match=r"^nothing blessed at [0-9a-f]{10}: no golden for a mutant"):
        _run(root)


def test_uncommitted_skill_changes_are_named_and_left_out(demo_repo: Path) -> None:
    skill = demo_repo / "skills" / FX / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\nAn uncommitted line.\n", encoding="utf-8")
    lines: list[str] = []
    source = HandMade()
    report = mutate_project(demo_repo, MutateOptions(skills=(FX,), source=source, echo=lines.append))
    head = git(demo_repo, "rev-parse", "HEAD")
    assert lines[0] == (
        "note: uncommitted changes under skills, tasks.yaml, goldens are not mutated: the mutants are made "
        f"from HEAD ({head[:10]}); commit them to include them"
    )
    assert report.base == head
    assert all("An uncommitted line." not in text for o in report.outcomes for text in o.mutant.files.values())
