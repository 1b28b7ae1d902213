"""The fence around untrusted data in a judge's prompt, written and read in one place.

A section is `<<<BEGIN <nonce> <name>>>>` ... `<<<END <nonce> <name>>>>`; the nonce is declared in
the trusted system message as `Fence token: <nonce>`. A delimiter with any other token is data.
The judge prompt writes fences (ratchet.gate.judge_prompt) and the simulated judges read them
(ratchet.sim.judges): both sit above this module, so neither imports the other.
"""

from __future__ import annotations

import re

NONCE_CHARS = 24
FENCE_TOKEN = re.compile(rf"^Fence token: ([0-9a-f]{{{NONCE_CHARS}}})$", re.MULTILINE)
SKILL_DIFF = "skill_diff"
"""The section that carries the behavioural diff of the skill folder."""


def fence(name: str, text: str, nonce: str) -> str:
    """`text` as the section `name`, fenced with `nonce`."""
    return f"<<<BEGIN {nonce} {name}>>>\n{text}\n<<<END {nonce} {name}>>>"


def fence_token(system_text: str) -> str | None:
    """The nonce a prompt declares in its (trusted) system message."""
    match = FENCE_TOKEN.search(system_text)
    return match.group(1) if match else None


def read_fenced(text: str, nonce: str) -> dict[str, str]:
    """Sections fenced with exactly this nonce; a forged delimiter with another token is just data."""
    token = re.escape(nonce)
    pattern = re.compile(rf"^<<<BEGIN {token} (\w+)>>>\n(.*?)\n<<<END {token} \1>>>$", re.MULTILINE | re.DOTALL)
    return {m.group(1): m.group(2) for m in pattern.finditer(text)}
