"""Unseen: the parts of an edit the gate did not read, route or replay, named once per edit.

Level 0 calls a pair `same` when the replay equals the golden. That means "seen, and identical"
only if the replay could have changed: a skill the simulator cannot follow, a task that never
reached the edited skill, a file the runner never sends, all replay identically whatever the
edit did. Each is a `warn` note here, so decide can never answer PASS about them. Changed prose
the simulator does not read is a `note`: shown, never a warning, because the benchmark's
cosmetic controls edit exactly that (docs/adr/0012-never-a-silent-pass.md).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from ratchet.gate.models import Unseen
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.sim.follow import FollowReport, follow_report
from ratchet.sim.program import numbered_lines
from ratchet.skills.names import optional_skill_key, skill_key
from ratchet.skills.skill import Skill

SENT_KEYS = frozenset({"name", "description"})
"""Frontmatter keys the gate reads (routing); the minimal runner sends no other key to the agent."""
INERT_KEYS = frozenset({"license", "metadata", "compatibility"})
"""Keys for people and registries that no harness acts on: a change to them is listed, never a warning."""

_MAX_LINES = 8


def unseen_notes(
    *,
    changed: Sequence[str],
    base_skills: Mapping[str, Skill],
    head_skills: Mapping[str, Skill],
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    changed_files: Mapping[str, Sequence[str]],
    tools: frozenset[str],
    simulated: bool,
) -> list[Unseen]:
    """Every unseen part of the edit, warnings first, then in changed-skill order.

    `changed_files`: skill name -> repo paths changed in its folder (`.../<name>/...`);
    `tools`: the tool names the agent is offered (the simulator's reading depends on them);
    `simulated`: the upstream is sim.
    """
    notes: list[Unseen] = []
    for name in changed:
        base, head = base_skills.get(skill_key(name)), head_skills.get(skill_key(name))
        if simulated:
            notes.extend(_unfollowed(name, base, head, tools))
        notes.extend(_unrouted(name, tasks, goldens))
        notes.extend(_unsent(name, base, head, changed_files.get(name, ())))
    return [n for n in notes if n.level == "warn"] + [n for n in notes if n.level == "note"]


# -- unfollowed and prose ---------------------------------------------------------------------------


def _report(skill: Skill | None, tools: frozenset[str]) -> FollowReport | None:
    return None if skill is None else follow_report(skill.body, tools, body_line=skill.body_line)


def _unfollowed(name: str, base: Skill | None, head: Skill | None, tools: frozenset[str]) -> list[Unseen]:
    before, after = _report(base, tools), _report(head, tools)
    lost = [
        label
        for label, report in (("before the edit", before), ("as edited", after))
        if report is not None and not report.followable
    ]
    if lost:
        when = "" if len(lost) == 2 or before is None or after is None else f" {lost[0]}"
        reason = next(r.reason for r in (before, after) if r is not None and not r.followable)
        return [
            Unseen(
                kind="unfollowed",
                skill=name,
                level="warn",
                detail=(
                    f"the simulator could not follow skill {name}{when} ({reason}): "
                    "a live upstream or a real harness is needed to check this edit"
                ),
            )
        ]
    if base is None or head is None or before is None or after is None or base.substance_hash == head.substance_hash:
        return []
    removed, added, deleted = _changed_lines(base, head)
    hit = [(step.line, step.why) for step in after.unfollowed if any(step.line <= n <= step.last_line for n in added)]
    hit += [
        (step.line, step.why)
        for step in before.unfollowed
        if any(step.line <= n <= step.last_line for n in removed) and (step.line, step.why) not in hit
    ]
    if hit:
        where = "; ".join(f"SKILL.md:{line}: {why}" for line, why in hit[:_MAX_LINES])
        return [
            Unseen(
                kind="unfollowed",
                skill=name,
                level="warn",
                detail=(
                    f"the edit changes {len(hit)} step(s) of skill {name} the simulator could not follow ({where})"
                ),
            )
        ]
    # A replaced line counts once, by its new number; a deleted one by its number at the base.
    prose = [n for n in added if _unread(n, after)]
    gone = [n for n in deleted if _unread(n, before)]
    if not prose and not gone:
        return []
    spots = [f"SKILL.md lines {_lines(prose)}"] if prose else []
    spots += [f"deleted at the base: {_lines(gone)}"] if gone else []
    return [
        Unseen(
            kind="prose",
            skill=name,
            level="note",
            detail=(
                f"{len(prose) + len(gone)} changed line(s) of skill {name} are prose the simulator does not read "
                f"({'; '.join(spots)})"
            ),
        )
    ]


def _lines(numbers: list[int]) -> str:
    shown = sorted(set(numbers))
    return ", ".join(str(n) for n in shown[:_MAX_LINES]) + (", ..." if len(shown) > _MAX_LINES else "")


def _unread(line: int, report: FollowReport) -> bool:
    return line not in report.read_lines and not any(s.line <= line <= s.last_line for s in report.unfollowed)


def _substance_lines(skill: Skill) -> list[tuple[int, str]]:
    """SKILL.md line numbers and whitespace-folded text of the body's non-blank lines, comments dropped."""
    shift = skill.body_line - 1
    return [(number + shift, " ".join(text.split())) for number, text in numbered_lines(skill.body) if text.strip()]


def _changed_lines(base: Skill, head: Skill) -> tuple[list[int], list[int], list[int]]:
    """(base lines removed or replaced, head lines added or replaced, base lines deleted with no replacement).

    Blank-line, whitespace and comment-only changes are no change (what substance_hash ignores).
    """
    before, after = _substance_lines(base), _substance_lines(head)
    matcher = difflib.SequenceMatcher(None, [t for _, t in before], [t for _, t in after], autojunk=False)
    removed: list[int] = []
    added: list[int] = []
    deleted: list[int] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "equal":
            removed.extend(n for n, _ in before[i1:i2])
            added.extend(n for n, _ in after[j1:j2])
        if op == "delete":
            deleted.extend(n for n, _ in before[i1:i2])
    return removed, added, deleted


# -- unrouted ---------------------------------------------------------------------------------------


def _unrouted(name: str, tasks: Sequence[Task], goldens: Mapping[str, Trace]) -> list[Unseen]:
    key = skill_key(name)
    notes: list[Unseen] = []
    for task in tasks:
        golden = goldens.get(task.id)
        if golden is None or optional_skill_key(task.skill) != key or optional_skill_key(golden.fired_skill) == key:
            continue
        fired = f"skill {golden.fired_skill}" if golden.fired_skill else "no skill"
        notes.append(
            Unseen(
                kind="unrouted",
                skill=name,
                level="warn",
                detail=(
                    f"task {task.id} is {name}'s, but its golden fired {fired}: it was never replayed under the edited skill"
                ),
            )
        )
    if not any(optional_skill_key(g.fired_skill) == key for g in goldens.values()):
        notes.append(
            Unseen(
                kind="unrouted",
                skill=name,
                level="warn",
                detail=(
                    f"no golden exercises skill {name}: record and bless a task for it (ratchet record, ratchet bless)"
                ),
            )
        )
    return notes


# -- thin -------------------------------------------------------------------------------------------


def thin_notes(goldens: Sequence[tuple[Trace, bool]]) -> list[Unseen]:
    """A `warn` per skill whose replayed goldens show no sign of it at work (ratchet.gate.thin).

    `goldens`: each replayed golden, and whether the check finds it thin against the base's skill. Such a
    golden (no tool or command the skill names, none of the output it prescribes) replays identically under
    any edit of the skill, so the verdict says so, whether it was blessed with --accept-thin (its `thin` flag)
    or its flag is missing (blessed before the check existed, or stripped by an edit of the golden's file).
    """
    by_skill: dict[tuple[str, bool], list[str]] = {}
    for golden, thin in goldens:
        if golden.thin or thin:
            skill = golden.expected_skill or golden.fired_skill or ""
            by_skill.setdefault((skill, bool(golden.thin)), []).append(golden.task_id)
    return [
        Unseen(
            kind="thin",
            skill=skill,
            level="warn",
            detail=(
                f"{len(ids)} golden(s) of skill {skill} "
                + ("were blessed thin (--accept-thin), showing" if flagged else "show")
                + f" no sign of the skill at work: {', '.join(ids[:_MAX_LINES])}{', ...' if len(ids) > _MAX_LINES else ''}; "
                "their replays cannot show what the edit does: re-record them with an agent that follows the skill"
            ),
        )
        for (skill, flagged), ids in by_skill.items()
    ]


# -- unsent -----------------------------------------------------------------------------------------


def _unsent(name: str, base: Skill | None, head: Skill | None, files: Sequence[str]) -> list[Unseen]:
    # The paths are the skill's own (check groups them by owning folder), so its SKILL.md is <name>/SKILL.md.
    others = sorted(path for path in files if PurePosixPath(path).parts[-2:] != (name, "SKILL.md"))
    changed_keys = _frontmatter_changes(base, head)
    keys = sorted(k for k in changed_keys if k not in SENT_KEYS | INERT_KEYS)
    inert = sorted(k for k in changed_keys if k in INERT_KEYS)
    parts = []
    if others:
        parts.append(", ".join(others[:_MAX_LINES]) + (", ..." if len(others) > _MAX_LINES else ""))
    if keys:
        parts.append("frontmatter " + ", ".join(keys))
    notes = (
        [
            Unseen(
                kind="unsent",
                skill=name,
                level="warn",
                detail=(
                    f"{' and '.join(parts)} of skill {name} changed, but the runner sends only SKILL.md's body to the agent: "
                    "not replayed; review it, or check with a harness that loads it"
                ),
            )
        ]
        if parts
        else []
    )
    if inert:
        notes.append(
            Unseen(
                kind="unsent",
                skill=name,
                level="note",
                detail=(
                    f"frontmatter {', '.join(inert)} of skill {name} changed: read by people and registries, "
                    "not by an agent"
                ),
            )
        )
    return notes


def _frontmatter_changes(base: Skill | None, head: Skill | None) -> list[str]:
    if base is None or head is None:
        return []
    keys = set(base.frontmatter) | set(head.frontmatter)
    return [k for k in keys if base.frontmatter.get(k) != head.frontmatter.get(k)]
