"""The one retry layer: exponential backoff with seeded jitter on 429, 5xx and timeouts.

Upstream adapters raise UpstreamError (already free of secrets) and say whether it is worth
retrying; nothing below this layer retries (litellm's own retries are switched off). The
policy is ratchet.yaml's `retry:` section (ratchet.config.retry).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from ratchet.config.retry import RetryPolicy
from ratchet.core.errors import ModelCallError

T = TypeVar("T")


class UpstreamError(Exception):
    """A failed attempt. The message must already be scrubbed of secrets."""

    def __init__(self, message: str, *, retryable: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status


class CallFailed(ModelCallError):
    """A model call that failed for good, with how many attempts it took."""

    def __init__(self, message: str, *, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


def call_with_retries(
    fn: Callable[[], T],
    *,
    policy: RetryPolicy,
    seed: int,
    label: str,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[T, int]:
    """Run fn until it succeeds or the policy gives up; returns (result, attempts)."""
    rng = random.Random(seed)
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn(), attempt
        except UpstreamError as exc:
            if not exc.retryable:
                raise CallFailed(f"{label}: {exc}", attempts=attempt) from None
            if attempt >= policy.max_attempts:
                raise CallFailed(f"{label}: gave up after {attempt} attempts: {exc}", attempts=attempt) from None
            sleep(policy.delay(attempt, rng))
        except ModelCallError as exc:
            raise CallFailed(exc.one_line(), attempts=attempt) from None
