"""The gateway: every model call Ratchet makes goes through here.

complete(request) -> in-flight coalescing -> cache lookup -> budget reservation -> upstream call
(retries inside) -> price -> cache store -> ledger row (settling the reservation) -> ChatResponse.
An identical request already in flight (cache mode `once`) waits for that call's answer and
takes it as a cache hit (ratchet.llm.inflight), so a pool of threads pays what one thread would.
A cache hit reserves nothing and is counted in the run's rollup, or written as a $0 ledger row
when asked (`ledger_hits`); neither is synced on its own (a lost hit loses no money). Counted hits
are tallied in memory and written in one batch (HIT_BATCH hits, `flush`, `close`): a run's hit count
is in the store once its gateway is flushed or closed.

The cache is written before the ledger row: if the process dies between the two, the
orphaned reservation is charged at its worst case on the next start and the answer is
replayed from the cache, so nothing paid for is paid again and spend never goes down.
Cache entries are synced once per batch (ResponseCache.flush): at close (the end of a check),
at `flush`, and every FLUSH_EVERY entries; a power cut can lose the batch not yet synced, whose
answers are then asked (and paid) again, while their reservations or rows keep spend from going down.

A simulated call of a run without a budget reserves nothing (no cap counts it: `Gateway.metered`), and its
ledger row and cache entry are written without an fsync of their own (a power cut can lose them; a kill -9
cannot). A live call always takes the reserved, synced path: both are decided by `simulated`, which only
`upstream: sim` sets.

That path is GatewayModel's (ratchet/llm/gateway_model.py); the check before any call, Gateway.preflight,
is ratchet/llm/preflight.py's.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from ratchet.config.project import Project, TierConfig
from ratchet.config.retry import RetryPolicy
from ratchet.core.chat import ChatModel, ChatResponse
from ratchet.core.errors import ConfigError
from ratchet.llm.cache import CacheMode, ResponseCache, cache_key, cache_root
from ratchet.llm.gateway_model import GatewayModel
from ratchet.llm.inflight import InFlight
from ratchet.llm.preflight import PREFLIGHT_TIMEOUT_S, Listing, check_tiers, probe_base
from ratchet.llm.pricing import price_for
from ratchet.store.db import Store
from ratchet.store.models import LedgerEntry

__all__ = ["Gateway", "cache_key"]

HIT_BATCH = 256
"""Cache hits tallied in memory before they are written to the run's rollup (one write per tier and purpose)."""


def _cap_from_env() -> float:
    # Imported here: the budget module (its estimate models) is for live runs; a simulated check never reads the cap.
    from ratchet.llm.budget import cap_from_env

    return cap_from_env()


class Simulator(Protocol):
    """The offline upstream (ratchet.sim.models.SIMULATOR): the simulated model behind a tier, and the
    simulator's version, which keys its cached answers."""

    def model(self, tier: str, *, noise: float) -> ChatModel: ...

    @property
    def version(self) -> str: ...


class Gateway:
    """One run's door to the models: capture, cache, cost, cap."""

    def __init__(
        self,
        project: Project,
        store: Store,
        *,
        run_id: str,
        cache_mode: CacheMode | str = CacheMode.ONCE,
        budget_usd: float | None = None,
        upstream_models: Mapping[str, ChatModel] | None = None,
        retry: RetryPolicy | None = None,
        timeout_s: float | None = None,
        ledger_hits: bool = False,
        simulator: Simulator | None = None,
    ) -> None:
        """`retry` and `timeout_s` default to ratchet.yaml's `retry:` and `timeout_s:`. A cache hit is
        counted in the run's rollup (Store.calls, Store.cache_hits); `ledger_hits` also writes it as a
        ledger row, for an audit of which answers were replayed (`ratchet check --ledger-hits`).
        `simulator` answers for every tier when ratchet.yaml says `upstream: sim` (ratchet.sim.models
        .SIMULATOR): the gateway is handed the simulator, it never imports it."""
        try:
            self.cache_mode = CacheMode(cache_mode)
        except ValueError:
            modes = ", ".join(mode.value for mode in CacheMode)
            raise ConfigError(f"cache mode must be one of {modes}, not {cache_mode!r}") from None
        self.project = project
        self.store = store
        self.run_id = run_id
        self.simulated = project.config.upstream == "sim"
        self.budget_usd = budget_usd
        self.ledger_hits = ledger_hits
        # Simulated dollars never count against the real cap; a run budget applies to both.
        self.global_cap = None if self.simulated else _cap_from_env()
        self.retry = retry if retry is not None else project.config.retry
        self.timeout_s = timeout_s if timeout_s is not None else project.config.timeout_s
        self.cache = ResponseCache(cache_root(project.home))
        self._overrides = dict(upstream_models or {})
        self.simulator = simulator if self.simulated else None
        self._upstreams: dict[str, ChatModel] = {}
        self._listings: dict[str, Listing] = {}  # api_base -> its GET /models answer (preflight)
        self._lock = threading.Lock()
        self.inflight: InFlight[ChatResponse] = InFlight()
        self._hits: dict[tuple[str, str, str], list[float]] = {}  # (purpose, tier, model) -> calls, tokens, latency
        self._hit_count = 0
        self._hit_lock = threading.Lock()
        store.start_run(run_id, upstream=project.config.upstream)
        store.recover_orphans()

    @property
    def metered(self) -> bool:
        """Whether a call sets its worst case aside (a reservation) before it goes out: always on a live
        upstream; on the simulator only under a run budget, the one cap simulated dollars count against.
        An unmetered call's ledger row is a line in the store's spool (Store.spool_row), folded into the ledger
        in batches, so the simulator's calls pay no fsync and no commit of their own;
        docs/adr/0027-durability-per-call.md says what a crash can lose of them."""
        return not self.simulated or self.budget_usd is not None

    def tier(self, tier: str) -> TierConfig:
        config = self.project.config.tiers.get(tier)
        if config is None:
            known = ", ".join(sorted(self.project.config.tiers))
            raise ConfigError(f"unknown model tier {tier!r} (configured: {known})")
        return config

    def preflight(self, tiers: Iterable[str], *, named_by: Path | str | None = None) -> None:
        """Before any model call: every tier exists and, on the live path, has its key and an
        api_base that answers and does not leave the tier's model out of the models it lists. A dead
        upstream, a missing key or a model the server does not serve fails the whole run in a second
        with one line, instead of once per call after the retries (`named_by`: the file that asked
        for these tiers, for the message)."""
        check_tiers(
            self.project.config.tiers,
            tiers,
            injected=self._overrides,
            simulated=self.simulated,
            probe=self._probe_base,
            named_by=named_by,
        )

    def _probe_base(self, api_base: str, key: str | None) -> Listing:
        """What `api_base` answers to GET /models, asked once per gateway (a run): a second preflight
        of the same run reads the first one's answer."""
        with self._lock:
            known = self._listings.get(api_base)
        if known is None:
            known = probe_base(api_base, key=key, timeout_s=PREFLIGHT_TIMEOUT_S)
            with self._lock:
                self._listings[api_base] = known
        return known

    def upstream(self, tier: str) -> ChatModel:
        """The raw model behind a tier: an injected one, the simulator, or litellm."""
        with self._lock:
            model = self._upstreams.get(tier)
            if model is None:
                model = self._overrides.get(tier) or self._resolve(tier)
                self._upstreams[tier] = model
            return model

    def _resolve(self, tier: str) -> ChatModel:
        if self.simulated:
            if self.simulator is None:
                raise ConfigError(f"tier {tier}: upstream is sim, but this run was given no simulator")
            return self.simulator.model(tier, noise=self.project.config.sim_noise)
        from ratchet.llm.live import LiteLLMModel

        config = self.tier(tier)
        return LiteLLMModel(config, timeout_s=self.timeout_s)

    def model(self, tier: str, purpose: str) -> GatewayModel:
        """A ChatModel bound to a tier and a purpose; unpriced live models are refused here."""
        config = self.project.config.tiers.get(tier)
        if config is None and tier not in self._overrides:
            config = self.tier(tier)  # raises: unknown tier
        if not self.simulated:
            price_for(self.project.config, config.model if config is not None else self.upstream(tier).model_id)
        elif self.simulator is None and tier not in self._overrides:
            raise ConfigError(f"tier {tier}: upstream is sim, but this run was given no simulator")
        return GatewayModel(self, tier, purpose, config)

    def count_hit(
        self, purpose: str, tier: str, model: str, *, tokens_in: int, tokens_out: int, latency_ms: float
    ) -> None:
        """One more cache hit in the run's rollup, written with the next batch (HIT_BATCH, `flush`, `close`)."""
        with self._hit_lock:
            tally = self._hits.setdefault((purpose, tier, model), [0, 0, 0, 0.0])
            tally[0] += 1
            tally[1] += tokens_in
            tally[2] += tokens_out
            tally[3] += latency_ms
            self._hit_count += 1
            full = self._hit_count >= HIT_BATCH
        if full:
            self.flush_hits()

    def flush_hits(self) -> int:
        """Write the tallied cache hits to the run's rollup; how many."""
        with self._hit_lock:
            batch, self._hits, written = self._hits, {}, self._hit_count
            self._hit_count = 0
        for (purpose, tier, model), (calls, tokens_in, tokens_out, latency_ms) in sorted(batch.items()):
            entry = LedgerEntry(
                run_id=self.run_id,
                purpose=purpose,
                tier=tier,
                model=model,
                simulated=self.simulated,
                cache_hit=True,
                request_digest="",
                tokens_in=int(tokens_in),
                tokens_out=int(tokens_out),
                latency_ms=latency_ms,
            )
            self.store.record_hit(entry, ledger_row=False, calls=int(calls))
        return written

    def flush(self) -> int:
        """End the cache batch and write the tallied hits: every answer recorded so far is on disk when this
        returns; how many."""
        self.flush_hits()
        self.store.fold_spool()
        return self.cache.flush()

    def close(self) -> None:
        """Sync the cache batch, write the tallied hits and close upstream HTTP clients (the store belongs to
        the caller)."""
        self.flush_hits()
        self.store.fold_spool()
        self.cache.flush()
        with self._lock:
            for model in self._upstreams.values():
                close = getattr(model, "close", None)
                if callable(close):
                    close()
            self._upstreams.clear()

    def __enter__(self) -> Gateway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def spent(self) -> float:
        """This run's settled spend (simulated dollars for a sim run)."""
        return self.store.run_spend(self.run_id)
