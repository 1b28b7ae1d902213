"""The system prompt the MinimalRunner sends: preamble, frozen date, and the fired skill's body.

The body goes in with Markdown comments removed, trailing spaces stripped and runs of blank
lines collapsed. Those are invisible in rendered Markdown, and dropping them keeps the prompt,
its cache key and the replay identical under whitespace- and comment-only (N0) edits.
"""

from __future__ import annotations

import datetime as dt
import re

from ratchet.markup import drop_html_comments
from ratchet.skills import Skill

PREAMBLE = (
    "You are the operations agent for acme. You act only through the tools you are offered; "
    "they operate on acme's systems, so call one only when your instructions call for it. "
    "When the work is done, reply with the final answer and no tool call."
)
SKILL_BLOCK = re.compile(r'<skill name="([^"]+)">\n(.*?)\n</skill>', re.S)


def normalize_body(body: str) -> str:
    text = drop_html_comments(body)
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n")


def system_prompt(frozen_time: str, skill: Skill | None) -> str:
    moment = dt.datetime.fromisoformat(frozen_time.replace("Z", "+00:00"))
    parts = [PREAMBLE, f"Current date and time: {frozen_time} ({moment.strftime('%A')})."]
    if skill is not None:
        parts.append(
            f"Follow the instructions of the skill `{skill.name}` below.\n"
            f'<skill name="{skill.name}">\n{normalize_body(skill.body)}\n</skill>'
        )
    return "\n\n".join(parts)
