"""A model bound to (gateway, tier, purpose): one call's path through the gateway.

complete(request) -> in-flight coalescing -> cache lookup -> budget reservation -> upstream call
(retries inside) -> price -> cache store -> ledger row (settling the reservation); ratchet/llm/gateway.py
says why in that order.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ratchet.config.project import Price, TierConfig
from ratchet.core.chat import ChatModel, ChatRequest, ChatResponse
from ratchet.core.errors import BudgetError, ModelCallError
from ratchet.core.jsonio import digest
from ratchet.llm.cache import cache_key
from ratchet.llm.pricing import cost_of, price_for, worst_case_cost
from ratchet.llm.retry import CallFailed, call_with_retries
from ratchet.llm.secrets import key_from_env, scrub
from ratchet.llm.textproto import parse_text_reply, to_text_request
from ratchet.store.models import LedgerEntry, Refusal, Reservation

if TYPE_CHECKING:
    from ratchet.llm.gateway import Gateway


def refusal_text(refusal: Refusal) -> str:
    """Which cap a call would pass, with this run's spend as the refusal saw it: the end of a BudgetError.

    The run's own figures always: under concurrency its calls in flight hold money too, and the cap
    over all runs (RATCHET_BENCH_USD_CAP) counts every run's spend, which is not this run's.
    """
    run = f"this run: ${refusal.run_spent_usd:.4f} spent, ${refusal.run_held_usd:.4f} held for calls in flight"
    if refusal.cap == "run":
        return f"would pass the run budget of ${refusal.limit_usd:.4f} ({run})"
    # Only a live run has a global cap, and it has imported the budget module already.
    from ratchet.llm.budget import CAP_ENV

    return (
        f"would pass the spend cap of ${refusal.limit_usd:.4f} ({CAP_ENV}; all runs: ${refusal.counted_usd:.4f} "
        f"spent, held or granted to running checks; {run})"
    )


class GatewayModel:
    """A ChatModel bound to (gateway, tier, purpose)."""

    def __init__(self, gateway: Gateway, tier: str, purpose: str, config: TierConfig | None) -> None:
        self.gateway = gateway
        self.tier = tier
        self.purpose = purpose
        self.config = config
        self.api_base = config.api_base if config is not None and not gateway.simulated else None
        self.free_text: str | None = None
        """Why an answer this model gave (fresh or cached) is free text although a response format was asked
        (ChatResponse.free_text); a check names the judge tier on its verdict (ratchet.gate.judge_notes)."""

    @property
    def model_id(self) -> str:
        return self.gateway.upstream(self.tier).model_id

    def _entry(self, key: str, model: str, **fields: object) -> LedgerEntry:
        return LedgerEntry.model_validate(
            {
                "run_id": self.gateway.run_id,
                "purpose": self.purpose,
                "tier": self.tier,
                "model": model,
                "api_base": self.api_base,
                "simulated": self.gateway.simulated,
                "request_digest": key,
                **fields,
            }
        )

    def _price_model(self, upstream_id: str) -> str:
        # The simulator stands in for the configured model, so it is priced as that model.
        return self.config.model if self.config is not None else upstream_id

    def complete(self, request: ChatRequest) -> ChatResponse:
        gw = self.gateway
        upstream = gw.upstream(self.tier)
        model_id = upstream.model_id
        asked = request
        text_tools = self.config is not None and self.config.tool_protocol == "text" and bool(request.tools)
        if text_tools:
            request = to_text_request(request)
        key = cache_key(model_id, self.api_base, request)
        slot = self._cache_slot(key)
        started = time.perf_counter()
        if gw.cache_mode != "once":
            out = self._answer(request, asked, upstream, key=key, slot=slot, text_tools=text_tools, started=started)
        else:
            # Coalescing: an identical request already in flight answers this one too, as a cache hit
            # would have had it come a moment later (no reservation, no payment, no paid ledger row).
            out, shared = gw.inflight.share(
                slot,
                lambda: self._answer(
                    request, asked, upstream, key=key, slot=slot, text_tools=text_tools, started=started
                ),
            )
            out = self._hit(out, key, model_id, started) if shared else out
        if out.free_text is not None:
            self.free_text = out.free_text
        return out

    def _hit(self, hit: ChatResponse, key: str, model_id: str, started: float) -> ChatResponse:
        """An answer this call did not pay for (the cache's, or an identical call's in flight)."""
        gw = self.gateway
        latency = (time.perf_counter() - started) * 1000
        if gw.ledger_hits:  # an audit row per hit, as it happened
            gw.store.record_hit(
                self._entry(
                    key,
                    model_id,
                    cache_hit=True,
                    latency_ms=latency,
                    tokens_in=hit.usage.tokens_in,
                    tokens_out=hit.usage.tokens_out,
                ),
                ledger_row=True,
            )
        else:  # a count: tallied, and written in batches (Gateway.count_hit)
            gw.count_hit(
                self.purpose,
                self.tier,
                model_id,
                tokens_in=hit.usage.tokens_in,
                tokens_out=hit.usage.tokens_out,
                latency_ms=latency,
            )
        return hit.model_copy(
            update={
                "usage": hit.usage.model_copy(update={"usd": 0.0}),
                "cache_hit": True,
                "latency_ms": latency,
                "request_digest": key,
            }
        )

    def _answer(
        self,
        request: ChatRequest,
        asked: ChatRequest,
        upstream: ChatModel,
        *,
        key: str,
        slot: str,
        text_tools: bool,
        started: float,
    ) -> ChatResponse:
        """The cache's answer, or one upstream call under a reservation (the module docstring's order)."""
        gw = self.gateway
        model_id = upstream.model_id
        if gw.cache_mode in ("once", "none"):
            hit = gw.cache.get(slot)
            if hit is not None:
                return self._hit(hit, key, model_id, started)
            if gw.cache_mode == "none":
                raise ModelCallError(
                    f"cache mode 'none': no recorded answer for {self.tier} ({self.purpose}) request {key[:12]}; "
                    "re-run with cache mode 'once' to allow model calls"
                )
        prepare = getattr(upstream, "prepare", None)
        if prepare is not None:  # a live model imports its client on the first miss: not the call's latency
            warming = time.perf_counter()
            prepare()
            started += time.perf_counter() - warming
        price_model = self._price_model(model_id)
        price = self._price(price_model)
        reservation = self._reserve(request, price, key, model_id) if gw.metered else None
        secret = key_from_env(self.config.api_key_env) if self.config is not None else None
        try:
            # The cache's fsyncs run while the call waits for its model (ResponseCache.syncing).
            with gw.cache.syncing(every_entry=not gw.simulated):
                response, attempts = call_with_retries(
                    lambda: upstream.complete(request),
                    policy=gw.retry,
                    seed=int(key[:8], 16),
                    label=f"{self.tier} model {model_id}",
                )
        except CallFailed as exc:
            message = scrub(exc.one_line(), [secret])
            gw.store.settle(
                reservation,
                self._entry(
                    key,
                    model_id,
                    status="error",
                    attempts=exc.attempts,
                    latency_ms=(time.perf_counter() - started) * 1000,
                    error=message,
                ),
            )
            raise ModelCallError(message) from None
        except BaseException:
            if reservation is not None:
                gw.store.release(reservation)
            raise
        latency = (time.perf_counter() - started) * 1000
        cost = cost_of(price, response.usage) if price is not None else 0.0
        if text_tools:
            response = parse_text_reply(asked, response)
        usage = response.usage.model_copy(update={"usd": cost})
        out = response.model_copy(
            update={
                "model": response.model or model_id,
                "usage": usage,
                "latency_ms": latency,
                "cache_hit": False,
                "simulated": gw.simulated,
                "request_digest": key,
            }
        )
        if gw.cache_mode != "new" or gw.cache.get(slot) is None:
            gw.cache.put(slot, out)
        entry = self._entry(
            key,
            model_id,
            tokens_in=usage.tokens_in,
            tokens_out=usage.tokens_out,
            tokens_cached=usage.tokens_cached,
            cost_usd=cost,
            latency_ms=latency,
            attempts=attempts,
        )
        if not gw.metered:  # no money held: a line in the store's spool
            gw.store.spool_row(entry)
        else:
            gw.store.settle(reservation, entry)
        return out

    def _reserve(self, request: ChatRequest, price: Price | None, key: str, model_id: str) -> Reservation:
        """The call's worst case set aside under both caps (ratchet.store.reservations), or a BudgetError."""
        gw = self.gateway
        worst = worst_case_cost(price, request) if price is not None else 0.0
        reservation = gw.store.reserve(
            run_id=gw.run_id,
            amount_usd=worst,
            simulated=gw.simulated,
            global_cap=gw.global_cap,
            run_cap=gw.budget_usd,
            purpose=self.purpose,
            tier=self.tier,
            model=model_id,
            request_digest=key,
        )
        if isinstance(reservation, Refusal):
            raise BudgetError(
                f"{self.tier} call ({self.purpose}) refused: its worst case ${worst:.4f} {refusal_text(reservation)}"
            )
        return reservation

    def _cache_slot(self, key: str) -> str:
        """Where the answer to request `key` is cached: for the simulator, per simulator version."""
        simulator = self.gateway.simulator
        if simulator is None:
            return key
        return digest({"request": key, "simulator": simulator.version})

    def _price(self, model: str) -> Price | None:
        if self.gateway.simulated:
            return self.gateway.project.config.prices.get(model)
        return price_for(self.gateway.project.config, model)
