"""Labels from construction, the review sample, and the labels the metrics score against.

R1-R6: the affected goldens are the pairs that diverged in the manifestation replay, expected
BLOCK; diverging pairs are `regression`, the other replayed pairs `same`. N0: every replayed
pair `same`, PASS. D1: pairs whose replay moved are `drift`, the rest `same`, PASS.
Review: every control, and a seeded 20% (rounded up) of each R type, chosen by a hash of the
edit id so the sample does not depend on build order.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence

from ratchet.bench.models import CONTROL_TYPES, REGRESSION_TYPES, Edit, Label, Review, edit_hash
from ratchet.bench.replays import PairCheck
from ratchet.gate.models import Outcome

REVIEW_SHARE = 0.2


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
        edit_id=edit.id, type=edit.type, skill=edit.skill, affected_goldens=affected,
        expected_decision=decision, expected_pairs=pairs, edit_hash=edit_hash(edit),
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
