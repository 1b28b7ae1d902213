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
import posixpath
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from ratchet.config.harness import HarnessName
from ratchet.core.chat import ToolCallRequest
from ratchet.gate.models import Unseen
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.harness.shell_reads import ran_operands, shell_command
from ratchet.sim.follow import FollowReport, follow_report
from ratchet.sim.program import numbered_lines
from ratchet.skills.names import optional_skill_key, skill_key
from ratchet.skills.skill import Skill
from ratchet.world.commands import SKILL_READ

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
    tools: frozenset[str] | None,
    harness: HarnessName = "minimal",
) -> list[Unseen]:
    """Every unseen part of the edit, warnings first, then in changed-skill order.

    `changed_files`: skill name -> repo paths changed in its folder (`.../<name>/...`);
    `tools`: when the upstream is the simulator, the tool names the agent is offered (its reading depends on
    them); None when it is not; `harness`: the one the check replays through (what it is sent).
    """
    notes: list[Unseen] = []
    for name in changed:
        base, head = base_skills.get(skill_key(name)), head_skills.get(skill_key(name))
        if tools is not None:
            notes.extend(_unfollowed(name, base, head, tools))
        notes.extend(_unrouted(name, tasks, goldens))
        notes.extend(_unsent(name, base, head, changed_files.get(name, ()), _golden_reads(name, goldens, harness)))
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


class _Reads:
    """What the goldens of one skill did with its files, for the harness the check replays through: the
    skill-relative paths they showed the model (skill:read) and the paths their shell lines ran (a whole path
    word: `python .../<skill>/scripts/report.py`, harness/shell_reads.ran_operands). A mention is neither: an
    `ls` or `echo` of the file, or a comment's body naming it, shows the model nothing the edit changed."""

    def __init__(self, harness: str, read: set[str], ran: list[str]) -> None:
        self.harness, self.read, self.ran = harness, read, ran

    def saw(self, name: str, relative: str) -> bool:
        tail = f"{name}/{relative}"
        return relative in self.read or any(path == tail or path.endswith("/" + tail) for path in self.ran)


def _golden_reads(name: str, goldens: Mapping[str, Trace], harness: str) -> _Reads:
    key = skill_key(name)
    fired = [g for g in goldens.values() if optional_skill_key(g.fired_skill) == key]
    read: set[str] = set()
    ran: list[str] = []
    for golden in fired:
        for call in golden.tool_calls:
            if call.name == SKILL_READ and optional_skill_key(str(call.arguments.get("skill"))) == key:
                read.add(str(call.arguments.get("path")))
            elif (line := shell_command(ToolCallRequest(id="", name=call.name, arguments=call.arguments))) is not None:
                ran += [posixpath.normpath(path) for path in ran_operands(line)]
    return _Reads(harness, read, ran)


def _relative(path: str, name: str, skill: Skill | None) -> str:
    """A repo path of a skill's file, relative to the skill's folder (what a harness's read names)."""
    parts = PurePosixPath(path).parts
    folder = PurePosixPath(skill.folder).name if skill is not None else name
    for mark in (folder, name):
        if mark in parts:
            return PurePosixPath(*parts[parts.index(mark) + 1 :]).as_posix()
    return path


def _unsent(name: str, base: Skill | None, head: Skill | None, files: Sequence[str], reads: _Reads) -> list[Unseen]:
    # The paths are the skill's own (check groups them by owning folder), so its SKILL.md is <name>/SKILL.md.
    others = sorted(path for path in files if PurePosixPath(path).parts[-2:] != (name, "SKILL.md"))
    changed_keys = _frontmatter_changes(base, head)
    inert = sorted(k for k in changed_keys if k in INERT_KEYS)
    if reads.harness == "minimal":
        keys = sorted(k for k in changed_keys if k not in SENT_KEYS | INERT_KEYS)
    else:  # a harness is given the whole SKILL.md, and each other file its goldens read or ran is replayed
        keys = []
        others = [path for path in others if not reads.saw(name, _relative(path, name, head or base))]
    parts = []
    if others:
        parts.append(", ".join(others[:_MAX_LINES]) + (", ..." if len(others) > _MAX_LINES else ""))
    if keys:
        parts.append("frontmatter " + ", ".join(keys))
    detail = _unsent_detail(name, parts, reads.harness, len(others)) if parts else ""
    notes = [Unseen(kind="unsent", skill=name, level="warn", detail=detail)] if parts else []
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


def _unsent_detail(name: str, parts: list[str], harness: str, files: int) -> str:
    """What was not sent, and what would make it visible under the harness the check replays through."""
    changed = f"{' and '.join(parts)} of skill {name} changed"
    if harness == "minimal":
        return f"{changed}, but the runner sends only SKILL.md's body to the agent: not replayed; review it, or check with a harness that loads it"
    it = "them" if files > 1 else "it"
    how = " (with Read or Bash in harness.builtin_tools)" if harness == "claude-code" else ""
    return f"{changed}, but no golden of it read {it} through {harness}: not replayed; add a task that makes the agent read {it}{how}"


def _frontmatter_changes(base: Skill | None, head: Skill | None) -> list[str]:
    if base is None or head is None:
        return []
    keys = set(base.frontmatter) | set(head.frontmatter)
    return [k for k in keys if base.frontmatter.get(k) != head.frontmatter.get(k)]
