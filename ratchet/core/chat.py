"""The one model interface: a chat request in, a chat response out.

Messages follow the OpenAI chat shape so the same request can go to litellm, to the
capture proxy, or to the simulator without translation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, Field, PlainSerializer

USD_PLACES = 9
USD = Annotated[float, PlainSerializer(lambda value: round(value, USD_PLACES), return_type=float)]
"""Money: carried unrounded through every sum, rounded once, when it is written (9 places)."""


class ToolCallRequest(BaseModel):
    """A tool call the model asked for."""

    id: str = Field(description="Call id, echoed in the tool message that answers it.")
    name: str = Field(description="Tool name, e.g. github_add_label.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Parsed JSON arguments.")


class Message(BaseModel):
    """One chat message (system, user, assistant or tool)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    tool_call_id: str | None = Field(default=None, description="For role=tool: the call answered.")
    name: str | None = Field(default=None, description="For role=tool: the tool's name.")


class ToolSpec(BaseModel):
    """A tool offered to the model, as an OpenAI function schema."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ChatRequest(BaseModel):
    """Everything that changes a model's answer. Nothing operational (timeouts, retries)."""

    messages: list[Message]
    tools: list[ToolSpec] = Field(default_factory=list)
    tool_choice: str | None = None
    response_format: dict[str, Any] | None = None
    max_tokens: int = 1024
    temperature: float = 0.0
    seed: int = 0


class Usage(BaseModel):
    """What one call used, or what several used together (`+`): tokens and the USD paid for them.

    `usd` is what was paid: a response served from Ratchet's cache keeps its tokens and costs 0.
    """

    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = Field(default=0, description="Prompt tokens the provider served from its prompt cache.")
    usd: USD = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            tokens_in=self.tokens_in + other.tokens_in,
            tokens_out=self.tokens_out + other.tokens_out,
            tokens_cached=self.tokens_cached + other.tokens_cached,
            usd=self.usd + other.usd,
        )

    @classmethod
    def total(cls, usages: Iterable[Usage]) -> Usage:
        """The sum of several usages, in order (the one place usage is summed)."""
        result = cls()
        for usage in usages:
            result = result + usage
        return result


class ChatResponse(BaseModel):
    """A model's answer plus what it used. Raw models fill message and tokens; the gateway prices it."""

    message: Message
    usage: Usage = Field(default_factory=Usage)
    model: str = Field(default="", description="Model id that answered.")
    finish_reason: str = "stop"
    latency_ms: float = 0.0
    cache_hit: bool = False
    simulated: bool = False
    request_digest: str = ""
    free_text: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Why the request's response_format could not be asked for (ratchet.llm.live), so the answer "
        "is free text; absent when it was asked, or none was requested.",
    )


class ChatModel(Protocol):
    """Anything that answers chat requests: the simulator, litellm, a scripted fake, the gateway."""

    @property
    def model_id(self) -> str:
        """Identity of the model behind this interface (part of every cache key)."""
        ...

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer one request. Raise ModelCallError on failure."""
        ...


def approx_tokens(text: str) -> int:
    """Deterministic token estimate (about 4 characters a token) for the simulator and estimates."""
    return max(1, (len(text) + 3) // 4) if text else 0
