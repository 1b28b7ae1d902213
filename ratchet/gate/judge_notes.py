"""What a verdict says about how its judges were asked: a tier whose answers were parsed from free text.

A judge is asked for structured output (a JSON schema the provider constrains decoding to); when its tier
could not be asked for it (litellm says the model does not take a response format, or the server refused
one: ratchet.llm.live), its answers were read from free text by ratchet.gate.opinion, strictly. That is
no limit of the decision (a forged verdict is never read, an ambiguous answer fails closed), but it is how
the evidence was produced, so the verdict names the tier in a note (docs/adr/0021-strict-judge-answers.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ratchet.core.chat import ChatModel
from ratchet.gate.models import PairOutcome, Unseen


def free_text_notes(judges: Mapping[str, ChatModel], pairs: Sequence[PairOutcome]) -> list[Unseen]:
    """One note per judge tier whose answers in this run were free text (the gateway's model records why)."""
    notes: list[Unseen] = []
    for tier, model in judges.items():
        why = getattr(model, "free_text", None)
        if not isinstance(why, str):
            continue
        skills = sorted(
            {p.golden_skill or p.replay_skill or "" for p in pairs if any(o.tier == tier for o in p.opinions)} - {""}
        )
        detail = f"judge tier {tier}: structured output not available ({why}), its answers were parsed from free text"
        notes.append(Unseen(kind="judge", skill=", ".join(skills) or "(none)", level="note", detail=detail))
    return notes
