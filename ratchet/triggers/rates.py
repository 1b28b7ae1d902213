"""Trigger rates: per query the fire rate with a Wilson interval, per skill recall and false-fire rate.

A query's rate is its fires over the runs that ran (errors are left out of both). A skill's recall
pools the runs of its should-fire queries; its false-fire rate pools the runs of its should-not-fire
queries, where a fire means the skill itself fired. Canary queries (skill None) pool into one row
whose false-fire rate counts any skill firing. The report is what `ratchet triggers --json` prints.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from ratchet.core.chat import USD
from ratchet.stats.intervals import wilson_interval
from ratchet.triggers.models import QueryRuns

TRIGGER_REPORT_SCHEMA_VERSION = 1
CONFIDENCE = 0.95


class Rate(BaseModel):
    """k of n, with the rate and its two-sided 95% Wilson interval (rate None when n is 0)."""

    model_config = ConfigDict(extra="forbid")

    k: int = Field(ge=0)
    n: int = Field(ge=0)
    rate: float | None
    low: float
    high: float

    @classmethod
    def of(cls, k: int, n: int) -> Rate:
        low, high = wilson_interval(k, n, CONFIDENCE)
        return cls(k=k, n=n, rate=round(k / n, 6) if n else None, low=round(low, 6), high=round(high, 6))

    def text(self) -> str:
        if self.rate is None:
            return "0/0 -"
        return f"{self.k}/{self.n} {self.rate:.2f} [{self.low:.2f}, {self.high:.2f}]"


class QueryRate(BaseModel):
    """One query's runs, counted."""

    model_config = ConfigDict(extra="forbid")

    id: str
    prompt: str
    skill: str | None
    should_fire: bool
    source: str
    fire: Rate = Field(description="Runs that counted as a fire, over the runs that ran.")
    errors: int = Field(ge=0, description="Runs that ended in error: counted neither way.")
    fired: dict[str, int] = Field(description="What the ok runs fired, by skill ('' for none).")
    first_error: str | None = None


class SkillRates(BaseModel):
    """One skill's pooled rates (skill None: the canary queries)."""

    model_config = ConfigDict(extra="forbid")

    skill: str | None
    recall: Rate = Field(description="Fires over the ok runs of its should-fire queries.")
    false_fire: Rate = Field(description="Fires over the ok runs of its should-not-fire queries.")
    errors: int = Field(ge=0)


class TriggerReport(BaseModel):
    """What `ratchet triggers` found."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = TRIGGER_REPORT_SCHEMA_VERSION
    simulated: bool
    harness: str
    routing: str = Field(description="`lexical` or `model` for the minimal harness; a real harness routes by model.")
    repeats: int
    queries: list[QueryRate]
    skills: list[SkillRates]
    runs: list[QueryRuns]
    estimate_usd: USD
    cost_usd: USD
    stopped: str | None = Field(default=None, description="Why the budget stopped the runs; None: every run ran.")

    @property
    def errors(self) -> int:
        return sum(query.errors for query in self.queries)


def query_rate(runs: QueryRuns) -> QueryRate:
    fired: dict[str, int] = {}
    for run in runs.runs:
        if run.status == "ok":
            fired[run.fired or ""] = fired.get(run.fired or "", 0) + 1
    first_error = next((run.error for run in runs.runs if run.status == "error"), None)
    query = runs.query
    return QueryRate(
        id=query.id,
        prompt=query.prompt,
        skill=query.skill,
        should_fire=query.should_fire,
        source=query.source,
        fire=Rate.of(runs.fires, runs.ok),
        errors=runs.errors,
        fired=dict(sorted(fired.items())),
        first_error=first_error,
    )


def skill_rates(done: Sequence[QueryRuns]) -> list[SkillRates]:
    """Pooled rates per skill, skills by name, the canary row (skill None) last."""
    pooled: dict[str | None, list[int]] = {}  # skill -> [recall k, recall n, false k, false n, errors]
    for runs in done:
        row = pooled.setdefault(runs.query.skill, [0, 0, 0, 0, 0])
        at = 0 if runs.query.should_fire else 2
        row[at] += runs.fires
        row[at + 1] += runs.ok
        row[4] += runs.errors
    order: list[str | None] = [*sorted(s for s in pooled if s is not None), *([None] if None in pooled else [])]
    return [
        SkillRates(
            skill=skill,
            recall=Rate.of(pooled[skill][0], pooled[skill][1]),
            false_fire=Rate.of(pooled[skill][2], pooled[skill][3]),
            errors=pooled[skill][4],
        )
        for skill in order
    ]
