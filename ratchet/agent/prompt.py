"""The system prompt the MinimalRunner sends: preamble, frozen date, and the fired skill's body.

In that order, fixed first: the preamble and the date (a project setting) are the same for every task
and edit, the body is what an edit changes, so a prompt cache keeps the prefix before it (ADR 0022).
The text tool protocol puts the tools before all of it (ratchet.llm.textproto).

The body goes in with Markdown comments removed, trailing spaces stripped and runs of blank
lines collapsed. Those are invisible in rendered Markdown, and dropping them keeps the prompt,
its cache key and the replay identical under whitespace- and comment-only (N0) edits.

The body sits between `<skill name="...">` and `</skill>` (ratchet.skills.rules.SKILL_CLOSE). A body is the
edit under review, so it must not be able to end that block early and put its last steps
outside the skill, where neither the simulator nor a live model reads them as the skill's: any
closing tag a reader could take for it (`</skill>`, `</SKILL>`, `</ skill >`) is sent as
`<\\/skill>`, the JSON/JavaScript spelling a live model still reads as the same text. Nothing
else changes, so a body without such a tag (every shipped skill) gives the same bytes, and the
same cache keys, as before the escape. The name attribute is HTML-escaped (`"`, `<`, `>`, `&`,
line breaks) so it cannot forge a block either; validation allows only letters, digits and
hyphens there, which the escape leaves as they are.
"""

from __future__ import annotations

import datetime as dt
import html
import re

from ratchet.core.markup import drop_html_comments
from ratchet.skills.rules import SKILL_CLOSE
from ratchet.skills.skill import Skill

PREAMBLE = (
    "You are the operations agent for acme. You act only through the tools you are offered; "
    "they operate on acme's systems, so call one only when your instructions call for it. "
    "When the work is done, reply with the final answer and no tool call."
)
SKILL_BLOCK = re.compile(r'<skill name="([^"]+)">\n(.*?)\n' + re.escape(SKILL_CLOSE), re.S)
# `<` of `</skill`, `</ SKILL` ...: a backslash after it is the whole escape.
_CLOSE_TAG = re.compile(r"<(?=/\s*" + re.escape(SKILL_CLOSE[2:-1]) + r"\b)", re.I)


def normalize_body(body: str) -> str:
    text = drop_html_comments(body)
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n")


def escape_body(body: str) -> str:
    """The body with every closing skill tag spelled `<\\/skill>`, so the block holds all of it."""
    return _CLOSE_TAG.sub(r"<\\", body)


def _escape_name(name: str) -> str:
    return html.escape(name, quote=True).replace("\r", "&#13;").replace("\n", "&#10;")


def system_prompt(frozen_time: str, skill: Skill | None) -> str:
    moment = dt.datetime.fromisoformat(frozen_time.replace("Z", "+00:00"))
    parts = [PREAMBLE, f"Current date and time: {frozen_time} ({moment.strftime('%A')})."]
    if skill is not None:
        name = _escape_name(skill.name)
        parts.append(
            f"Follow the instructions of the skill `{name}` below.\n"
            f'<skill name="{name}">\n{escape_body(normalize_body(skill.body))}\n{SKILL_CLOSE}'
        )
    return "\n\n".join(parts)


def read_skill_block(system: str) -> tuple[str, str] | None:
    """The (name, body) of the skill block in a system prompt, as a reader of it takes them.

    The name is unescaped; the body is given as sent (with `<\\/skill>`), as a model reads it.
    """
    block = SKILL_BLOCK.search(system)
    if block is None:
        return None
    return html.unescape(block.group(1)), block.group(2)
