"""What the store reads and writes, as pydantic models: ledger rows, reservations, compaction."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class LedgerEntry(BaseModel):
    """One row of the model-call ledger. Never holds a key, a prompt or a response."""

    id: int = 0
    run_id: str
    ts: float = 0.0
    purpose: str = Field(description="replay, judge-nano, judge-super, judge-ultra, inject, bless ...")
    tier: str
    model: str
    api_base: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    cache_hit: bool = False
    simulated: bool = False
    request_digest: str
    status: str = Field(default="ok", description="ok | error | orphaned (a reservation of a dead process)")
    attempts: int = 1
    error: str | None = None


class Reservation(BaseModel):
    """Worst-case money set aside for one call in flight."""

    id: int
    run_id: str
    amount_usd: float
    simulated: bool


class Refusal(BaseModel):
    """Why a reservation was refused: which cap, and the totals the refusal was decided on."""

    cap: Literal["global", "run"] = Field(
        description="global: RATCHET_BENCH_USD_CAP over all runs of the pool; run: the run's own budget (--budget)."
    )
    limit_usd: float
    counted_usd: float = Field(description="What the cap counted before this call: settled plus held.")
    run_spent_usd: float = Field(description="The run's settled spend.")
    run_held_usd: float = Field(description="What the run's calls in flight held.")


class CompactResult(BaseModel):
    """What `Store.compact` did."""

    rows_dropped: int = Field(description="Ledger rows folded into rollups and deleted.")
    rows_kept: int = Field(description="Ledger rows left, all newer than the cut-off.")
