"""What a review page shows, gathered from the three places a person reviews from.

- pending: every trace `ratchet record` left under RATCHET_HOME/pending, against the project's
  current golden of the same task (if any), with Level 0's findings computed afresh, the
  warnings a check would give once they are blessed (ratchet.gate.unseen), and why `ratchet bless`
  would refuse one as thin (ratchet.bless.evidence), with the command that blesses it anyway.
- verdict: a `ratchet check --json` verdict. It carries findings, reasons, opinions, drift
  evidence and unseen notes but not the replays (`ratchet check` keeps none), so a pair shows its
  golden with the calls Level 0 named marked, and says how to record a replay at the edit; a
  replays file (EditReplays JSON, as the bench writes under results/replays/<config>/<edit>.json)
  adds the full side by side. The verdict's behavioural diff (what the edit changes, read without
  a model) is the first item, as the lines the terminal prints. Each edited skill's mutation score
  is read at the verdict's base, as the PR comment reads it (ratchet.gate.mutation.scores_at_revision).
- labels: the bench's label queue (`ratchet bench label`), each label as `render_edit` shows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from ratchet.bench.build.label_review import load_edit, render_edit, review_queue
from ratchet.bench.data.dataset import BenchPaths
from ratchet.bless.evidence import REFUSED, project_evidence
from ratchet.bless.record import pending_traces
from ratchet.config.project import Project
from ratchet.core.errors import InputError, RatchetError, validation_summary
from ratchet.core.jsonio import load_json_text, read_utf8
from ratchet.gate.evaluate import offered_tool_names
from ratchet.gate.level0 import level0_findings
from ratchet.gate.models import EditReplays, PairOutcome, Unseen, Verdict
from ratchet.gate.mutation import scores_at_revision
from ratchet.gate.revision_names import label
from ratchet.gate.unseen import unseen_notes
from ratchet.goldens.tasks import Task, load_tasks
from ratchet.goldens.trace import Trace, load_goldens, read_trace
from ratchet.outputs.edit_diff import diff_lines
from ratchet.review.models import MutationSection, ReviewItem, ReviewPage, SkillMutation
from ratchet.skills.names import optional_skill_key, skill_key
from ratchet.skills.sets import load_skills

_M = TypeVar("_M", bound=BaseModel)


def _shown(path: Path, root: Path) -> str:
    return (path.relative_to(root) if path.is_relative_to(root) else path).as_posix()


def pending_page(project: Project) -> ReviewPage:
    """Each pending trace against the current golden of its task, with what a check would warn about it."""
    goldens = load_goldens(project.path("goldens"))
    pending = pending_traces(project)
    # Only a recording leaves a pending trace, and it needed tasks.yaml: with none, nothing is read.
    tasks = load_tasks(project.path("tasks")) if pending else []
    skill_of = {task.id: task.skill for task in tasks}
    items: list[ReviewItem] = []
    traces: dict[str, Trace] = {}
    for task_id, path in pending.items():
        try:
            replay = read_trace(path)
        except RatchetError as exc:
            items.append(
                ReviewItem(
                    item_id=task_id, title=task_id, notes=[f"unreadable: {exc.one_line()}"], actions=["reject", "skip"]
                )
            )
            continue
        traces[task_id] = replay
        golden = goldens.get(task_id)
        notes = [] if golden is not None else ["no golden yet: accepting blesses the first one"]
        items.append(
            ReviewItem(
                item_id=task_id,
                title=f"{task_id}: pending trace vs golden",
                golden=golden,
                replay=replay,
                findings=level0_findings(golden, replay) if golden is not None else [],
                notes=notes,
                actions=["accept", "reject", "skip"],
            )
        )
    unseen = _pending_unseen(project, tasks, traces, goldens)
    thin = _thin(project, tasks, traces)
    for item in items:
        item.thin = thin.get(item.item_id)
        mine = {
            optional_skill_key(skill_of.get(item.item_id)),
            optional_skill_key(item.replay.fired_skill if item.replay is not None else None),
        } - {None}
        item.unseen = [note for note in unseen if skill_key(note.skill) in mine]
    return ReviewPage(
        mode="pending",
        title="Ratchet review: pending traces",
        source=_shown(project.pending_dir, project.root),
        summary=f"{len(items)} pending trace(s); accept blesses one exactly as `ratchet bless TASK_ID` does",
        items=items,
        unseen=unseen,
    )


def _pending_unseen(
    project: Project, tasks: Sequence[Task], traces: Mapping[str, Trace], goldens: Mapping[str, Trace]
) -> list[Unseen]:
    """What a check of an edit to these traces' skills would name as unseen once they are blessed.

    Asked of ratchet.gate.unseen itself, with the skills as they stand now on both sides of that
    edit and the pending traces as goldens: a skill the simulator cannot follow (its trace is what
    the simulator did, not what the skill asks), a task whose trace fired another skill or none, a
    skill no golden would exercise. A trace recorded on the simulator counts as simulated even when
    ratchet.yaml has since gone live: its golden would still be the simulator's.
    """
    if not traces:
        return []
    skills = load_skills(project.path("skills"))
    skill_of = {task.id: task.skill for task in tasks}
    named = [skill_of.get(task_id) for task_id in traces] + [trace.fired_skill for trace in traces.values()]
    changed = {skill_key(name): name for name in named if name is not None}
    simulated = project.config.upstream == "sim" or any(trace.simulated for trace in traces.values())
    return unseen_notes(
        changed=[skills[key].name if key in skills else name for key, name in sorted(changed.items())],
        base_skills=skills,
        head_skills=skills,
        tasks=tasks,
        goldens={**goldens, **traces},
        changed_files={},
        tools=offered_tool_names(project, project.root) if simulated else None,
        harness=project.config.harness.name,
    )


def _thin(project: Project, tasks: Sequence[Task], traces: Mapping[str, Trace]) -> dict[str, str]:
    """Task id -> why `ratchet bless` refuses its pending trace as thin, in bless's own words.

    The evidence bless_pending reads, over the same working-tree skills and world. Only a task tasks.yaml
    routes to a skill is read: a canary is exempt, and bless refuses a task it does not know for that.
    """
    skill_of = {task.id: task.skill for task in tasks}
    routed = {task_id: trace for task_id, trace in traces.items() if skill_of.get(task_id)}
    if not routed:
        return {}
    evidence = project_evidence(project)
    found = {task_id: evidence.exercise(trace, skill_of[task_id]) for task_id, trace in routed.items()}
    return {task_id: exercise.line() + REFUSED for task_id, exercise in found.items() if exercise.thin}


def _mutation(project: Project, verdict: Verdict) -> MutationSection | None:
    """The edited skills' saved mutation scores at the verdict's base: an edit cannot bring its own."""
    if not verdict.skills_changed:
        return None
    scores = scores_at_revision(project.root, verdict.base, verdict.skills_changed)
    if isinstance(scores, str):
        return MutationSection(base=label(verdict.base), unread=scores)
    skills = [SkillMutation(skill=skill, score=scores.get(skill)) for skill in verdict.skills_changed]
    return MutationSection(base=label(verdict.base), skills=skills)


def _read_model(path: Path, model: type[_M], what: str) -> _M:
    raw = load_json_text(read_utf8(path, error=InputError), source=str(path), error=InputError)
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise InputError(f"not {what}: {validation_summary(exc)}", path=path) from None


def read_verdict(path: Path) -> Verdict:
    """A verdict as `ratchet check --json` writes it; InputError naming the file otherwise."""
    return _read_model(path, Verdict, "a verdict (`ratchet check --json`)")


def read_edit_replays(path: Path) -> EditReplays:
    """An EditReplays file (the bench's results/replays/<config>/<edit>.json)."""
    return _read_model(path, EditReplays, "a replays file (EditReplays)")


def _pair_item(pair: PairOutcome, golden: Trace | None, replay: Trace | None, head: str) -> ReviewItem:
    notes: list[str] = []
    if golden is None:
        notes.append("the golden is not in this project's goldens/ any more")
    if replay is None:
        # `check` writes no replays file, so the page names what does give one today: a recording at the head.
        where = (
            "in the working tree holding the staged edit"
            if head.startswith("<")
            else (f"in a checkout of the edit ({head[:10]})")
        )
        notes.append(
            "replay not kept by `ratchet check`: the golden's calls are marked by Level 0's findings. "
            f"To see a replay beside the golden, run `ratchet record {pair.task_id}` {where}, then "
            "`ratchet review`: a fresh replay, not the one this check judged; it waits in pending/ and "
            "is blessed only if you accept it"
        )
    return ReviewItem(
        item_id=pair.task_id,
        title=f"{pair.task_id}: {pair.outcome} ({pair.selected_because})",
        golden=golden,
        replay=replay,
        findings=pair.findings,
        outcome=pair.outcome,
        decided_by=pair.decided_by,
        reason=pair.reason,
        opinions=pair.opinions,
        drift=pair.drift,
        notes=notes,
    )


def verdict_page(project: Project, verdict_file: Path, replays_file: Path | None = None) -> ReviewPage:
    """A check's verdict, pair by pair (read only: a verdict has nothing to bless)."""
    verdict = read_verdict(verdict_file)
    replays = read_edit_replays(replays_file).replays if replays_file is not None else {}
    goldens = load_goldens(project.path("goldens"))
    items = [
        _pair_item(pair, goldens.get(pair.task_id), replays.get(pair.task_id), verdict.head) for pair in verdict.pairs
    ]
    changes = diff_lines(verdict)
    if changes:  # what the edit changes, read without a model, before the pairs (ratchet.outputs.edit_diff)
        items.insert(
            0,
            ReviewItem(
                item_id="diff",
                title="What the edit changes (ratchet diff)",
                text="\n".join(str(line) for line in changes),
            ),
        )
    return ReviewPage(
        mode="verdict",
        title=f"Ratchet review: {verdict.decision}",
        source=_shown(verdict_file, project.root),
        summary=f"{verdict.decision}: {verdict.summary} (base {verdict.base[:12]}, head {verdict.head[:12]}, "
        f"skills {', '.join(verdict.skills_changed) or 'none'})",
        items=items,
        simulated=verdict.simulated,
        unseen=verdict.unseen,
        mutation=_mutation(project, verdict),
        triggers=verdict.triggers,
    )


def labels_page(paths: BenchPaths) -> ReviewPage:
    """The bench's label queue: every label still waiting for a review."""
    items: list[ReviewItem] = []
    for queued in review_queue(paths):
        if queued.review is not None:
            continue
        edit, label = load_edit(paths, queued.label.edit_id)
        notes = ["stale: the edit changed since its last review"] if queued.stale else []
        items.append(
            ReviewItem(
                item_id=edit.id,
                title=f"{edit.id} ({edit.type}): expect {label.expected_decision}",
                text=render_edit(paths, edit, label),
                notes=notes,
                actions=["accept", "reject", "skip"],
            )
        )
    return ReviewPage(
        mode="labels",
        title="Ratchet review: label queue",
        source=_shown(paths.root / "labels", paths.root),
        summary=f"{len(items)} label(s) to review; accept agrees, reject records your decision "
        "(as `ratchet bench label`)",
        items=items,
    )
