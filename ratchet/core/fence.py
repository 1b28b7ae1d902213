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


_NAME_LINE = re.compile(r"(\w+)>>>\n")


def read_fenced(text: str, nonce: str) -> dict[str, str]:
    """Sections fenced with exactly this nonce; a forged delimiter with another token is just data.

    What `^<<<BEGIN {nonce} (\\w+)>>>\\n(.*?)\\n<<<END {nonce} \\1>>>$` (MULTILINE, DOTALL) finds, found
    with str.find: a pattern compiled per nonce cost more than the rest of a simulated judge's reading.
    """
    begin = f"<<<BEGIN {nonce} "
    sections: dict[str, str] = {}
    at = text.find(begin)
    while at != -1:
        name = _NAME_LINE.match(text, at + len(begin)) if at == 0 or text[at - 1] == "\n" else None
        if name is not None:
            end = f"\n<<<END {nonce} {name.group(1)}>>>"
            close = text.find(end, name.end())
            while close != -1 and close + len(end) < len(text) and text[close + len(end)] != "\n":
                close = text.find(end, close + 1)  # `$`: the END line ends there; else the next one
            if close != -1:
                sections[name.group(1)] = text[name.end() : close]
                at = text.find(begin, close + len(end))
                continue
        at = text.find(begin, at + 1)
    return sections
