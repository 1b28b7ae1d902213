"""How a finding's message names what changed: a quoted text, the place it sits, an action, a kind of
instruction, the stretch of words a rewording changed."""

from __future__ import annotations

from difflib import SequenceMatcher

from ratchet.config.harness import HarnessName
from ratchet.diff.instructions import Instruction
from ratchet.diff.reading import Action

QUOTE_CHARS = 90
_TAKES_RECIPIENT = frozenset({"email", "e-mail", "mail", "cc", "notify", "ping", "invite", "message", "dm", "pay"})


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` in single quotes, cut at `limit` characters with an ellipsis."""
    text = " ".join(text.split())
    return f"'{text if len(text) <= limit else text[: limit - 1].rstrip() + '…'}'"


def located(instruction: Instruction) -> str:
    """ " in step 3" (its step, frontmatter key or section), or nothing when it sits in none."""
    where = instruction.where
    return f" in {where}" if where else ""


def act(action: Action) -> str:
    """What an action has the agent do: "call email_send", "run `git push`", "email finance@example.com"."""
    target = f" {action.target}" if action.target else ""
    if action.via == "tool":
        return f"call {action.name}{target}"
    if action.via == "command":
        return f"run `{action.name}`{target}"
    # "email finance@example.com", but "post to #finance", "send to ops@example.com".
    joined = target if action.name in _TAKES_RECIPIENT or not target else f" to{target}"
    return f"{action.name}{joined}"


def does(action: Action) -> str:
    """ "tells the agent to <act> (<effect>)"."""
    return f"tells the agent to {act(action)} ({action.effect})"


def what(instruction: Instruction, harness: HarnessName) -> str:
    """The kind of instruction, as a message names it ("the list item"; a comment says the harness sends it)."""
    if instruction.kind == "comment":
        return f"a comment the model reads ({harness} sends SKILL.md as written):"
    return {"heading": "the heading", "code": "the code", "row": "the table row", "item": "the list item"}.get(
        instruction.kind, "the instruction"
    )


def word_change(old: str, new: str) -> str:
    """The first differing stretch of two texts, with two words of context: "'a friendly' -> 'a warm, friendly'"."""
    a, b = old.split(), new.split()
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            start_a, start_b = max(i1 - 2, 0), max(j1 - 2, 0)
            return f"{quote(' '.join(a[start_a : i2 + 2]))} -> {quote(' '.join(b[start_b : j2 + 2]))}"
    return f"{quote(old)} -> {quote(new)}"
