"""What a trigger run records: one query run once, and a query's runs together.

A run's `fired` is the skill the harness loaded first (None: it answered without one). A run
that timed out, crashed or whose model call failed is status `error`: it says nothing about
routing, so it is never counted as a negative (QueryRuns.fires and .ok leave it out).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ratchet.core.chat import USD
from ratchet.goldens.triggers import TriggerQuery


class TriggerRun(BaseModel):
    """One run of one query."""

    model_config = ConfigDict(extra="forbid")

    query_id: str
    run: int = Field(ge=0, description="0-based repeat index; the seed derives from it and the query id.")
    seed: int
    fired: str | None = Field(description="The skill loaded first; None: the run ended without loading one.")
    status: Literal["ok", "error"]
    error: str | None = Field(default=None, description="Why the run says nothing (status error), one line.")
    cost_usd: USD = 0.0
    cache_hit: bool = Field(default=False, description="Every model call of the run was answered from the cache.")


class QueryRuns(BaseModel):
    """A query and its runs, in run order."""

    model_config = ConfigDict(extra="forbid")

    query: TriggerQuery
    runs: list[TriggerRun]

    @property
    def ok(self) -> int:
        """Runs that ran (status ok): the denominator of the fire rate."""
        return sum(run.status == "ok" for run in self.runs)

    @property
    def fires(self) -> int:
        """Ok runs that count as a fire of the query (TriggerQuery.fired_counts)."""
        return sum(run.status == "ok" and self.query.fired_counts(run.fired) for run in self.runs)

    @property
    def errors(self) -> int:
        """Runs that ended in error: not counted either way."""
        return sum(run.status == "error" for run in self.runs)
