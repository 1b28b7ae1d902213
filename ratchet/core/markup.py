"""Markdown text helpers shared by the agent's prompt and the simulator (no stage imports)."""

from __future__ import annotations

import re


def drop_html_comments(text: str) -> str:
    """`re.sub(r"<!--.*?-->", "", text, flags=re.S)` in one linear pass.

    That regex rescans to the end for every unclosed `<!--` (quadratic: a hang on 100k of them).
    Once one `<!--` has no `-->` after it, no later one has either, so the scan stops there.
    Unlike ratchet.skills.skill.substance_of this also drops comments inside code fences: the agent's
    prompt (and so every recorded golden's cache key) and the simulator have always read it that way.
    """
    return "".join(text[start:end] for start, end in kept_outside_html_comments(text))


def kept_outside_html_comments(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the text drop_html_comments keeps, in order (one linear scan)."""
    kept: list[tuple[int, int]] = []
    pos = 0
    while (start := text.find("<!--", pos)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        kept.append((pos, start))
        pos = end + 3
    kept.append((pos, len(text)))
    return kept


# A fenced code block is kept whole (a `<!--` inside one is content, not a comment); a comment
# outside one is dropped. This is one left-to-right pass with the meaning of the regex
#   (^[ \t]*(```|~~~).*?^[ \t]*\2[^\n]*$)|<!--.*?-->   (re.S | re.M; keep group 1, drop the rest)
# which rescanned to the end for every unclosed `<!--`: quadratic, 17 s for a 78 KiB SKILL.md.
# Linear: `^` fails at once off a line start, and `[ \t]*` is tried once per line.
_FENCE_LINE = re.compile(r"^[ \t]*(```|~~~)", re.M)


def _fence_lines(text: str) -> list[tuple[int, int, str]]:
    """(start, end, marker) of every line whose first non-blank characters are a fence marker."""
    found = []
    for match in _FENCE_LINE.finditer(text):
        end = text.find("\n", match.end())
        found.append((match.start(), len(text) if end < 0 else end, match.group(1)))
    return found


def drop_comments_outside_fences(text: str) -> str:
    """Markdown comments dropped, fenced code blocks kept whole (what a SKILL.md's substance reads)."""
    fences = _fence_lines(text)
    # A fence opened on one of these lines closes on the next line with the same marker, if any.
    closer = [-1] * len(fences)
    last: dict[str, int] = {}
    for i in range(len(fences) - 1, -1, -1):
        closer[i] = last.get(fences[i][2], -1)
        last[fences[i][2]] = i
    out: list[str] = []
    pos = fence = 0
    comment_open = comment_close = -1
    comments_left = True  # once a `<!--` has no `-->` after it, no later one has either
    while True:
        while fence < len(fences) and (fences[fence][0] < pos or closer[fence] < 0):
            fence += 1
        if comments_left and comment_open < pos:
            comment_open = text.find("<!--", pos)
            if comment_open >= 0 and comment_close < comment_open + 4:
                comment_close = text.find("-->", comment_open + 4)
            comments_left = comment_open >= 0 and comment_close >= 0
        fence_start = fences[fence][0] if fence < len(fences) else len(text) + 1
        if comments_left and comment_open < fence_start:
            out.append(text[pos:comment_open])
            pos = comment_close + 3
        elif fence < len(fences):
            end = fences[closer[fence]][1]
            out.append(text[pos:end])
            pos = end
        else:
            out.append(text[pos:])
            return "".join(out)
