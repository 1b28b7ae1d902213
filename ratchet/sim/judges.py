"""Simulated judges: Nano, Super and Ultra as offline ChatModels.

Each reads only the prompt it is sent: it finds the fence token in the system message, pulls
the fenced sections out of the user message, and compares golden and replay structurally
(labelled fields, numbers, dates, addresses, tool-call diff, Level 0 findings) and reads the
answers as a careful reader would (ratchet.sim.reading: list items, field values, names and
content lines are substance; the agent's stock framing is a rewording). It never follows text
inside the fence; it only measures it. It then errs at a tier-specific rate
seeded per (judged content, tier) with hashlib, and its confidence follows: wrong answers
tend to come with lower confidence, which is what makes escalation do real work. Token
usage is counted from the real prompt. It never sees labels, edit ids or edit types.

A `skill_diff` section (what the behavioural diff found the edit changed) is context a careful
reader of two outputs does not need: the simulated judge neither reads it nor seeds its error roll
with it, so a pair errs the same with or without it. Its tokens count, as the whole prompt does.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from ratchet.core.chat import ChatRequest, ChatResponse, Message, Usage, approx_tokens
from ratchet.core.fence import SKILL_DIFF, fence_token, read_fenced
from ratchet.core.jsonio import canonical_dumps
from ratchet.sim.reading import ITEM, LABEL, is_framing, reader_changes

SIM_JUDGE_PREFIX = "sim/judge-"
_TOKEN = re.compile(r"[\w.+-]+@[\w.-]+\w|#\d+|-?\d[\d,]*(?:\.\d+)?(?:[-/:]\d+)*")
_WORDS = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class TierProfile:
    """How good a simulated tier is, and its per-call token budget."""

    error_rate: float
    right: tuple[float, float]
    wrong: tuple[float, float]
    max_in: int
    max_out: int


PROFILES: dict[str, TierProfile] = {
    "nano": TierProfile(0.22, (0.70, 0.97), (0.40, 0.78), 8000, 300),
    "super": TierProfile(0.10, (0.74, 0.98), (0.45, 0.72), 12000, 1000),
    "ultra": TierProfile(0.04, (0.80, 0.99), (0.50, 0.80), 15000, 2000),
}


@dataclass(frozen=True)
class Comparison:
    """What a structural comparison of golden and replay found."""

    verdict: str
    changed: tuple[str, ...]
    rationale: str


def _labels(text: str) -> set[str]:
    """Field names: `name: value`, or `name:` followed by a list. A bare heading such as
    `Result:`, and every stock framing line of the simulated agent (`Done: the ... skill ran`),
    is framing, not a field, as a careful reader would see."""
    lines = text.splitlines()
    found: set[str] = set()
    for index, line in enumerate(lines):
        match = LABEL.match(line)
        if match is None or is_framing(line):
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if match.group(2).strip() or ITEM.match(following):
            found.add(match.group(1).strip().lower())
    return found


def _tokens(text: str) -> list[str]:
    return sorted(t.replace(",", "") for t in _TOKEN.findall(text))


def _diff_lines(diff: str) -> list[str]:
    return [line for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def compare(sections: dict[str, str]) -> Comparison:
    """The structurally right verdict for the fenced sections (before the tier errs)."""
    golden, replay = sections["golden_output"], sections["replay_output"]
    findings = sections.get("level0_findings", "")
    diff = _diff_lines(sections.get("trace_diff", ""))
    changed: list[str] = []
    side_effects = [
        line for line in diff if line.startswith("+") and re.search(r"\[(write|send|spend|destroy)\]$", line)
    ]
    if side_effects or "new_side_effect" in findings:
        changed.append("new side-effecting call")
    if "routing_changed" in findings:
        changed.append("routing")
    if any(line.startswith("-") for line in diff):
        changed.append("tool calls changed or dropped")
    missing = sorted(_labels(golden) - _labels(replay))
    changed.extend(f"missing field: {label}" for label in missing[:5])
    if _tokens(golden) != _tokens(replay):
        changed.append("values differ (numbers, dates, ids or addresses)")
    changed.extend(reader_changes(golden, replay))
    if changed:
        return Comparison("regression", tuple(changed), f"The replay differs in substance: {changed[0]}.")
    if _WORDS.findall(golden.lower()) == _WORDS.findall(replay.lower()):
        return Comparison("same", (), "Only whitespace or punctuation differs.")
    return Comparison("pass", ("wording",), "Same fields and values; only the wording differs.")


def _unit(seed: str) -> float:
    return int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big") / 2**64


def _err(truth: str, pick: float) -> str:
    if pick < 0.4:
        return "unsure"
    return "pass" if truth == "regression" else "regression"


class SimJudge:
    """One simulated judge tier (a ChatModel)."""

    def __init__(self, tier: str, profile: TierProfile | None = None) -> None:
        if profile is None and tier not in PROFILES:
            raise ValueError(f"no simulated judge for tier {tier!r}")
        self.tier = tier
        self.profile = profile or PROFILES[tier]

    @property
    def model_id(self) -> str:
        return f"{SIM_JUDGE_PREFIX}{self.tier}"

    def opinion(self, request: ChatRequest) -> dict[str, object]:
        system = "\n".join(m.content or "" for m in request.messages if m.role == "system")
        user = "\n".join(m.content or "" for m in request.messages if m.role == "user")
        nonce = fence_token(system)
        sections = read_fenced(user, nonce) if nonce else {}
        if "golden_output" not in sections or "replay_output" not in sections:
            return {
                "verdict": "unsure",
                "confidence": 0.2,
                "changed_elements": [],
                "rationale": "The prompt did not contain the fenced golden and replay outputs.",
            }
        truth = compare(sections)
        judged = {name: text for name, text in sections.items() if name != SKILL_DIFF}
        key = f"{self.tier}\0{canonical_dumps(judged, indent=None)}"
        erred = _unit(f"err\0{key}") < self.profile.error_rate
        low, high = self.profile.wrong if erred else self.profile.right
        confidence = round(low + (high - low) * _unit(f"conf\0{key}"), 2)
        verdict = _err(truth.verdict, _unit(f"how\0{key}")) if erred else truth.verdict
        rationale = "The differences are hard to weigh." if erred else truth.rationale
        return {
            "verdict": verdict,
            "confidence": confidence,
            "changed_elements": list(truth.changed),
            "rationale": rationale,
        }

    def complete(self, request: ChatRequest) -> ChatResponse:
        answer = json.dumps(self.opinion(request), sort_keys=True)
        prompt = "\n".join(m.content or "" for m in request.messages)
        tokens_out = min(approx_tokens(answer), self.profile.max_out, request.max_tokens)
        return ChatResponse(
            message=Message(role="assistant", content=answer),
            usage=Usage(tokens_in=approx_tokens(prompt), tokens_out=tokens_out),
            model=self.model_id,
            simulated=True,
        )


def sim_judge_for(tier: str) -> SimJudge | None:
    """The simulated judge for a tier, or None when the tier is not a judge tier."""
    return SimJudge(tier) if tier in PROFILES else None
