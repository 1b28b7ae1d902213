"""Evidence: what an edit changes in what the gate compares with (goldens, noise records, tasks).

Why: a check compares the edit's replays with the base's goldens, noise records and tasks
(docs/adr/0007), so editing them never moves the edit's own verdict, but it moves every later one:
a deleted golden or task leaves its skill checked against less, a re-blessed golden is a new
approved behaviour, a re-measured noise record lets more variation through. Such an edit used to
read `PASS no skill changed`. Now each is named on the verdict's first lines (Verdict.evidence_changed)
and decided in ratchet.gate.decide.with_unchecked:

- adding a golden, noise record or task is a note: adding coverage is the normal good thing;
- changing, moving or removing one is at least WARN: the gate cannot check a re-bless, a person does;
- removing coverage (a skill with fewer goldens or tasks at the head than at the base) is at least
  WARN and BLOCK under on_error=block, as a change to the gate's settings is (docs/adr/0011).

Goldens and noise records are compared by path (`<goldens>/<skill>/<task>.json`, `.noise.json`), so
the comparison reads only what changed; tasks by id, from tasks.yaml at both revisions.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Sequence
from pathlib import PurePosixPath

import git

from ratchet.core.errors import TaskFileError
from ratchet.gate.models import (
    CoverageLoss,
    EvidenceChange,
    EvidenceChangeKind,
    EvidenceChanges,
    EvidenceKind,
    PairOutcome,
)
from ratchet.goldens.mutation import SCORE_FILE
from ratchet.goldens.tasks import Task, parse_tasks
from ratchet.goldens.trace import NO_SKILL_DIR, NOISE_SUFFIX, SCORE_SUFFIX
from ratchet.repo.changes import ChangedPath
from ratchet.repo.git import INDEX
from ratchet.repo.trees import files_at, read_file_at
from ratchet.skills.names import optional_skill_key

__all__ = [
    "EVIDENCE_LABELS",
    "coverage_text",
    "evidence_changes",
    "evidence_notes",
    "on_reblessed",
    "skill_label",
    "skill_note",
]

_ABSENT = "000000"  # ChangedPath's mode for the side that lacks the path
_SHOWN = 6  # task ids named per group before "and N more"
_ORDER: dict[EvidenceChangeKind, int] = {"removed": 0, "moved": 1, "changed": 2, "added": 3}
_KIND_ORDER: dict[EvidenceKind, int] = {"golden": 0, "noise_record": 1, "task": 2, "mutation_score": 3}
EVIDENCE_LABELS: dict[tuple[EvidenceKind, EvidenceChangeKind], str] = {
    ("golden", "removed"): "goldens removed",
    ("golden", "moved"): "goldens moved",
    ("golden", "changed"): "goldens re-blessed in this change",
    ("golden", "added"): "goldens added",
    ("noise_record", "removed"): "noise records removed",
    ("noise_record", "moved"): "noise records moved",
    ("noise_record", "changed"): "noise records re-measured",
    ("noise_record", "added"): "noise records added",
    ("task", "removed"): "tasks removed",
    ("task", "moved"): "tasks moved",
    ("task", "changed"): "tasks changed",
    ("task", "added"): "tasks added",
    ("mutation_score", "removed"): "mutation scores removed",
    ("mutation_score", "changed"): "mutation scores changed",
    ("mutation_score", "added"): "mutation scores added",
}
"""How a verdict names each kind of change, in the summary and on the first lines of every format."""


def evidence_changes(
    repo: git.Repo,
    *,
    base: str,
    head: str,
    changes: Sequence[ChangedPath],
    goldens: str,
    tasks: str,
    changed_skills: Collection[str],
) -> EvidenceChanges:
    """What `changes` (base -> head, or the index) do to the goldens folder and the tasks file of the base's paths.

    A tasks file the head cannot parse is a TaskFileError naming `<tasks>@<head>`: once merged, every
    check would fail on it. One the base cannot parse counts as none (a change may be its repair).
    """
    found = _golden_changes(changes, goldens) + _score_changes(changes, goldens)
    tasks_path = posixpath.normpath(tasks)
    tasks_changed = any(change.path == tasks_path for change in changes)
    base_tasks = _tasks_at(repo, base, tasks_path, strict=False) if tasks_changed else []
    head_tasks = _tasks_at(repo, head, tasks_path) if tasks_changed else []
    found += _task_changes(base_tasks, head_tasks)
    net: dict[str | None, int] = {}  # goldens per skill folder, head minus base
    for change in (c for c in found if c.kind == "golden"):
        if change.change in ("added", "moved"):
            net[change.skill] = net.get(change.skill, 0) + 1
        if change.change in ("removed", "moved"):
            lost = change.skill if change.change == "removed" else change.base_skill
            net[lost] = net.get(lost, 0) - 1
    tasks_base, tasks_head = _task_counts(base_tasks), _task_counts(head_tasks)
    losing = {skill for skill, n in net.items() if n < 0} | {
        skill for skill, n in tasks_base.items() if tasks_head.get(skill, 0) < n
    }
    dropped = {c.task_id for c in found if c.kind == "task" and c.change == "removed"}
    at_base = _goldens_at(repo, base, goldens) if losing or dropped else []
    if dropped:  # a golden left behind for a removed task fails every check once merged (GoldenError)
        gone = {c.task_id for c in found if c.kind == "golden" and c.change == "removed"}
        kept = ({task_id for _, task_id in at_base} - gone) | {
            c.task_id for c in found if c.kind == "golden" and c.change == "added"
        }
        found = [
            c.model_copy(update={"golden_kept": True}) if c.kind == "task" and c.task_id in dropped & kept else c
            for c in found
        ]
    edited = {optional_skill_key(name) for name in changed_skills}
    found = sorted(
        (c.model_copy(update={"skill_changed": _edited(c, edited)}) for c in found),
        key=lambda c: (_ORDER[c.change], _KIND_ORDER[c.kind], c.skill or "", c.task_id),
    )
    if not losing:
        return EvidenceChanges(changes=found)
    if not tasks_changed:  # the counts a line shows: the base's tasks on both sides
        tasks_base = tasks_head = _task_counts(_tasks_at(repo, base, tasks_path, strict=False))
    goldens_base: dict[str | None, int] = {}
    for skill, _ in at_base:
        goldens_base[skill] = goldens_base.get(skill, 0) + 1
    coverage = []
    for skill in sorted(losing, key=lambda s: (s is None, s or "")):
        # At least what was removed: a submodule in the goldens folder hides its listing (files_at).
        before = max(goldens_base.get(skill, 0), -net.get(skill, 0))
        coverage.append(
            CoverageLoss(
                skill=skill,
                goldens_base=before,
                goldens_head=before + net.get(skill, 0),
                tasks_base=tasks_base.get(skill, 0),
                tasks_head=tasks_head.get(skill, 0),
            )
        )
    return EvidenceChanges(changes=found, coverage_removed=coverage)


def _edited(change: EvidenceChange, edited: set[str | None]) -> bool:
    return any(skill is not None and optional_skill_key(skill) in edited for skill in (change.skill, change.base_skill))


def _golden_path(path: str, prefix: tuple[str, ...]) -> tuple[EvidenceKind, str | None, str] | None:
    """(kind, skill, task id) of `<goldens>/<skill>/<task>.json` or `.noise.json`; None for any other path."""
    parts = PurePosixPath(path).parts
    if len(parts) != len(prefix) + 2 or parts[: len(prefix)] != prefix:
        return None
    folder, name = parts[-2:]
    skill = None if folder == NO_SKILL_DIR else folder
    if name.endswith(NOISE_SUFFIX):
        return "noise_record", skill, name[: -len(NOISE_SUFFIX)]
    if name.endswith(SCORE_SUFFIX):
        return None  # a mutation score (ratchet.goldens.mutation): what ratchet mutate measured, no evidence
    if name.endswith(".json"):
        return "golden", skill, name[: -len(".json")]
    return None


def _prefix(goldens: str) -> tuple[str, ...]:
    folder = posixpath.normpath(goldens)
    return () if folder in (".", "") else PurePosixPath(folder).parts


def _golden_changes(changes: Sequence[ChangedPath], goldens: str) -> list[EvidenceChange]:
    prefix = _prefix(goldens)
    added: dict[tuple[EvidenceKind, str], str | None] = {}
    removed: dict[tuple[EvidenceKind, str], str | None] = {}
    found: list[EvidenceChange] = []
    for change in changes:
        entry = None if change.is_gitlink else _golden_path(change.path, prefix)
        if entry is None:
            continue
        kind, skill, task_id = entry
        if change.old_mode == _ABSENT:
            added[(kind, task_id)] = skill
        elif change.new_mode == _ABSENT:
            removed[(kind, task_id)] = skill
        else:
            found.append(EvidenceChange(kind=kind, change="changed", task_id=task_id, skill=skill))
    for key, skill in added.items():
        if key in removed:  # re-blessed under another skill's folder: one move, not a removal and an addition
            found.append(
                EvidenceChange(kind=key[0], change="moved", task_id=key[1], skill=skill, base_skill=removed.pop(key))
            )
        else:
            found.append(EvidenceChange(kind=key[0], change="added", task_id=key[1], skill=skill))
    found += [
        EvidenceChange(kind=kind, change="removed", task_id=task_id, skill=skill)
        for (kind, task_id), skill in removed.items()
    ]
    return found


def _score_changes(changes: Sequence[ChangedPath], goldens: str) -> list[EvidenceChange]:
    """`<goldens>/<skill>/mutation.score.json` added, changed or removed: a note, since a later check names an
    edited skill by the score it reads at its base (ratchet.gate.mutation), and a planted or dropped one is
    not what ratchet mutate measured. Never a move: each skill has its own."""
    prefix = _prefix(goldens)
    found = []
    for change in changes:
        parts = PurePosixPath(change.path).parts
        if change.is_gitlink or parts[:-2] != prefix or len(parts) != len(prefix) + 2 or parts[-1] != SCORE_FILE:
            continue
        kind: EvidenceChangeKind = (
            "added" if change.old_mode == _ABSENT else "removed" if change.new_mode == _ABSENT else "changed"
        )
        skill = None if parts[-2] == NO_SKILL_DIR else parts[-2]
        found.append(EvidenceChange(kind="mutation_score", change=kind, task_id=SCORE_FILE, skill=skill))
    return found


def _goldens_at(repo: git.Repo, rev: str, goldens: str) -> list[tuple[str | None, str]]:
    """(skill folder, task id) of every golden at `rev` (its blobs are held: check reads inside blobs_read_once)."""
    prefix = _prefix(goldens)
    entries = (_golden_path(path, prefix) for path in files_at(repo, rev, posixpath.normpath(goldens)) or {})
    return [(entry[1], entry[2]) for entry in entries if entry is not None and entry[0] == "golden"]


def _tasks_at(repo: git.Repo, rev: str, path: str, *, strict: bool = True) -> list[Task]:
    label = rev if rev == INDEX else rev[:10]
    text = read_file_at(repo, rev, path, error=TaskFileError)
    if text is None:
        return []
    try:
        return parse_tasks(text, source=f"{path}@{label}")
    except TaskFileError:
        if strict:
            raise
        return []


def _task_counts(tasks: Sequence[Task]) -> dict[str | None, int]:
    counts: dict[str | None, int] = {}
    for task in tasks:
        counts[task.skill] = counts.get(task.skill, 0) + 1
    return counts


def _task_changes(base: Sequence[Task], head: Sequence[Task]) -> list[EvidenceChange]:
    """Tasks by id: removed, added, or changed (with the fields that differ); their order is no change."""
    before, after = {t.id: t for t in base}, {t.id: t for t in head}
    found = [
        EvidenceChange(kind="task", change="removed", task_id=tid, skill=t.skill)
        for tid, t in before.items()
        if tid not in after
    ]
    found += [
        EvidenceChange(kind="task", change="added", task_id=tid, skill=t.skill)
        for tid, t in after.items()
        if tid not in before
    ]
    for tid in before.keys() & after.keys():
        old, new = before[tid].model_dump(), after[tid].model_dump()
        fields = [name for name in old if old[name] != new[name]]
        if fields:
            found.append(
                EvidenceChange(kind="task", change="changed", task_id=tid, skill=after[tid].skill, fields=fields)
            )
    return found


# -- the summary: what the edit does to the evidence, in one line each ---------------------------------


def skill_label(skill: str | None) -> str:
    """A skill as an evidence line names it; None (goldens/_none/, tasks with no skill) are the canaries."""
    return skill if skill is not None else "canaries"


def evidence_notes(evidence: EvidenceChanges, pairs: Sequence[PairOutcome] = ()) -> list[str]:
    """The summary's notes, most serious first: coverage removed, then what the edit removes, moves and
    changes, each counted per skill (every format lists the task ids on its first lines). Additions
    are not in the summary: they change no decision.

    With the verdict's `pairs`, a re-bless says how many of the regressions are on the goldens it
    re-blesses: a skill edit shipped with its re-blessed goldens BLOCKs on exactly the behaviour the
    re-bless approves (its replays compare with the base's goldens), and the reader should see that.
    """
    notes = [f"coverage removed: {coverage_text(evidence.coverage_removed)}"] if evidence.coverage_removed else []
    for change in ("removed", "moved", "changed"):
        for kind in ("golden", "noise_record", "task"):
            group = [c for c in evidence.changes if c.kind == kind and c.change == change]
            if group:
                notes.append(f"{EVIDENCE_LABELS[kind, change]}: {_counted(group)}{on_reblessed(group, pairs)}")
    return notes


def coverage_text(losses: Sequence[CoverageLoss]) -> str:
    """`fx (goldens 10 -> 0), gh (tasks 10 -> 9): later edits are checked against less; review the removal`."""
    parts = []
    for loss in losses:
        drops = [
            f"{what} {before} -> {after}"
            for what, before, after in (
                ("goldens", loss.goldens_base, loss.goldens_head),
                ("tasks", loss.tasks_base, loss.tasks_head),
            )
            if after < before
        ]
        parts.append(f"{skill_label(loss.skill)} ({', '.join(drops)})")
    return f"{', '.join(parts)}: later edits are checked against less; review the removal"


def skill_note(change: EvidenceChange) -> str:
    """What a line adds about a group's skill: a move's origin; for a re-bless whether its skill changed too."""
    if change.change == "moved":
        return f" (from {skill_label(change.base_skill)})"
    if change.kind == "golden" and change.change == "changed":
        return (
            " (skill also changed: replayed against the base's goldens)"
            if change.skill_changed
            else " (skill unchanged)"
        )
    return ""


def _counted(group: Sequence[EvidenceChange]) -> str:
    counts: dict[tuple[str | None, str], int] = {}
    for change in group:
        key = (change.skill, skill_note(change))
        counts[key] = counts.get(key, 0) + 1
    said = ", ".join(f"{n} of {skill_label(skill)}{note}" for (skill, note), n in counts.items())
    kept = sum(c.golden_kept for c in group)
    if kept:
        said += f"; {kept} still with a golden, which every check after merge refuses (no task for it): remove it too"
    return said


def on_reblessed(group: Sequence[EvidenceChange], pairs: Sequence[PairOutcome]) -> str:
    """`; 9 of the 9 regression(s) are on these goldens` for re-blessed or moved goldens that regressed, else ''."""
    if not group or group[0].kind != "golden" or group[0].change not in ("changed", "moved"):
        return ""
    ids = {c.task_id for c in group}
    regressions = [p.task_id for p in pairs if p.outcome == "regression"]
    mine = sum(task_id in ids for task_id in regressions)
    return f"; {mine} of the {len(regressions)} regression(s) are on these goldens" if mine else ""
