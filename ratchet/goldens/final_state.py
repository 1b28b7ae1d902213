"""A run's final state: the net effect of its tool calls on each world path they changed.

Level 0 compares what a replay left behind with what its golden left behind, not only the calls that got
there (ratchet.gate.state_diff). The net effect per path takes the first change's `before` and the last
change's `after`, then keeps only what differs between them:

- lists: the items added and the items removed, as multisets (each sorted by its canonical JSON), so
  two runs that append the same messages in another order, or retry a read, leave the same state;
- mappings: each key on its own, as `path.key` (recursively), so one changed field is one entry;
- anything else: `{"from": before, "to": after}`.

A path whose net effect is nothing (a value written back, a list that only reordered) is dropped, and
rows that were already in the world are in neither `added` nor `removed`: a world overlay that moved them
is not something the run did. The digest is sha256 over the canonical effects.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable
from typing import Any, Protocol

from pydantic import BaseModel, Field

from ratchet.core.jsonio import canonical_dumps, digest


class FinalState(BaseModel):
    """The world a run left behind, as the net effect of its calls on each path they changed.

    Order-free: two runs that make the same changes in another order have the same final state; a run
    that says the same thing and leaves the world different does not.
    """

    digest: str = Field(description="sha256 over the canonical `effects`.")
    effects: dict[str, Any] = Field(
        default_factory=dict, description="World path -> its net change: items added/removed, or from/to."
    )


class Change(Protocol):
    """One recorded change (ratchet.goldens.trace.StateChange has this shape)."""

    @property
    def path(self) -> str: ...
    @property
    def before(self) -> Any: ...
    @property
    def after(self) -> Any: ...


_ABSENT: Any = object()
"""A mapping key that is not there (a key set to null is there)."""


def _key(value: Any) -> str:
    return canonical_dumps(value, indent=None)


def _json(value: Any) -> Any:
    """`value` as the trace's JSON file holds it: a float JSON cannot hold (NaN, infinities) reads as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json(item) for item in value]
    return value


def _multiset_minus(items: list[Any], minus: list[Any]) -> list[Any]:
    """`items` less `minus` as multisets, sorted by canonical JSON (each item dumped once: every trace that
    writes computes this, and a list may be long)."""
    left = Counter(_key(other) for other in minus)
    kept: list[tuple[str, Any]] = []
    for item in items:
        key = _key(item)
        if left[key]:
            left[key] -= 1
        else:
            kept.append((key, item))
    return [item for _, item in sorted(kept, key=lambda pair: pair[0])]


def _shaped(kind: type, before: Any, after: Any) -> bool:
    """Both are `kind`, None or absent, and one of them is `kind`."""
    return all(isinstance(v, kind | None) or v is _ABSENT for v in (before, after)) and (
        isinstance(before, kind) or isinstance(after, kind)
    )


def _child(path: str, key: str) -> str:
    """`path.key`, or `path["key"]` for a key a dot would misread (one with a dot, a bracket or a quote, or
    none at all): {"a.md": x} and {"a": {"md": x}} are different worlds."""
    plain = key and not any(mark in key for mark in '.[]"')
    return f"{path}.{key}" if plain else f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _effects(path: str, before: Any, after: Any, into: dict[str, Any]) -> None:
    """The net effect of `before` -> `after` at `path`, added to `into` (nothing when they are equal)."""
    if before is not _ABSENT and after is not _ABSENT and _key(before) == _key(after):
        return
    # A path that did not exist reads as an empty mapping or list beside one that does.
    if _shaped(dict, before, after):
        old = before if isinstance(before, dict) else {}
        new = after if isinstance(after, dict) else {}
        for key in sorted(set(old) | set(new)):
            _effects(_child(path, key), old.get(key, _ABSENT), new.get(key, _ABSENT), into)
        return
    if _shaped(list, before, after):
        old_items = before if isinstance(before, list) else []
        new_items = after if isinstance(after, list) else []
        added, removed = _multiset_minus(new_items, old_items), _multiset_minus(old_items, new_items)
        if added or removed:
            into[path] = {"added": added, "removed": removed}
        return
    # An absent side is left out: {"to": None} is a key set to null where there was none.
    into[path] = {side: value for side, value in (("from", before), ("to", after)) if value is not _ABSENT}


def _set(tree: Any, parts: list[str], value: Any) -> Any:
    """`tree` with the value at `parts` (a child path below it) replaced by `value`."""
    if not parts:
        return value
    node = dict(tree) if isinstance(tree, dict) else {}
    node[parts[0]] = _set(node.get(parts[0]), parts[1:], value)
    return node


def _below(path: str, root: str) -> list[str] | None:
    """The parts of `path` below `root` ([] for root itself), or None when it is not at or below it."""
    if path == root:
        return []
    return path[len(root) + 1 :].split(".") if path.startswith(root + ".") else None


def touches(change_path: str, effect_path: str) -> bool:
    """Whether a change recorded at `change_path` wrote the world at net-effect path `effect_path` (one is at or
    below the other)."""
    return any(
        a == b or a.startswith(b + ".") or a.startswith(b + "[")
        for a, b in ((effect_path, change_path), (change_path, effect_path))
    )


def net_effects(changes: Iterable[Change]) -> dict[str, Any]:
    """Path -> its net effect over `changes`, in the order they were made (see the module docstring).

    A path written whole and a path below it written alone (a declared tool's `set:` of a record and
    another's of one field) are one world: their changes are applied, in order, to the outermost path
    changed, whose value before the first change and after the last are then compared.
    """
    made = [(change.path, _json(change.before), _json(change.after)) for change in changes]
    paths = {path for path, _, _ in made}
    roots = {path for path in paths if not any(_below(path, other) for other in paths - {path})}
    effects: dict[str, Any] = {}
    for root in sorted(roots):
        mine = [(parts, before, after) for path, before, after in made if (parts := _below(path, root)) is not None]
        whole = [n for n, (parts, _, _) in enumerate(mine) if not parts]
        first = mine[whole[0]][1]
        for parts, before, _ in reversed(mine[: whole[0]]):  # fields written before the whole: their old values
            first = _set(first, parts, before)
        last = mine[whole[-1]][2]
        for parts, _, after in mine[whole[-1] + 1 :]:
            last = _set(last, parts, after)
        _effects(root, first, last, effects)
    return dict(sorted(effects.items()))


def final_state_of(changes: Iterable[Change]) -> FinalState | None:
    """The final state `changes` leave, or None when their net effect is nothing."""
    effects = net_effects(changes)
    return FinalState(digest=digest(effects), effects=effects) if effects else None
