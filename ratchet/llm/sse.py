"""Server-sent events, as the three wire APIs frame a stream.

The proxy asks the gateway for the whole answer first and only then streams it: a budget
refusal or an upstream failure is still an ordinary HTTP error the client's SDK understands,
and the bytes of a stream are a pure function of the answer (a cached repeat streams the same).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ratchet.core.jsonio import canonical_dumps


def frame(data: dict[str, Any] | str, *, event: str | None = None) -> str:
    """One SSE frame: an optional `event:` line, one `data:` line, a blank line."""
    payload = data if isinstance(data, str) else canonical_dumps(data, indent=None)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n"


def typed_frames(events: Iterable[dict[str, Any]]) -> Iterator[str]:
    """Frames whose event name is the payload's own `type` (Anthropic Messages, OpenAI Responses)."""
    for payload in events:
        yield frame(payload, event=str(payload["type"]))
