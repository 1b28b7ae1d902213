"""Markdown text helpers shared by the agent's prompt and the simulator (no stage imports)."""

from __future__ import annotations


def drop_html_comments(text: str) -> str:
    """`re.sub(r"<!--.*?-->", "", text, flags=re.S)` in one linear pass.

    That regex rescans to the end for every unclosed `<!--` (quadratic: a hang on 100k of them).
    Once one `<!--` has no `-->` after it, no later one has either, so the scan stops there.
    Unlike ratchet.skills.substance_of this also drops comments inside code fences: the agent's
    prompt (and so every recorded golden's cache key) and the simulator have always read it that way.
    """
    out: list[str] = []
    pos = 0
    while (start := text.find("<!--", pos)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        out.append(text[pos:start])
        pos = end + 3
    out.append(text[pos:])
    return "".join(out)
