"""Key hygiene: API keys are read from the environment at call time and scrubbed from any
text Ratchet may print or store (error messages from providers sometimes echo them)."""

from __future__ import annotations

import os
from collections.abc import Iterable

_MASK = "[redacted]"


def key_from_env(name: str | None) -> str | None:
    """The key in env var `name`, or None. Never stored on an object with a repr."""
    if not name:
        return None
    value = os.environ.get(name)
    return value or None


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every secret (and a long prefix of it, as providers echo partial keys) in text."""
    for secret in secrets:
        if not secret or len(secret) < 4:
            continue
        text = text.replace(secret, _MASK)
        if len(secret) >= 20:
            text = text.replace(secret[:12], _MASK)
    return text
