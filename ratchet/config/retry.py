"""`retry:` in ratchet.yaml: how often and how patiently a failed model call is tried again.

The policy only; the one retry loop that reads it is ratchet.llm.retry.
"""

from __future__ import annotations

import random

from pydantic import BaseModel, ConfigDict, Field


class RetryPolicy(BaseModel):
    """Bounded: at most max_attempts tries, delays capped at max_delay_s."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_attempts: int = Field(default=4, ge=1, description="Tries in all, the first one included.")
    base_delay_s: float = Field(default=0.5, ge=0, description="Delay after the first failure; doubles after each.")
    max_delay_s: float = Field(default=8.0, ge=0, description="Cap on one delay, before jitter.")
    jitter: float = Field(default=0.5, ge=0, le=1, description="Each delay is scaled by 1 +/- jitter at random.")

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Delay after failed attempt number `attempt` (1-based)."""
        base = min(self.max_delay_s, self.base_delay_s * float(2 ** (attempt - 1)))
        return base * (1 - self.jitter + 2 * self.jitter * rng.random())
