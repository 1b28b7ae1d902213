"""One bounded pool of worker threads for a run: edits, and the pairs inside each edit.

Why one pool: a pool per edit (the bench's edits) left an edit's pairs running one after
another, so the last few edits of a run kept most workers idle; a pool per level multiplies
the bound. Here an edit runs on a worker and hands its pairs to the same pool with
`map_ordered`; while they wait for a free worker, the edit's own thread runs them itself
(it is a worker already, so the bound holds). A caller only ever waits for work that is
running, never for work queued behind it, so nesting cannot deadlock.

Results come back in the order of the items, whatever order they finished in, so a run at
size 8 returns what a run at size 1 returns. Size 1 runs everything in the caller's thread, in
order: the sequential run, exactly.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

__all__ = ["WorkPool"]

T = TypeVar("T")
R = TypeVar("R")

_local = threading.local()


class WorkPool:
    """At most `size` threads doing a run's work at once; a context manager (shuts its threads down)."""

    def __init__(self, size: int, *, name: str = "ratchet-pool") -> None:
        self.size = max(1, size)
        self._executor = ThreadPoolExecutor(max_workers=self.size, thread_name_prefix=name) if self.size > 1 else None

    def submit(self, fn: Callable[[T], R], item: T) -> Future[R]:
        """`fn(item)` on a worker (size 1: now, in this thread, as a finished future)."""
        if self._executor is None:
            return _settled(fn, item)
        return self._executor.submit(_as_worker, fn, item)

    def map_ordered(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """`[fn(item) for item in items]` on the pool, in the items' order.

        From a worker, each item no other worker has started yet is run here, in order. On a
        failure the items not yet started are dropped, the running ones finish, and the first
        failure in item order is raised (what a sequential loop raises first).
        """
        if self._executor is None or len(items) <= 1:
            return [fn(item) for item in items]
        futures = [self._executor.submit(_as_worker, fn, item) for item in items]
        if getattr(_local, "worker", False):
            for index, item in enumerate(items):
                if not futures[index].cancel():  # running or done on another worker (or dropped below)
                    continue
                futures[index] = _settled(fn, item)
                if futures[index].exception() is not None:
                    _cancel_rest(futures)
                    break
        results: list[R] = []
        failure: BaseException | None = None
        for future in futures:
            if future.cancelled():
                continue
            error = future.exception()
            if error is not None and failure is None:
                failure = error
                _cancel_rest(futures)
            elif failure is None:
                results.append(future.result())
        if failure is not None:
            raise failure
        return results

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> WorkPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _as_worker(fn: Callable[[T], R], item: T) -> R:
    """Run on a pool thread, marked as one, so its own map_ordered helps instead of only waiting."""
    _local.worker = True
    return fn(item)


def _settled(fn: Callable[[T], R], item: T) -> Future[R]:
    """`fn(item)` run here, as a finished future (its value or its exception)."""
    done: Future[R] = Future()
    try:
        done.set_result(fn(item))
    except BaseException as exc:  # handed to the caller through the future, as a worker's would be
        done.set_exception(exc)
    return done


def _cancel_rest(futures: list[Future[R]]) -> None:
    """Drop every item no worker has started (a running one finishes; its result is ignored)."""
    for future in futures:
        future.cancel()
