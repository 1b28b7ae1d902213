"""Base and head instructions paired up: the same, moved, changed, removed and added.

Why this order: an instruction whose text (layout aside) is in both revisions is the same wherever it
moved, so a reflow, a re-padded table, renumbered steps or reordered bullets pair up completely
before anything else is looked at. Only numbered steps keep an order that matters: a step that
now runs before one it used to follow is `moved`. What is left pairs by similarity (frontmatter
fields by key): a pair is an instruction that changed; the rest were removed or added.
"""

from __future__ import annotations

import bisect
from collections import defaultdict, deque
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from ratchet.diff.instructions import Instruction

SIMILAR = 0.5
"""Word-level similarity (difflib ratio) from which an unmatched base and head instruction are one, changed."""
MAX_PAIRINGS = 40_000
"""Past this many candidate pairs (a rewrite), only nearby instructions are compared: bounded time."""

Pair = tuple[Instruction, Instruction]


@dataclass
class Alignment:
    """How the head's instructions relate to the base's."""

    same: list[Pair] = field(default_factory=list)
    moved: list[Pair] = field(default_factory=list)
    changed: list[Pair] = field(default_factory=list)
    removed: list[Instruction] = field(default_factory=list)
    added: list[Instruction] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """Nothing the model reads differs: every instruction pairs with an identical one, in step order."""
        return not (self.moved or self.changed or self.removed or self.added)


def align(base: list[Instruction], head: list[Instruction]) -> Alignment:
    """Pair `base` with `head` (see the module docstring)."""
    result = Alignment()
    waiting: dict[tuple[str, str], deque[int]] = defaultdict(deque)
    for index, instruction in enumerate(base):
        waiting[instruction.key].append(index)
    base_used = [False] * len(base)
    head_match: list[int | None] = [None] * len(head)
    for index, instruction in enumerate(head):
        queue = waiting.get(instruction.key)
        if queue:
            found = queue.popleft()
            head_match[index] = found
            base_used[found] = True
    matched = [(b, h) for h, b in enumerate(head_match) if b is not None]
    out_of_order = _out_of_order([(b, h) for b, h in matched if base[b].ordered and head[h].ordered])
    for b, h in matched:
        (result.moved if (b, h) in out_of_order else result.same).append((base[b], head[h]))
    left_base = [i for i, used in enumerate(base_used) if not used]
    left_head = [i for i, b in enumerate(head_match) if b is None]
    for b, h in _pair_similar(base, head, left_base, left_head):
        result.changed.append((base[b], head[h]))
        left_base.remove(b)
        left_head.remove(h)
    result.removed = [base[i] for i in left_base]
    result.added = [head[i] for i in left_head]
    return result


def _out_of_order(pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """The (base, head) index pairs outside a longest run that keeps the base order (a step that moved)."""
    if len(pairs) < 2:
        return set()
    ordered = sorted(pairs, key=lambda pair: pair[1])
    bases = [b for b, _ in ordered]
    tails: list[int] = []  # tails[k]: the smallest base index ending an increasing run of length k + 1
    tail_at: list[int] = []
    previous = [-1] * len(bases)
    for position, value in enumerate(bases):
        k = bisect.bisect_left(tails, value)
        if k == len(tails):
            tails.append(value)
            tail_at.append(position)
        else:
            tails[k], tail_at[k] = value, position
        previous[position] = tail_at[k - 1] if k else -1
    keep: set[int] = set()
    position = tail_at[-1] if tail_at else -1
    while position >= 0:
        keep.add(position)
        position = previous[position]
    return {pair for position, pair in enumerate(ordered) if position not in keep}


def _group(instruction: Instruction) -> str:
    """Only instructions of one group can be the same instruction, changed."""
    if instruction.kind == "field":
        return f"field:{instruction.field_name}"
    if instruction.kind in ("code", "heading", "delimiter"):
        return instruction.kind
    return "text"


def _pair_similar(
    base: list[Instruction], head: list[Instruction], left_base: list[int], left_head: list[int]
) -> list[tuple[int, int]]:
    """Greedy pairs of unmatched instructions, most similar first; fields pair by key whatever their text."""
    candidates: list[tuple[float, int, int, int]] = []
    words = {("b", i): base[i].text.split() for i in left_base} | {("h", i): head[i].text.split() for i in left_head}
    nearby = len(left_base) * len(left_head) > MAX_PAIRINGS
    for b in left_base:
        for h in left_head:
            if _group(base[b]) != _group(head[h]):
                continue
            distance = abs(b / max(len(base), 1) - h / max(len(head), 1))
            if nearby and distance > 0.05:
                continue
            if base[b].kind == "field":
                score = 1.0
            else:
                matcher = SequenceMatcher(None, words[("b", b)], words[("h", h)], autojunk=False)
                if matcher.real_quick_ratio() < SIMILAR or matcher.quick_ratio() < SIMILAR:
                    continue
                score = matcher.ratio()
                if score < SIMILAR:
                    continue
            candidates.append((-score, round(distance * 1_000_000), b, h))
    candidates.sort()
    pairs: list[tuple[int, int]] = []
    taken_base: set[int] = set()
    taken_head: set[int] = set()
    for _, _, b, h in candidates:
        if b not in taken_base and h not in taken_head:
            pairs.append((b, h))
            taken_base.add(b)
            taken_head.add(h)
    return sorted(pairs, key=lambda pair: pair[1])
