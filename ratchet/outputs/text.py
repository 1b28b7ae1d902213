"""Escaping user text (task prompts, judge rationales, tool arguments) for Markdown, HTML and code fences.

A judge's rationale or a tool argument is text a task author or a model wrote; unescaped, a `|`
splits a table row, a `</details>` closes the block early and `<img src=...>` loads from a PR
comment. Everything user-written goes through one of these before it reaches a report.
"""

from __future__ import annotations

import html
import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~#!])")
_BACKTICKS = re.compile(r"`+")


def one_line(text: str) -> str:
    """Whitespace runs (newlines included) as one space: a table cell or summary is one line."""
    return " ".join(text.split())


def md_inline(text: str) -> str:
    """Text shown literally inside a Markdown paragraph or table cell, on one line."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", one_line(text))


def html_inline(text: str) -> str:
    """Text shown literally inside an HTML element (a <summary>), on one line."""
    return html.escape(one_line(text), quote=True)


def code_block(text: str, info: str = "") -> str:
    """A fenced code block that no run of backticks in `text` can close early."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}{info}\n{body}{fence}"
