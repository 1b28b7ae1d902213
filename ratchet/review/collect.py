"""What a review page shows, gathered from the three places a person reviews from.

- pending: every trace `ratchet record` left under RATCHET_HOME/pending, against the project's
  current golden of the same task (if any), with Level 0's findings computed afresh.
- verdict: a `ratchet check --json` verdict. It carries findings, reasons, opinions and drift
  evidence but not the replays (`ratchet check` keeps none), so a pair shows its golden with the
  calls Level 0 named marked; a replays file (EditReplays JSON, as the bench writes under
  results/replays/<config>/<edit>.json) adds the full side by side.
- labels: the bench's label queue (`ratchet bench label`), each label as `render_edit` shows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from ratchet.bench.dataset import BenchPaths
from ratchet.bench.review import load_edit, render_edit, review_queue
from ratchet.config import Project
from ratchet.errors import InputError, RatchetError, validation_summary
from ratchet.gate.level0 import level0_findings
from ratchet.gate.models import EditReplays, PairOutcome, Verdict
from ratchet.jsonio import load_json_text, read_utf8
from ratchet.recording import pending_traces
from ratchet.review.models import ReviewItem, ReviewPage
from ratchet.trace import Trace, load_goldens, read_trace

_M = TypeVar("_M", bound=BaseModel)


def _shown(path: Path, root: Path) -> str:
    return (path.relative_to(root) if path.is_relative_to(root) else path).as_posix()


def pending_page(project: Project) -> ReviewPage:
    """Each pending trace against the current golden of its task."""
    goldens = load_goldens(project.path("goldens"))
    items: list[ReviewItem] = []
    for task_id, path in pending_traces(project).items():
        try:
            replay = read_trace(path)
        except RatchetError as exc:
            items.append(ReviewItem(item_id=task_id, title=task_id, notes=[f"unreadable: {exc.one_line()}"],
                                    actions=["reject", "skip"]))
            continue
        golden = goldens.get(task_id)
        notes = [] if golden is not None else ["no golden yet: accepting blesses the first one"]
        items.append(ReviewItem(
            item_id=task_id, title=f"{task_id}: pending trace vs golden", golden=golden, replay=replay,
            findings=level0_findings(golden, replay) if golden is not None else [], notes=notes,
            actions=["accept", "reject", "skip"],
        ))
    return ReviewPage(
        mode="pending", title="Ratchet review: pending traces", source=_shown(project.pending_dir, project.root),
        summary=f"{len(items)} pending trace(s); accept blesses one exactly as `ratchet bless TASK_ID` does",
        items=items,
    )


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


def _pair_item(pair: PairOutcome, golden: Trace | None, replay: Trace | None) -> ReviewItem:
    notes: list[str] = []
    if golden is None:
        notes.append("the golden is not in this project's goldens/ any more")
    if replay is None:
        notes.append("replay not kept by `ratchet check`: the golden's calls are marked by Level 0's findings; "
                     "pass --replays FILE to see the replay side by side")
    return ReviewItem(
        item_id=pair.task_id, title=f"{pair.task_id}: {pair.outcome} ({pair.selected_because})", golden=golden,
        replay=replay, findings=pair.findings, outcome=pair.outcome, decided_by=pair.decided_by, reason=pair.reason,
        opinions=pair.opinions, drift=pair.drift, notes=notes,
    )


def verdict_page(project: Project, verdict_file: Path, replays_file: Path | None = None) -> ReviewPage:
    """A check's verdict, pair by pair (read only: a verdict has nothing to bless)."""
    verdict = read_verdict(verdict_file)
    replays = read_edit_replays(replays_file).replays if replays_file is not None else {}
    goldens = load_goldens(project.path("goldens"))
    items = [_pair_item(pair, goldens.get(pair.task_id), replays.get(pair.task_id)) for pair in verdict.pairs]
    return ReviewPage(
        mode="verdict", title=f"Ratchet review: {verdict.decision}", source=_shown(verdict_file, project.root),
        summary=f"{verdict.decision}: {verdict.summary} (base {verdict.base[:12]}, head {verdict.head[:12]}, "
        f"skills {', '.join(verdict.skills_changed) or 'none'})",
        items=items, simulated=verdict.simulated,
    )


def labels_page(paths: BenchPaths) -> ReviewPage:
    """The bench's label queue: every label still waiting for a review."""
    items: list[ReviewItem] = []
    for queued in review_queue(paths):
        if queued.review is not None:
            continue
        edit, label = load_edit(paths, queued.label.edit_id)
        notes = ["stale: the edit changed since its last review"] if queued.stale else []
        items.append(ReviewItem(
            item_id=edit.id, title=f"{edit.id} ({edit.type}): expect {label.expected_decision}",
            text=render_edit(paths, edit, label), notes=notes, actions=["accept", "reject", "skip"],
        ))
    return ReviewPage(
        mode="labels", title="Ratchet review: label queue", source=_shown(paths.root / "labels", paths.root),
        summary=f"{len(items)} label(s) to review; accept agrees, reject records your decision "
        "(as `ratchet bench label`)",
        items=items,
    )
