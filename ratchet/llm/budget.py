"""Budgets: the spend cap, and the estimate printed before any live run.

The estimate uses per-call token budgets (or observed means from the ledger once there are
recordings) at catalog prices. `check_affordable` refuses to start when the estimate exceeds
what is left of the cap; the gateway's reservations then enforce the cap call by call.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from ratchet.config.env import DEFAULT_CAP_USD, read_env
from ratchet.config.project import RatchetConfig
from ratchet.core.errors import BudgetError, ConfigError
from ratchet.llm.pricing import price_for
from ratchet.store.db import Store

__all__ = [
    "CAP_ENV",
    "DEFAULT_CAP_USD",
    "PER_CALL_BUDGETS",
    "CallBudget",
    "Estimate",
    "EstimateLine",
    "cap_from_env",
    "check_affordable",
    "estimate",
    "remaining",
]

CAP_ENV = "RATCHET_BENCH_USD_CAP"


class CallBudget(BaseModel):
    """Token budget of one call of a kind, and the tier it runs on."""

    tier: str
    tokens_in: int
    tokens_out: int


PER_CALL_BUDGETS: dict[str, CallBudget] = {
    "replay": CallBudget(tier="agent", tokens_in=25_000, tokens_out=5_000),
    "judge-nano": CallBudget(tier="nano", tokens_in=8_000, tokens_out=300),
    "judge-super": CallBudget(tier="super", tokens_in=12_000, tokens_out=1_000),
    "judge-ultra": CallBudget(tier="ultra", tokens_in=15_000, tokens_out=2_000),
}


def cap_from_env() -> float:
    """RATCHET_BENCH_USD_CAP (USD), default 12; ConfigError when it is not a number >= 0."""
    return read_env().bench_usd_cap


class EstimateLine(BaseModel):
    """One kind of call in an estimate."""

    kind: str
    tier: str
    model: str
    calls: int
    tokens_in: int = Field(description="Per call.")
    tokens_out: int = Field(description="Per call.")
    usd: float
    observed: bool = Field(default=False, description="Token figures are means from the ledger.")


class Estimate(BaseModel):
    """What a planned run should cost at most, line by line."""

    lines: list[EstimateLine]
    total_usd: float

    def render(self) -> str:
        rows = [
            f"  {ln.kind:<12} {ln.calls:>5} x {ln.tokens_in:>6} in / {ln.tokens_out:>5} out"
            f"{' (observed)' if ln.observed else ''}  {ln.model}  ${ln.usd:.4f}"
            for ln in self.lines
        ]
        return "\n".join(["Estimate:", *rows, f"  total ${self.total_usd:.4f}"])


def estimate(
    config: RatchetConfig,
    calls: Mapping[str, int],
    *,
    store: Store | None = None,
    budgets: Mapping[str, CallBudget] = PER_CALL_BUDGETS,
) -> Estimate:
    """Price a plan of calls by kind (replay, judge-nano, ...). Refuses unknown kinds and unpriced models."""
    lines: list[EstimateLine] = []
    for kind, count in calls.items():
        budget = budgets.get(kind)
        if budget is None:
            raise ConfigError(f"no per-call budget for {kind!r} (known: {', '.join(sorted(budgets))})")
        tier = config.tiers.get(budget.tier)
        if tier is None:
            raise ConfigError(f"no tier {budget.tier!r} in ratchet.yaml (needed for {kind})")
        price = price_for(config, tier.model)
        seen = store.observed_tokens(budget.tier) if store is not None else None
        t_in, t_out = seen if seen else (budget.tokens_in, budget.tokens_out)
        usd = count * (t_in * price.input + t_out * price.output)
        lines.append(
            EstimateLine(
                kind=kind,
                tier=budget.tier,
                model=tier.model,
                calls=count,
                tokens_in=t_in,
                tokens_out=t_out,
                usd=usd,
                observed=seen is not None,
            )
        )
    return Estimate(lines=lines, total_usd=sum(ln.usd for ln in lines))


def remaining(store: Store, cap: float | None = None) -> float:
    """What is left of the global cap: settled real spend, live reservations and live grants count."""
    cap = cap_from_env() if cap is None else cap
    return cap - store.total_spend() - store.reserved() - store.granted()


def check_affordable(store: Store, plan: Estimate, *, cap: float | None = None) -> None:
    """BudgetError when the estimate exceeds what is left of the cap."""
    left = remaining(store, cap)
    if plan.total_usd > left:
        raise BudgetError(
            f"estimated ${plan.total_usd:.4f} exceeds the ${left:.4f} left of the cap "
            f"(raise {CAP_ENV} or run fewer tasks)"
        )
