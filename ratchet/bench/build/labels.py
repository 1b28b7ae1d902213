"""Labels from construction, the review sample, and the labels the metrics score against.

R1-R6: the affected goldens are the pairs that diverged in the manifestation replay, expected
BLOCK; diverging pairs are `regression`, the other replayed pairs `same`. N0: every replayed
pair `same`, PASS. D1: pairs whose replay moved are `drift`, the rest `same`, PASS.
Review: every control, and a seeded 20% (rounded up) of each R type, chosen by a hash of the
edit id so the sample does not depend on build order. Labels and edits match one to one
(checked_labels): every edit has exactly one label, every label names an edit.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ratchet.bench.build.replays import PairCheck
from ratchet.bench.data.dataset import BenchPaths, read_edits, read_labels
from ratchet.bench.data.models import (
    CONTROL_TYPES,
    REGRESSION_TYPES,
    Edit,
    Label,
    LabelsFile,
    Review,
    edit_hash,
)
from ratchet.core.errors import InputError
from ratchet.gate.models import Outcome

REVIEW_SHARE = 0.2
REBUILD = "rebuild with `ratchet bench build`"


def label_for(edit: Edit, checks: Sequence[PairCheck]) -> Label:
    """The construction label of one edit from its replays."""
    pairs: dict[str, Outcome] = {}
    if edit.type in REGRESSION_TYPES:
        for check in checks:
            pairs[check.task_id] = "regression" if check.diverged else "same"
        affected = [c.task_id for c in checks if c.diverged]
        decision = "BLOCK"
    elif edit.type == "D1":
        for check in checks:
            pairs[check.task_id] = "drift" if check.moved else "same"
        affected = [c.task_id for c in checks]
        decision = "PASS"
    else:
        for check in checks:
            pairs[check.task_id] = "same"
        affected = [c.task_id for c in checks]
        decision = "PASS"
    return Label(
        edit_id=edit.id,
        type=edit.type,
        skill=edit.skill,
        affected_goldens=affected,
        expected_decision=decision,
        expected_pairs=pairs,
        edit_hash=edit_hash(edit),
    )


def _review_rank(edit_id: str) -> str:
    return hashlib.sha256(f"review|{edit_id}".encode()).hexdigest()


def mark_reviews(labels: Iterable[Label]) -> list[Label]:
    """All controls, plus ceil(20%) of each R type by a seeded hash of the id."""
    labels = list(labels)
    chosen: set[str] = {label.edit_id for label in labels if label.type in CONTROL_TYPES}
    for edit_type in REGRESSION_TYPES:
        ids = sorted((label.edit_id for label in labels if label.type == edit_type), key=_review_rank)
        chosen.update(ids[: math.ceil(len(ids) * REVIEW_SHARE)])
    return [label.model_copy(update={"review_required": label.edit_id in chosen}) for label in labels]


def current_review(label: Label, reviews: Mapping[str, Review]) -> Review | None:
    """The review of this exact edit, or None (no review, or one of an edit that has since changed)."""
    review = reviews.get(label.edit_id)
    if review is None or review.edit_hash != label.edit_hash:
        return None
    return review


def effective_labels(labels: Iterable[Label], reviews: Iterable[Review]) -> dict[str, Label]:
    """The labels metrics score against: a current disagreeing review's decision and pairs win."""
    by_edit = {review.edit_id: review for review in reviews}
    result: dict[str, Label] = {}
    for label in labels:
        review = current_review(label, by_edit)
        if review is not None and review.verdict == "disagree":
            pairs = {**label.expected_pairs, **review.pairs}
            affected = list(label.affected_goldens)
            for task_id, outcome in review.pairs.items():
                if outcome in ("regression", "drift") and task_id not in affected:
                    affected.append(task_id)
            label = label.model_copy(
                update={
                    "expected_decision": review.decision or label.expected_decision,
                    "expected_pairs": pairs,
                    "affected_goldens": affected,
                }
            )
        result[label.edit_id] = label
    return result


def label_problems(labels: Sequence[Label], edit_ids: Iterable[str], *, edits_dir: str) -> list[str]:
    """Where labels and edits do not match one to one: labels naming no edit, duplicate labels, unlabeled edits.

    The metrics score each edit against one label (effective_labels keeps the last of two, the
    review queue shows both), so any of these silently changes what the benchmark measures.
    """
    known = set(edit_ids)
    counts = Counter(label.edit_id for label in labels)
    unknown = [f"label {edit_id} names no edit in {edits_dir}: {REBUILD}" for edit_id in counts if edit_id not in known]
    doubled = [
        f"edit {edit_id} has {n} labels: {REBUILD}" for edit_id, n in counts.items() if n > 1 and edit_id in known
    ]
    unlabeled = [
        f"edit {edit_id} ({edits_dir}/{edit_id}.json) has no label: {REBUILD}"
        for edit_id in sorted(known)
        if edit_id not in counts
    ]
    return [*unknown, *doubled, *unlabeled]


def checked_labels(paths: BenchPaths) -> tuple[LabelsFile | None, dict[str, Edit]]:
    """labels/labels.json and bench/edits/, read and matched one to one; InputError naming the first mismatch.

    No labels file is fine while there is no edit either (nothing built yet): (None, {}).
    """
    labels, edits = read_labels(paths.labels), read_edits(paths.edits)
    where = paths.rel(paths.labels)
    if labels is None:
        if edits:
            raise InputError(
                f"no labels for the {len(edits)} edit(s) in {paths.rel(paths.edits)}: {REBUILD}", path=where
            )
        return None, edits
    problems = label_problems(labels.labels, edits, edits_dir=paths.rel(paths.edits))
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InputError(problems[0] + more, path=where)
    return labels, edits
