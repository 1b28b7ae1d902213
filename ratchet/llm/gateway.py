"""The gateway: every model call Ratchet makes goes through here.

complete(request) -> in-flight coalescing -> cache lookup -> budget reservation -> upstream call
(retries inside) -> price -> cache store -> ledger row (settling the reservation) -> ChatResponse.
An identical request already in flight (cache mode `once`) waits for that call's answer and
takes it as a cache hit (ratchet.llm.inflight), so a pool of threads pays what one thread would.
A cache hit reserves nothing and is counted in the run's rollup, or written as a $0 ledger row
when asked (`ledger_hits`); neither is synced on its own (a lost hit loses no money).

The cache is written before the ledger row: if the process dies between the two, the
orphaned reservation is charged at its worst case on the next start and the answer is
replayed from the cache, so nothing paid for is paid again and spend never goes down.
Cache entries are synced once per batch (ResponseCache.flush): at close (the end of a check),
at `flush`, and every FLUSH_EVERY entries; a power cut can lose the batch not yet synced, whose
answers are then asked (and paid) again, while their reservations or rows keep spend from going down.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from ratchet.config import Price, Project, TierConfig
from ratchet.errors import BudgetError, ConfigError, InfraError, ModelCallError
from ratchet.jsonio import digest
from ratchet.llm.cache import CacheMode, ResponseCache, cache_key, cache_root
from ratchet.llm.inflight import InFlight
from ratchet.llm.pricing import cost_of, price_for, worst_case_cost
from ratchet.llm.retry import CallFailed, RetryPolicy, call_with_retries
from ratchet.llm.secrets import key_from_env, scrub
from ratchet.llm.textproto import parse_text_reply, to_text_request
from ratchet.llm.types import ChatModel, ChatRequest, ChatResponse
from ratchet.store import LedgerEntry, Refusal, Store

__all__ = ["Gateway", "GatewayModel", "cache_key", "probe_base"]

PREFLIGHT_TIMEOUT_S = 1.5


def _connect_problem(exc: BaseException) -> str:
    """A failed connection in a few words: the root cause, not the wrapper's name."""
    link: BaseException | None = exc
    depth = 0
    while link is not None:
        if isinstance(link, ConnectionRefusedError):
            return "connection refused"
        if isinstance(link, socket.gaierror):
            return "host not found"
        link = link.__cause__ or link.__context__
        depth += 1
        if depth > 20:  # a cyclic chain
            break
    return " ".join(str(exc).split())[:120] or type(exc).__name__


def probe_base(api_base: str, *, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> str | None:
    """Why `api_base` does not answer, or None when GET <base>/models gets any HTTP status at all
    (a 401 or 404 is an upstream that is up). No key is sent; proxies apply as for model calls."""
    import httpx

    try:
        with httpx.Client(timeout=timeout_s, follow_redirects=False) as client:
            client.get(api_base.rstrip("/") + "/models")
    except httpx.TimeoutException:
        return f"no answer within {timeout_s:g} s"
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return _connect_problem(exc)
    return None


def _cap_from_env() -> float:
    # Imported here: the budget module (its estimate models) is for live runs; a simulated check never reads the cap.
    from ratchet.llm.budget import cap_from_env

    return cap_from_env()


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
    ) -> None:
        """`retry` and `timeout_s` default to ratchet.yaml's `retry:` and `timeout_s:`. A cache hit is
        counted in the run's rollup (Store.calls, Store.cache_hits); `ledger_hits` also writes it as a
        ledger row, for an audit of which answers were replayed (`ratchet check --ledger-hits`)."""
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
        self._upstreams: dict[str, ChatModel] = {}
        self._lock = threading.Lock()
        self.inflight: InFlight[ChatResponse] = InFlight()
        store.start_run(run_id, upstream=project.config.upstream)
        store.recover_orphans()

    def tier(self, tier: str) -> TierConfig:
        config = self.project.config.tiers.get(tier)
        if config is None:
            known = ", ".join(sorted(self.project.config.tiers))
            raise ConfigError(f"unknown model tier {tier!r} (configured: {known})")
        return config

    def preflight(self, tiers: Iterable[str], *, named_by: Path | str | None = None) -> None:
        """Before any model call: every tier exists and, on the live path, has its key and an
        api_base that answers at all. A dead upstream or a missing key fails the whole run in a
        second with one line, instead of once per call after the retries (`named_by`: the file
        that asked for these tiers, for the message)."""
        wanted = list(dict.fromkeys(tiers))
        configured = self.project.config.tiers
        for tier in wanted:
            if tier not in configured and tier not in self._overrides:
                known = ", ".join(sorted(configured))
                raise ConfigError(
                    f"unknown model tier {tier!r} (ratchet.yaml configures: {known}); add it under "
                    "tiers: in ratchet.yaml or name a configured tier",
                    path=named_by,
                )
        if self.simulated:
            return
        live = [(tier, configured[tier]) for tier in wanted if tier in configured and tier not in self._overrides]
        for tier, config in live:
            if config.api_key_env and key_from_env(config.api_key_env) is None:
                raise InfraError(
                    f"tier {tier}: {config.api_key_env} is not set (the key for {config.model}); export it, then re-run"
                )
        problems: dict[str, str | None] = {}
        for tier, config in live:
            if config.api_base is None:  # the provider's own endpoint: litellm knows it, we do not
                continue
            if config.api_base not in problems:
                problems[config.api_base] = self._probe_base(config.api_base)
            problem = problems[config.api_base]
            if problem is not None:
                raise InfraError(
                    f"tier {tier}: cannot reach {config.api_base} ({problem}); start the server or "
                    "fix the tier's api_base in ratchet.yaml"
                )

    def _probe_base(self, api_base: str) -> str | None:
        """Why `api_base` does not answer, or None when it answers with any HTTP status."""
        return probe_base(api_base, timeout_s=PREFLIGHT_TIMEOUT_S)

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
            from ratchet.sim.models import sim_model_for

            return sim_model_for(tier, noise=self.project.config.sim_noise)
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
        return GatewayModel(self, tier, purpose, config)

    def flush(self) -> int:
        """End the cache batch: every answer recorded so far is on disk when this returns; how many."""
        return self.cache.flush()

    def close(self) -> None:
        """Sync the cache batch and close upstream HTTP clients (the store belongs to the caller)."""
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
        f"spent or held; {run})"
    )


class GatewayModel:
    """A ChatModel bound to (gateway, tier, purpose)."""

    def __init__(self, gateway: Gateway, tier: str, purpose: str, config: TierConfig | None) -> None:
        self.gateway = gateway
        self.tier = tier
        self.purpose = purpose
        self.config = config
        self.api_base = config.api_base if config is not None and not gateway.simulated else None

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
            return self._answer(request, asked, upstream, key=key, slot=slot, text_tools=text_tools, started=started)
        # Coalescing: an identical request already in flight answers this one too, as a cache hit
        # would have had it come a moment later (no reservation, no payment, no paid ledger row).
        out, shared = gw.inflight.share(
            slot,
            lambda: self._answer(request, asked, upstream, key=key, slot=slot, text_tools=text_tools, started=started),
        )
        return self._hit(out, key, model_id, started) if shared else out

    def _hit(self, hit: ChatResponse, key: str, model_id: str, started: float) -> ChatResponse:
        """An answer this call did not pay for (the cache's, or an identical call's in flight)."""
        gw = self.gateway
        latency = (time.perf_counter() - started) * 1000
        gw.store.record_hit(
            self._entry(
                key,
                model_id,
                cache_hit=True,
                latency_ms=latency,
                tokens_in=hit.usage.tokens_in,
                tokens_out=hit.usage.tokens_out,
            ),
            ledger_row=gw.ledger_hits,
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
        secret = key_from_env(self.config.api_key_env) if self.config is not None else None
        try:
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
        gw.store.settle(
            reservation,
            self._entry(
                key,
                model_id,
                tokens_in=usage.tokens_in,
                tokens_out=usage.tokens_out,
                tokens_cached=usage.tokens_cached,
                cost_usd=cost,
                latency_ms=latency,
                attempts=attempts,
            ),
        )
        return out

    def _cache_slot(self, key: str) -> str:
        """Where the answer to request `key` is cached: for the simulator, per simulator version."""
        if not self.gateway.simulated:
            return key
        from ratchet.sim.version import sim_code_digest

        return digest({"request": key, "simulator": sim_code_digest()})

    def _price(self, model: str) -> Price | None:
        if self.gateway.simulated:
            return self.gateway.project.config.prices.get(model)
        return price_for(self.gateway.project.config, model)
