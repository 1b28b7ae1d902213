"""In-flight coalescing: identical requests in flight at once share one upstream call.

Why: under a thread pool, two replays can ask the same request before either answer is
cached. Run one after another, the second is a cache hit; run together, both would miss
and both would pay. `InFlight.share` makes the first caller of a key the leader (it does the
work); every caller of the same key that arrives while the leader works waits for the
leader's outcome instead. The waiters pay nothing and the ledger matches what the upstream
saw. A leader's failure is every waiter's failure: each waiter raises its own copy of the
leader's exception (same type, same message), so a shared failure reads the same in every
pair it failed.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["InFlight"]

T = TypeVar("T")


@dataclass
class _Flight(Generic[T]):
    """One key's work in progress: done when the leader has an answer or an exception."""

    done: threading.Event = field(default_factory=threading.Event)
    result: T | None = None
    error: BaseException | None = None
    waiters: int = 0


class InFlight(Generic[T]):
    """A per-key map of work in progress (a "single flight"); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._flights: dict[str, _Flight[T]] = {}

    def share(self, key: str, work: Callable[[], T]) -> tuple[T, bool]:
        """`work()`'s result for `key` and whether it was shared (True: another caller's call answered).

        The leader's key is removed before its waiters wake, so a caller arriving afterwards
        leads a new flight; the caller is expected to look in its cache first (the gateway
        does this as the leader, see GatewayModel.complete).
        """
        with self._lock:
            flight = self._flights.get(key)
            leader = flight is None
            if flight is None:
                flight = self._flights[key] = _Flight()
            else:
                flight.waiters += 1
        if not leader:
            flight.done.wait()
            if flight.error is not None:
                raise _copy_of(flight.error) from None
            return flight.result, True  # type: ignore[return-value]  # set whenever error is None
        try:
            flight.result = work()
        except BaseException as exc:
            flight.error = exc
            raise
        finally:
            with self._lock:
                del self._flights[key]
            flight.done.set()
        return flight.result, False

    def waiting(self, key: str) -> int:
        """How many callers wait on `key`'s flight now (0 when none is in flight); for tests."""
        with self._lock:
            flight = self._flights.get(key)
            return flight.waiters if flight is not None else 0


def _copy_of(error: BaseException) -> BaseException:
    """The leader's exception for one waiter: a copy, so concurrent raises do not share a traceback."""
    try:
        return copy.copy(error).with_traceback(None)
    except Exception:  # an exception type that cannot be copied: the original is still the answer
        return error
