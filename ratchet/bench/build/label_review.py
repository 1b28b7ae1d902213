"""Human review of labels: the queue, recording a verdict, and what a reviewer is shown.

A review is pinned to the edit's hash. A rebuild that produces the same edit keeps it; an
edit that changed makes it stale, shown as such in the queue, and it no longer applies.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ratchet.bench.build.labels import current_review
from ratchet.bench.data.dataset import BenchPaths, read_edits, read_labels, read_reviews, write_reviews
from ratchet.bench.data.models import Edit, Label, Review, edit_hash
from ratchet.core.errors import InputError
from ratchet.gate.models import Decision, Outcome

DECISIONS: tuple[Decision, ...] = ("PASS", "WARN", "BLOCK")
OUTCOMES: tuple[Outcome, ...] = ("same", "pass", "drift", "regression", "unsure", "error")


@dataclass(frozen=True)
class QueueItem:
    label: Label
    review: Review | None
    stale: bool


def _labels(paths: BenchPaths) -> list[Label]:
    labels = read_labels(paths.labels)
    if labels is None:
        raise InputError(f"no labels yet at {paths.rel(paths.labels)}: run `ratchet bench build` first")
    return labels.labels


def review_queue(paths: BenchPaths) -> list[QueueItem]:
    """Every label marked for review, with its current review (if any) and whether an old one went stale."""
    reviews = {r.edit_id: r for r in read_reviews(paths.reviews).reviews}
    items: list[QueueItem] = []
    for label in _labels(paths):
        if not label.review_required:
            continue
        review = current_review(label, reviews)
        stale = review is None and label.edit_id in reviews
        items.append(QueueItem(label, review, stale))
    return items


def parse_pairs(values: list[str]) -> dict[str, Outcome]:
    """`task_id=outcome` items -> {task_id: outcome}."""
    pairs: dict[str, Outcome] = {}
    for value in values:
        task_id, sep, outcome = value.partition("=")
        if not sep or not task_id.strip() or outcome.strip() not in OUTCOMES:
            raise InputError(f"--pair wants TASK_ID=OUTCOME with OUTCOME one of {', '.join(OUTCOMES)}, not {value!r}")
        pairs[task_id.strip()] = outcome.strip()  # type: ignore[assignment]
    return pairs


def load_edit(paths: BenchPaths, edit_id: str) -> tuple[Edit, Label]:
    labels = {label.edit_id: label for label in _labels(paths)}
    if edit_id not in labels:
        raise InputError(f"no label for edit {edit_id!r} in {paths.rel(paths.labels)}")
    edits = read_edits(paths.edits)
    if edit_id not in edits:
        raise InputError(f"edit {edit_id!r} is labeled but {paths.rel(paths.edits)}/{edit_id}.json is missing: rebuild")
    return edits[edit_id], labels[edit_id]


def record_review(
    paths: BenchPaths,
    edit_id: str,
    *,
    agree: bool,
    decision: Decision | None = None,
    pairs: dict[str, Outcome] | None = None,
    reviewer: str = "",
    note: str = "",
) -> Review:
    """Write (or replace) the review of one edit in labels/reviews.json."""
    edit, label = load_edit(paths, edit_id)
    pairs = dict(pairs or {})
    if agree and (decision is not None or pairs):
        raise InputError("--agree takes no --decision or --pair; use --disagree to correct the label")
    if not agree and decision is None and not pairs:
        raise InputError("--disagree needs --decision PASS|WARN|BLOCK and/or --pair TASK_ID=OUTCOME")
    unknown = [t for t in pairs if t not in label.expected_pairs]
    if unknown:
        raise InputError(f"--pair names task(s) not replayed for {edit_id}: {', '.join(unknown)}")
    review = Review(
        edit_id=edit_id,
        edit_hash=edit_hash(edit),
        verdict="agree" if agree else "disagree",
        decision=decision,
        pairs=pairs,
        reviewer=reviewer,
        note=note,
    )
    file = read_reviews(paths.reviews)
    file.reviews = [r for r in file.reviews if r.edit_id != edit_id] + [review]
    write_reviews(paths.reviews, file)
    return review


def _original(paths: BenchPaths, edit: Edit) -> str:
    path = paths.skills / edit.skill / "SKILL.md"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def render_edit(paths: BenchPaths, edit: Edit, label: Label) -> str:
    """The skill diff, the world overlay (D1) and the labels, as a reviewer sees them."""
    diff = difflib.unified_diff(
        _original(paths, edit).splitlines(keepends=True),
        edit.skill_md.splitlines(keepends=True),
        fromfile=f"a/{edit.skill}/SKILL.md",
        tofile=f"b/{edit.skill}/SKILL.md",
        n=1,
    )
    lines = [f"── {edit.id} ({edit.type}): {edit.description}", "".join(diff).rstrip("\n") or "(no text change)"]
    if edit.world_overlay is not None:
        lines.append(f"world overlay: {edit.world_overlay}")
    lines.append(f"expected decision: {label.expected_decision}")
    lines.append("expected pairs: " + (", ".join(f"{t}={o}" for t, o in label.expected_pairs.items()) or "none"))
    return "\n".join(lines)
