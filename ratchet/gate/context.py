"""A check's context: what every stage of one check reads, in one object built once at the top.

`check_edit` builds it once it knows the gate (the base's config, the run's judges and search,
the goldens' noise records); the bench builds one for each edit it scores. evaluate, repeats, pair
and cascade read it and never change it (it is frozen), so what a pair was gated with is stated in
one place instead of handed down five levels by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ratchet.config.gate import GateConfig
from ratchet.core.chat import ChatModel
from ratchet.core.clock import Clock, wall_clock
from ratchet.diff.models import SkillDiff
from ratchet.gate.drift import FactSearch
from ratchet.gate.models import Shard
from ratchet.gate.policy import OnError
from ratchet.gate.provenance import BaseAgent
from ratchet.goldens.noise import NoiseRecord

if TYPE_CHECKING:  # a pool's threads (concurrent.futures) only for --concurrency > 1: ratchet.gate.check makes it
    from ratchet.core.pool import WorkPool


@dataclass(frozen=True, kw_only=True)
class CheckContext:
    """What one check gates with. Only `config` is required: a stage that needs nothing else (a unit
    test of one pair, say) builds `CheckContext(config=...)`."""

    config: GateConfig
    """The gate config: Level 0, drift, the judge tiers and their thresholds, repeats, block confidence."""
    judges: Mapping[str, ChatModel] = field(default_factory=dict)
    """Tier name -> its model; a config with no tiers needs none (Level 0 only)."""
    search: FactSearch | None = None
    """Drift's fact search (fixtures from the base, or Tavily); None: no pair is checked for drift."""
    noise: Mapping[str, NoiseRecord] = field(default_factory=dict)
    """Task id -> its golden's noise record: a pair that differs only where its golden varies is replayed
    again and blocks only on the exact test (ratchet.gate.repeats)."""
    diffs: Sequence[SkillDiff] = ()
    """The edit's behavioural diff per changed skill (ratchet.diff): each pair's judges see the findings of
    the skills it ran. `ratchet check` and the bench give it; the bench's noise runs and unit tests show none."""
    clock: Clock = wall_clock
    """Times each pair and the check (a frozen clock keeps the bench's results byte-stable)."""
    started: float | None = None
    """When the check started on `clock` (a check counts exporting the two states too); None: when evaluate starts."""
    pool: WorkPool | None = None
    """Runs the selected pairs side by side (ratchet.core.pool); the pairs come back in selection order."""
    on_error: OnError = OnError.WARN
    """What an unchecked pair does to the decision: WARN, or BLOCK."""
    unchecked_at_cap: bool = False
    """A pair the spend cap refuses (BudgetError) is an `error` pair decided by BUDGET_STOPPED and the others
    go on, so the verdict so far is kept (`ratchet check`); False: the refusal stops the run (the bench)."""
    record_base: bool = False
    """Replay the unchanged skill whenever a volatile fact moved, even if drift will not ask for it, so a
    re-judging configuration finds it stored (the bench's recording run)."""
    shard: Shard | None = None
    """Replay only this shard's pairs of the whole selection (ratchet.gate.shard); None: all of them."""
    agent_was: BaseAgent | None = None
    """What the base's agent records, when the replays run under another agent on purpose (a model change,
    ratchet.gate.agent_change): provenance compares each golden with it (ratchet.gate.provenance)."""
    base: str = "base"
    head: str = "head"
    """How the verdict names the two states: revisions for a check, labels for a bench edit."""

    @property
    def policy(self) -> str:
        """`on_error` as the verdict spells it ("warn" or "block")."""
        return OnError(self.on_error).value
