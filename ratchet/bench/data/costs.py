"""Catalog pricing, independent of the response cache: what results.json says each verdict cost.

A replay or judge answer served from the cache cost nothing, so what a run paid depends on
what the cache held. results.json prices every call at catalog instead (ratchet.llm.pricing),
and keeps no cache state, so a resumed run writes the same bytes as an uninterrupted one.
Wall-clock figures are 0 already: the bench runs the pipeline on a frozen clock.
"""

from __future__ import annotations

from ratchet.bench.data.results import TierUsage
from ratchet.config.project import RatchetConfig
from ratchet.core.chat import Usage
from ratchet.gate.models import EditReplays, PairOutcome, Verdict
from ratchet.goldens.trace import Trace
from ratchet.llm.pricing import catalog_usd


def stable_trace(trace: Trace, config: RatchetConfig) -> Trace:
    """A trace with cache state removed, every model call at catalog prices, and no Ratchet version or tool
    protocol stamp (ratchet.gate.provenance): the stored replays stay byte-stable across Ratchet releases."""
    calls = [
        call.model_copy(update={"cache_hit": False, "cost_usd": catalog_usd(config, call.tier, call.usage)})
        for call in trace.model_calls
    ]
    unstamped = {"tool_protocol": "", "ratchet_version": ""}
    return trace.model_copy(update={"model_calls": calls, **unstamped}).with_totals()


def stable_replays(replays: EditReplays, config: RatchetConfig) -> EditReplays:
    return EditReplays(
        replays={k: stable_trace(t, config) for k, t in sorted(replays.replays.items())},
        base_replays={k: stable_trace(t, config) for k, t in sorted(replays.base_replays.items())},
    )


def stable_pair(pair: PairOutcome, replays: EditReplays, config: RatchetConfig) -> PairOutcome:
    """A pair outcome with its opinions, and the replays it paid for, at catalog prices."""
    opinions = [
        o.model_copy(update={"cache_hit": False, "cost_usd": catalog_usd(config, o.tier, o.usage)})
        for o in pair.opinions
    ]
    usages = [o.usage for o in opinions]
    runs = pair.repeats.replays if pair.repeats is not None else 1
    for key in [pair.task_id, *(f"{pair.task_id}#{run}" for run in range(1, runs))]:  # a repeated pair paid for each
        replay = replays.replays.get(key)
        if replay is not None:
            usages.append(replay.usage)
    base = replays.base_replays.get(pair.task_id)
    if base is not None and pair.drift is not None and pair.drift.base_replay_ran:
        usages.append(base.usage)
    return pair.model_copy(update={"opinions": opinions, "cost_usd": Usage.total(usages).usd})


def stable_verdict(verdict: Verdict, replays: EditReplays, config: RatchetConfig) -> Verdict:
    """The verdict as results.json keeps it: byte-stable for the same inputs and seed."""
    pairs = [stable_pair(p, replays, config) for p in verdict.pairs]
    return verdict.model_copy(update={"pairs": pairs, "cost_usd": sum(p.cost_usd for p in pairs)})


def usage_of(replays: EditReplays, pairs: list[PairOutcome], config: RatchetConfig) -> dict[str, TierUsage]:
    """Per-tier usage of one verdict: the replays it used and every judge opinion, at catalog prices."""
    by_tier: dict[str, list[Usage]] = {}
    for trace in [*replays.replays.values(), *replays.base_replays.values()]:
        for call in trace.model_calls:
            by_tier.setdefault(call.tier, []).append(call.usage)
    for pair in pairs:
        for opinion in pair.opinions:
            by_tier.setdefault(opinion.tier, []).append(opinion.usage)
    usage: dict[str, TierUsage] = {}
    for tier, usages in sorted(by_tier.items()):
        total = Usage.total(usages)
        usage[tier] = TierUsage(
            calls=len(usages),
            tokens_in=total.tokens_in,
            tokens_out=total.tokens_out,
            tokens_cached=total.tokens_cached,
            usd=sum(catalog_usd(config, tier, u) for u in usages),
        )
    return usage
