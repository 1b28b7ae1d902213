"""One mutant through the normal check: what the local run calls in turn and a Ray actor calls for its mutant."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ratchet.config.harness import HarnessName
from ratchet.config.project import StaticPolicy
from ratchet.core.errors import BudgetError, RatchetError
from ratchet.gate.check import check_edit
from ratchet.gate.policy import OnError
from ratchet.llm.cache import CacheMode
from ratchet.mutate.models import Mutant, MutantOutcome
from ratchet.mutate.outcome import cap_of, failed, left_unchecked, outcome_of


@dataclass(frozen=True)
class CheckSpec:
    """What every mutant's check shares (pickled to each Ray actor): the scratch clone and the base."""

    clone: Path
    """The scratch clone's work tree (every Ray node must see it at this path)."""
    base: str
    config: str
    home: Path
    static: StaticPolicy
    """The base's static policy, for the outcome's reason."""
    cache_mode: CacheMode
    harness: HarnessName | None
    concurrency: int


def check_mutant(spec: CheckSpec, mutant: Mutant, head: str, budget_usd: float | None) -> MutantOutcome:
    """One mutant (committed as `head`) through the normal check; a check that raises is an error (or
    unchecked at the cap)."""
    if budget_usd is not None and budget_usd <= 0:
        return left_unchecked(mutant)
    try:
        verdict = check_edit(
            spec.clone,
            base=spec.base,
            head=head,
            config=spec.config,
            home=spec.home,
            on_error=OnError.WARN,
            cache_mode=spec.cache_mode,
            budget_usd=budget_usd,
            harness=spec.harness,
            concurrency=spec.concurrency,
        )
    except BudgetError as err:
        cap = cap_of(err.one_line())
        return left_unchecked(mutant, cap).model_copy(update={"reason": f"not checked: {err.one_line()}"})
    except RatchetError as err:
        return failed(mutant, err.one_line())
    return outcome_of(mutant, verdict, static=spec.static)
