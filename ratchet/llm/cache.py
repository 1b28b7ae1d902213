"""Content-addressed response cache under the project's work area.

One file per request: <home>/cache/llm/<key[:2]>/<key>.json, written atomically. The key is
the digest of everything that changes the answer and nothing operational. A file that cannot
be read or parsed, or whose key does not match, is a miss (and is overwritten on record).
`CacheMode` says when the gateway reads and writes it.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path

from pydantic import ValidationError

from ratchet.jsonio import atomic_write_text, canonical_dumps, digest
from ratchet.llm.types import ChatRequest, ChatResponse

CACHE_SCHEMA_VERSION = 1


class CacheMode(StrEnum):
    """When a run reads and writes the response cache."""

    ONCE = "once"
    """Replay a recorded answer; call the model (and record) only on a miss."""
    NEW = "new"
    """Always call the model; record only answers not recorded yet."""
    NONE = "none"
    """Replay only: a miss is an error, the model is never called."""
    ALL = "all"
    """Always call the model and re-record every answer."""


def _normal_base(api_base: str | None) -> str | None:
    return api_base.rstrip("/") if api_base else None


def cache_key(model_id: str, api_base: str | None, request: ChatRequest) -> str:
    """sha256 over model, api base and the whole request in canonical (sorted-key) JSON."""
    return digest(
        {
            "v": CACHE_SCHEMA_VERSION,
            "model": model_id,
            "api_base": _normal_base(api_base),
            "request": request.model_dump(mode="json"),
        }
    )


class ResponseCache:
    """Record/replay store of ChatResponses by cache key."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ChatResponse | None:
        try:
            raw = json.loads(self.path(key).read_text(encoding="utf-8"))
            if raw.get("schema_version") != CACHE_SCHEMA_VERSION or raw.get("key") != key:
                return None
            return ChatResponse.model_validate(raw["response"])
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError, ValidationError):
            return None

    def put(self, key: str, response: ChatResponse) -> None:
        record = {"schema_version": CACHE_SCHEMA_VERSION, "key": key, "response": response.model_dump(mode="json")}
        atomic_write_text(self.path(key), canonical_dumps(record))

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None


def cache_root(home: Path) -> Path:
    return home / "cache" / "llm"
