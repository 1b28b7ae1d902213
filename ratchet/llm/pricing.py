"""Catalog prices: what a call costs, and the most it could cost before it is made.

Prices come from ratchet.yaml only (USD per token). litellm's bundled price map is not
consulted: it drifts from a provider's catalog, and a gate must never guess what it spends.
"""

from __future__ import annotations

from ratchet.config.project import Price, RatchetConfig
from ratchet.core.chat import ChatRequest, Message, ToolSpec, Usage
from ratchet.core.chatjson import messages_json, tools_json
from ratchet.core.errors import ConfigError
from ratchet.core.jsonio import canonical_dumps

# Chat templates add a few tokens of framing per message.
_PER_MESSAGE_TOKENS = 8


def price_for(config: RatchetConfig, model_id: str) -> Price:
    """The configured price of a model; ConfigError (before any call) when there is none."""
    price = config.prices.get(model_id)
    if price is None:
        raise ConfigError(
            f"no price for model {model_id!r}: add it under `prices:` in ratchet.yaml "
            "(USD per token; an explicit 0 is fine for a local model)"
        )
    return price


def cost_of(price: Price, usage: Usage) -> float:
    """USD for the tokens a call used; cached prompt tokens at the cached-input price when set."""
    cached = min(usage.tokens_cached, usage.tokens_in)
    cached_price = price.cached_input if price.cached_input is not None else price.input
    return (usage.tokens_in - cached) * price.input + cached * cached_price + usage.tokens_out * price.output


def input_token_bound(request: ChatRequest) -> int:
    """An upper bound on prompt tokens: byte-level BPE never makes more tokens than bytes."""
    framing = _PER_MESSAGE_TOKENS * (len(request.messages) + 1)
    if (  # a subclass's fields are not in the request's dump (it dumps its declared types): dumped whole
        type(request) is not ChatRequest
        or any(type(message) is not Message for message in request.messages)
        or any(type(tool) is not ToolSpec for tool in request.tools)
    ):
        payload = request.model_dump(mode="json", include={"messages", "tools", "response_format"})
        return len(canonical_dumps(payload, indent=None).encode()) + framing
    # The same text, its messages and tools serialised once per process (ratchet.core.chatjson), not per call.
    response_format = canonical_dumps(request.model_dump(mode="json", include={"response_format"}), indent=None)
    text = (
        '{"messages":'
        + messages_json(request.messages)
        + ","
        + response_format[1:-1]
        + ',"tools":'
        + tools_json(request.tools)
        + "}"
    )
    return len(text.encode()) + framing


def worst_case_cost(price: Price, request: ChatRequest) -> float:
    """What a call could cost at most: the input bound plus max_tokens, all at full price."""
    return input_token_bound(request) * price.input + request.max_tokens * price.output


def tier_price(config: RatchetConfig, tier: str) -> Price | None:
    """The catalog price of a tier's model; None when it has none."""
    tier_config = config.tiers.get(tier)
    return config.prices.get(tier_config.model) if tier_config is not None else None


def catalog_usd(config: RatchetConfig, tier: str, usage: Usage) -> float:
    """What `usage` costs on `tier` at catalog prices, whether or not it was paid (a cache hit is not).

    The benchmark prices its results this way so they do not depend on what the cache held.
    0 for a tier whose model has no price.
    """
    price = tier_price(config, tier)
    return cost_of(price, usage) if price is not None else 0.0
