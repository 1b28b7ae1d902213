"""Values kept for a process by the key that alone decides them: parsed world files and merged worlds
(ratchet.world.state), a skill body's asks (ratchet.gate.thin).

A check, each bench configuration and each mutant read the same files from a tree of their own (an
exported base, a scratch checkout): the paths differ, the texts do not. So what is made from a text is
kept by the text, a bounded few at a time, and a changed text is a new key.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """At most `size` values by key (the oldest dropped first), safe to share between threads. `make` must
    depend on nothing but the key; a value it fails to make (an exception) is not kept."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._kept: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K, make: Callable[[], V]) -> V:
        with self._lock:
            if key in self._kept:
                return self._kept[key]
        value = make()  # outside the lock: two threads may both make it, and get equal values
        with self._lock:
            if key not in self._kept and len(self._kept) >= self._size:
                self._kept.pop(next(iter(self._kept)))
            self._kept[key] = value
        return value
