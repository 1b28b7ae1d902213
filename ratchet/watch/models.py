"""What `ratchet watch` reports: per skill, whether the agent model's behaviour moved (`--json` prints it)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ratchet.core.chat import USD

WATCH_SCHEMA_VERSION = 1

ReplayKind = Literal["same", "differed", "world", "error", "stopped"]
"""same / differed: compared with the golden as a noise record counts a repeat; world: the mocked world answered
a tool call otherwise before the model did anything else differently (world drift, not the model's); error: the
replay failed; stopped: the run's budget refused it."""

NotWatchedWhy = Literal[
    "no noise record", "stale noise record", "noise record of another model", "skill changed", "task gone"
]


class ReplayOutcome(BaseModel):
    """One watch replay of one golden."""

    task_id: str
    repeat: int
    kind: ReplayKind
    parts: list[str] = Field(default_factory=list, description="What differed from the golden (variation keys).")
    models: list[str] = Field(default_factory=list, description="Agent model ids the upstream answered with.")
    detail: str = Field(default="", description="error: why it failed; world: which tool call answered otherwise.")
    cost_usd: USD = 0.0


class NotWatched(BaseModel):
    """A golden of a watched skill that was left out, and why (named, never silently skipped)."""

    task_id: str
    skill: str
    why: NotWatchedWhy
    detail: str = ""


class SkillWatch(BaseModel):
    """One skill: its watch replays against its noise records, and the exact test's verdict."""

    skill: str
    goldens: list[str] = Field(description="Task ids replayed, in selection order (derived_seed('watch', id)).")
    available: int = Field(description="Goldens of the skill with a fresh noise record, before --per-skill.")
    replays: int = Field(description="Replays that count for the model: ran, and not world drift.")
    differed: int = Field(description="Of `replays`, how many differed from their golden.")
    noise_repeats: int = Field(description="Repeats in the noise records of the goldens with a counted replay, pooled.")
    noise_differed: int = Field(description="Of `noise_repeats`, how many differed from their golden.")
    world: int = Field(default=0, description="Replays left out as world drift.")
    errors: int = Field(default=0, description="Replays that failed (or the budget stopped).")
    new_parts: list[str] = Field(
        default_factory=list, description="Parts that differed in watch replays but never in these noise records."
    )
    p_value: float | None = Field(default=None, description="One-sided Fisher exact test; None: nothing to test.")
    adjusted_p: float | None = Field(default=None, description="Holm-adjusted across the tested skills.")
    moved: bool = False
    best_p: float | None = Field(
        default=None, description="The p-value had every counted replay differed: the smallest these counts reach."
    )
    could_flag: bool = Field(
        default=False,
        description="Whether best_p, Holm-adjusted among the others, is at most alpha: a test that "
        "could have flagged the skill. Untested, or False: 'cannot tell', never quiet.",
    )
    needs_repeats: int | None = Field(
        default=None, description="When it could not: the smallest --repeats that could have (None: none up to 200)."
    )

    @property
    def told(self) -> bool:
        """Whether this run could tell for this skill: it moved, or it was tested and could have been flagged."""
        return self.moved or (self.p_value is not None and self.could_flag)

    @property
    def rate(self) -> float:
        return self.differed / self.replays if self.replays else 0.0

    @property
    def noise_rate(self) -> float:
        return self.noise_differed / self.noise_repeats if self.noise_repeats else 0.0


class WatchModels(BaseModel):
    """The agent model ids: what answered now, what the goldens were recorded with, what measured the noise."""

    answered: list[str] = Field(default_factory=list)
    goldens: list[str] = Field(default_factory=list)
    noise: list[str] = Field(default_factory=list)

    @property
    def changed(self) -> list[str]:
        """Answering ids neither the goldens nor their noise records were made with: a new model behind the name."""
        known = set(self.goldens) | set(self.noise)
        return [model for model in self.answered if model not in known]


class WatchReport(BaseModel):
    """`ratchet watch`'s report (`--json`)."""

    schema_version: int = WATCH_SCHEMA_VERSION
    simulated: bool
    repeats: int
    per_skill: int
    alpha: float
    models: WatchModels
    skills: list[SkillWatch] = Field(default_factory=list)
    replays: list[ReplayOutcome] = Field(default_factory=list)
    not_watched: list[NotWatched] = Field(default_factory=list)
    estimate_usd: USD = 0.0
    cost_usd: USD = 0.0
    stopped: str | None = Field(default=None, description="Why the run's budget stopped replays (None: it did not).")
    moved: list[str] = Field(default_factory=list, description="Skills whose model behaviour moved (exit 1).")
    undecided: list[str] = Field(
        default_factory=list,
        description="Watched skills this run cannot tell about: not tested (every replay world drift or failed), or "
        "its counts could not have been flagged at alpha (exit 4 when nothing moved and nothing failed).",
    )

    @property
    def failed(self) -> list[ReplayOutcome]:
        return [replay for replay in self.replays if replay.kind == "error"]

    @property
    def world(self) -> list[ReplayOutcome]:
        return [replay for replay in self.replays if replay.kind == "world"]
