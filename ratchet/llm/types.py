"""The one model interface: a chat request in, a chat response out.

Messages follow the OpenAI chat shape so the same request can go to litellm, to the
capture proxy, or to the simulator without translation.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field


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
    """Token counts for one call."""

    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = Field(default=0, description="Prompt tokens the provider served from its prompt cache.")


class ChatResponse(BaseModel):
    """A model's answer plus what it cost. Raw models fill message and usage; the gateway the rest."""

    message: Message
    usage: Usage = Field(default_factory=Usage)
    model: str = Field(default="", description="Model id that answered.")
    finish_reason: str = "stop"
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    cache_hit: bool = False
    simulated: bool = False
    request_digest: str = ""


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
