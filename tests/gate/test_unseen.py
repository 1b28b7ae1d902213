"""Unseen notes one by one: unrouted goldens, changed unfollowed steps, prose, and how decide folds them in."""

from __future__ import annotations

from pathlib import Path

from ratchet.gate.decide import no_change, with_unchecked
from ratchet.gate.models import Unseen
from ratchet.gate.unseen import unseen_notes
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import load_golden_files
from ratchet.skills.skill import Skill, parse_skill_text

HEAD = "---\nname: {name}\ndescription: Look things up by key for the team.\n---\n"
BODY = """# Lookup

Some prose for people.

## Steps
1. Ask: `lookup(key=1)` as `$r`.
2. If the answer is empty, stop.
   - `lookup(key=2)`

## Output
- `r`: `$r`
"""


def _skill(body: str, name: str = "lookup") -> Skill:
    return parse_skill_text(
        HEAD.format(name=name) + body, folder=Path("skills") / name, source=f"skills/{name}/SKILL.md"
    )


def _notes(base: str, head: str) -> list[Unseen]:
    return unseen_notes(
        changed=["lookup"],
        base_skills={"lookup": _skill(base)},
        head_skills={"lookup": _skill(head)},
        tasks=[],
        goldens={},
        changed_files={},
        tools=frozenset({"lookup"}),
    )


def _skip_unrouted(notes: list[Unseen]) -> list[tuple[str, str, str]]:
    return [(n.kind, n.level, n.detail) for n in notes if n.kind != "unrouted"]


def test_an_edit_inside_an_unread_condition_warns_with_its_line() -> None:
    notes = _notes(BODY, BODY.replace("`lookup(key=2)`", "`lookup(key=3)`"))
    assert _skip_unrouted(notes) == [
        (
            "unfollowed",
            "warn",
            "the edit changes 1 step(s) of skill lookup the simulator "
            "could not follow (SKILL.md:11: a condition the simulator cannot read)",
        )
    ]


def test_prose_is_a_note_and_comments_or_blank_lines_are_nothing() -> None:
    assert _skip_unrouted(_notes(BODY, BODY.replace("Some prose for people.", "Other prose for people."))) == [
        ("prose", "note", "1 changed line(s) of skill lookup are prose the simulator does not read (SKILL.md lines 7)")
    ]
    cosmetic = BODY.replace("Some prose", "<!-- why -->Some  prose").replace("## Steps\n", "## Steps\n\n")
    assert _skip_unrouted(_notes(BODY, cosmetic)) == []
    assert _skip_unrouted(_notes(BODY, BODY.replace("Some prose for people.\n", ""))) == [
        (
            "prose",
            "note",
            "1 changed line(s) of skill lookup are prose the simulator does not read (deleted at the base: 7)",
        )
    ]


def test_no_prose_or_unfollowed_note_off_the_simulator() -> None:
    notes = unseen_notes(
        changed=["lookup"],
        base_skills={"lookup": _skill("no program")},
        head_skills={"lookup": _skill("still none")},
        tasks=[],
        goldens={},
        changed_files={},
        tools=None,
    )
    assert [n.kind for n in notes] == ["unrouted"]


def test_a_golden_that_fired_another_skill_leaves_its_task_unrouted(demo_repo: Path) -> None:
    tasks = load_tasks(demo_repo / "tasks.yaml")
    goldens = {g.task_id: g for g in load_golden_files(demo_repo / "goldens").values()}
    task = next(t for t in tasks if t.skill == "github-triage")
    goldens[task.id] = goldens[task.id].model_copy(update={"skills_fired": []})
    skill = _skill("## Output\n- `x`: `1`\n", name="github-triage")
    notes = unseen_notes(
        changed=["github-triage"],
        base_skills={"github-triage": skill},
        head_skills={"github-triage": skill},
        tasks=tasks,
        goldens=goldens,
        changed_files={},
        tools=frozenset(),
    )
    assert [(n.kind, n.detail) for n in notes] == [
        (
            "unrouted",
            f"task {task.id} is github-triage's, but its golden "
            "fired no skill: it was never replayed under the edited skill",
        )
    ]


def test_a_warn_floors_at_warn_and_leads_a_note_changes_nothing() -> None:
    passed = no_change(base="a", head="b", simulated=True, on_error="block")
    warn = Unseen(kind="unsent", skill="s", detail="scripts/x.py of skill s changed", level="warn")
    note = Unseen(kind="prose", skill="s", detail="1 changed line(s)", level="note")
    verdict = with_unchecked(passed, unseen=[warn, note])
    assert (verdict.decision, verdict.summary, verdict.unseen) == (
        "WARN",
        "scripts/x.py of skill s changed; no skill changed",
        [warn, note],
    )
    only_note = with_unchecked(passed, unseen=[note])
    assert (only_note.decision, only_note.summary, only_note.unseen) == ("PASS", "no skill changed", [note])
    blocked = passed.model_copy(update={"decision": "BLOCK", "summary": "1 regression(s)"})
    assert with_unchecked(blocked, unseen=[warn]).decision == "BLOCK"
    # A later call (check adding its settings notes) keeps the unseen notes and puts its own first.
    again = with_unchecked(verdict, settings_changed=["ratchet.yaml"])
    assert again.unseen == [warn, note] and again.summary.endswith(
        "; scripts/x.py of skill s changed; no skill changed"
    )
