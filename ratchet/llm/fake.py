"""A scripted ChatModel shipped in the package: tests queue answers, it replays them in order.

Like simonw/llm's MockModel. It also records every request it was sent, so a test can
assert what reached the "model" (and what did not).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable

from ratchet.core.chat import ChatRequest, ChatResponse, Message, Usage, approx_tokens
from ratchet.core.errors import ModelCallError

Script = ChatResponse | str | Exception | Callable[[ChatRequest], ChatResponse]


class ScriptedModel:
    """Answers from a queue; when the queue is empty, a default echo (or ModelCallError)."""

    def __init__(self, model_id: str = "scripted/fake", responses: Iterable[Script] = (), *, echo: bool = True):
        self._model_id = model_id
        self._queue: deque[Script] = deque(responses)
        self._lock = threading.Lock()
        self.echo = echo
        self.requests: list[ChatRequest] = []

    @property
    def model_id(self) -> str:
        return self._model_id

    def enqueue(self, *items: Script) -> ScriptedModel:
        with self._lock:
            self._queue.extend(items)
        return self

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            self.requests.append(request)
            item: Script | None = self._queue.popleft() if self._queue else None
        if item is None:
            if not self.echo:
                raise ModelCallError(f"{self._model_id}: no scripted response left")
            last = request.messages[-1].content or "" if request.messages else ""
            item = f"echo: {last}"
        if isinstance(item, Exception):
            raise item
        if isinstance(item, str):
            prompt = " ".join(m.content or "" for m in request.messages)
            return ChatResponse(
                message=Message(role="assistant", content=item),
                usage=Usage(tokens_in=approx_tokens(prompt), tokens_out=approx_tokens(item)),
                model=self._model_id,
            )
        if isinstance(item, ChatResponse):
            return item.model_copy(update={"model": item.model or self._model_id})
        return item(request)
