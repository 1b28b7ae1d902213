"""Paired, seeded, stratified sampling: the same --seed gives the same subset in every configuration.

Each item gets a key from its stratum rank and a hash of (seed, id): sorting by the key and
taking the first N spreads the sample across strata in proportion to their sizes, and a
smaller N is always a prefix of a larger one, so `ultra_only --limit 10` re-judges edits that
`cascade --limit 40` replayed. Seeds come from ids via hashlib, never the clock or `random`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from ratchet.core.ids import derived_seed as derived_seed


def seeded_hash(seed: int, key: str) -> str:
    """A stable pseudo-random rank for `key` under `seed`."""
    return hashlib.sha256(f"ratchet-bench\0{seed}\0{key}".encode()).hexdigest()


def stratified_sample(items: Iterable[tuple[str, str]], limit: int | None, seed: int) -> list[str]:
    """Ids of a stratified sample of (id, stratum) items, sorted; all of them when `limit` is None."""
    strata: dict[str, list[str]] = {}
    for item_id, stratum in items:
        strata.setdefault(stratum, []).append(item_id)
    if limit is None:
        return sorted(i for ids in strata.values() for i in ids)
    keyed: list[tuple[float, str, str, str]] = []
    for stratum, ids in sorted(strata.items()):
        ranked = sorted(ids, key=lambda i: seeded_hash(seed, i))
        for rank, item_id in enumerate(ranked):
            keyed.append(((rank + 0.5) / len(ranked), seeded_hash(seed, stratum), stratum, item_id))
    keyed.sort()
    return sorted(item_id for *_, item_id in keyed[: max(0, limit)])
