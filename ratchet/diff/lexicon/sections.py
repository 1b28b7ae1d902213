"""Where a SKILL.md's parts begin and end: an output section's heading or lead-in, a line closing the skill block."""

from __future__ import annotations

import re

OUTPUT_HEADING = re.compile(
    r"\b(outputs?|results?|responses?|reply|replies|answer|report|format|deliverables?|returns?|template|"
    r"fields|columns|sections)\b",
    re.I,
)
"""A heading that opens an output section: its list items, table rows and sub-headings are output elements."""

OUTPUT_LEAD_IN = re.compile(r"\b(reply|respond|output|return|report|include|fields?|format|answer)\b", re.I)
"""A sentence ending in ':' with one of these words introduces an output list."""

# -- skill-closing delimiters --------------------------------------------------------------------

CLOSING_TAGS: tuple[str, ...] = (
    "skill",
    "skill_content",
    "skill-content",
    "command-message",
    "command-name",
    "command-args",
    "system-reminder",
    "system",
    "instructions",
    "user",
    "assistant",
)
"""Closing tags a harness (or a model's chat template) uses to end the block the skill is sent in."""

CLOSING_LINE = re.compile(r"^\s*</\s*(" + "|".join(re.escape(t) for t in CLOSING_TAGS) + r")\s*>\s*$", re.I)
"""A line that is only such a closing tag."""
