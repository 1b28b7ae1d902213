"""The judge prompt: a versioned file, untrusted content fenced in per-call nonce delimiters.

Every piece of judged content (task, outputs, findings, trace diff) sits between
`<<<BEGIN <nonce> <name>>>>` and `<<<END <nonce> <name>>>>`. The nonce is a hash over the
pair id, tier, attempt and the fenced content itself, so it is deterministic (same inputs,
same prompt, a cache hit) yet the content cannot contain it: to forge the closing line the
content would have to include the hash of itself. See docs/adr/0005-judge-cascade.md.

The system message is laid out for prefix caching (docs/adr/0022-prompt-layout.md): the packaged
prompt declares the nonce (`Fence token: ...`) in its last paragraph, after the rubric, so every
call shares the rubric as a cached prefix; the declaration is still trusted text before the data.

A tier with swap_check is asked a second time with the replay's output shown before the
golden's (`swapped=True`): same section names, same text, only the position moves, and the
order is part of the nonce, so the two requests never share a nonce or a cache entry.

When the behavioural diff (ratchet.diff) named changes in a skill the pair ran, a `skill_diff`
section lists them, fenced like every other datum: its lines quote the edited skill, which is
untrusted text, and the prompt tells the judge it is evidence of what changed, not instructions.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel

from ratchet.core.chat import ChatRequest, Message
from ratchet.core.errors import ConfigError
from ratchet.core.fence import NONCE_CHARS, SKILL_DIFF, fence, fence_token
from ratchet.core.jsonio import canonical_dumps
from ratchet.core.yamlio import load_yaml_text
from ratchet.diff.models import SkillDiff
from ratchet.gate.models import Finding
from ratchet.gate.opinion import OPINION_SCHEMA
from ratchet.gate.state_diff import state_diff_text
from ratchet.goldens.trace import ToolCall, Trace
from ratchet.skills.names import optional_skill_key, skill_key

SECTIONS: tuple[str, ...] = ("task", "golden_output", "replay_output", "level0_findings", "trace_diff")
RETRY_NOTE = "Your previous answer could not be parsed. Answer with the JSON object only."
_PLACEHOLDER = "{{nonce}}"
_DECLARATION = f"Fence token: {_PLACEHOLDER}"


class JudgeCall(NamedTuple):
    """One judge call's request and the nonce its data is fenced with: the answer is read with this nonce,
    never with one read back from the prompt's text (which holds the untrusted data too)."""

    request: ChatRequest
    nonce: str


class JudgePrompt(BaseModel):
    """A judge prompt file: its version, the system text and the rubric restated after the data."""

    version: str
    system: str
    reminder: str


@functools.lru_cache(maxsize=8)
def load_judge_prompt(path: Path) -> JudgePrompt:
    """Parse `---\\nversion: ...\\n---` front matter, then `## SYSTEM` and `## REMINDER` sections."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read judge prompt: {exc.strerror}", path=path) from None
    match = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.DOTALL)
    if match is None:
        raise ConfigError("judge prompt needs front matter with a version", path=path, line=1)
    meta = load_yaml_text(match.group(1), source=str(path), error=ConfigError)
    if not isinstance(meta, dict) or not isinstance(meta.get("version"), str):
        raise ConfigError("judge prompt front matter needs `version: <string>`", path=path, line=2)
    parts = re.split(r"^## (SYSTEM|REMINDER)\s*$", match.group(2), flags=re.MULTILINE)
    sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    if set(sections) != {"SYSTEM", "REMINDER"} or _PLACEHOLDER not in sections["SYSTEM"]:
        raise ConfigError("judge prompt needs `## SYSTEM` (with {{nonce}}) and `## REMINDER` sections", path=path)
    # Whoever reads the prompt back (the simulated judges, a judge's echo of it) finds the nonce on this
    # exact line; written any other way, the first such line a reader finds could be one forged in the data.
    probe = "f" * NONCE_CHARS
    if fence_token(sections["SYSTEM"].replace(_PLACEHOLDER, probe)) != probe:
        raise ConfigError(
            f"judge prompt's SYSTEM must declare the nonce on a line of its own: `{_DECLARATION}`", path=path
        )
    return JudgePrompt(version=meta["version"], system=sections["SYSTEM"], reminder=sections["REMINDER"])


def _call_line(call: ToolCall) -> str:
    return f"{call.name}({canonical_dumps(call.arguments, indent=None)}) [{call.effect}]"


def trace_diff(golden: Sequence[ToolCall], replay: Sequence[ToolCall]) -> str:
    """A unified diff of the tool calls, golden (-) vs replay (+); empty when they are equal."""
    lines = difflib.unified_diff(
        [_call_line(c) for c in golden],
        [_call_line(c) for c in replay],
        fromfile="golden",
        tofile="replay",
        lineterm="",
        n=2,
    )
    return "\n".join(lines)


def findings_text(findings: Sequence[Finding]) -> str:
    return (
        "\n".join(
            f"[{f.severity}] {f.kind}: {f.detail}" + (" (known to vary)" if f.known_to_vary else "") for f in findings
        )
        or "(none)"
    )


def pair_diffs(diffs: Sequence[SkillDiff], *skills: str | None) -> list[SkillDiff]:
    """The diffs of the skills a pair ran (its golden's and its replay's fired skill), in the edit's order.

    A skill the pair did not run changed nothing the judge compares, so its findings are not shown."""
    keys = {optional_skill_key(skill) for skill in skills} - {None}
    return [diff for diff in diffs if skill_key(diff.skill) in keys]


def skill_diff_text(diffs: Sequence[SkillDiff]) -> str | None:
    """One line per finding, `[kind] path:line: message`; None when the diffs name no change."""
    lines = [f"[{finding.kind.value}] {finding.render()}" for diff in diffs for finding in diff.findings]
    return "\n".join(lines) or None


def judge_sections(
    task_prompt: str,
    golden: Trace,
    replay: Trace,
    findings: Sequence[Finding],
    known_variation: str | None = None,
    diffs: Sequence[SkillDiff] = (),
    *,
    state_diff: bool = True,
) -> dict[str, str]:
    """The five fenced sections a judge sees, in order, then a sixth, `known_variation`, when the golden has
    a noise record that saw it vary (ratchet.gate.variation.known_variation_text: it quotes golden lines),
    and `skill_diff` when `diffs` (the pair's skills', pair_diffs) name a change: it quotes the edited skill.

    When the final states differ (and `state_diff`, GateConfig.state_diff, is on), the trace diff ends with
    the differing world paths (ratchet.gate.state_diff); when they agree it reads as it always did."""
    calls = trace_diff(golden.tool_calls, replay.tool_calls) or "(tool calls identical)"
    state = state_diff_text(golden, replay) if state_diff else None
    sections = {
        "task": task_prompt,
        "golden_output": golden.final_output,
        "replay_output": replay.final_output,
        "level0_findings": findings_text(findings),
        "trace_diff": calls if state is None else f"{calls}\n\n{state}",
    }
    if known_variation is not None:
        sections["known_variation"] = known_variation
    changes = skill_diff_text(diffs)
    if changes is not None:
        sections[SKILL_DIFF] = changes
    return sections


def swapped_sections(sections: Mapping[str, str]) -> dict[str, str]:
    """The same sections with replay_output and golden_output trading places; the rest keep theirs.

    The names still say which output is which, so only a judge that reads position instead
    of labels answers differently. The trace diff stays golden (-) -> replay (+): its lines are
    labelled by sign, not by position, so it carries no order to swap.
    """
    names = list(sections)
    if "golden_output" in names and "replay_output" in names:
        g, r = names.index("golden_output"), names.index("replay_output")
        names[g], names[r] = names[r], names[g]
    return {name: sections[name] for name in names}


def fence_nonce(pair_id: str, tier: str, attempt: int, sections: Mapping[str, str], *, swapped: bool = False) -> str:
    """Deterministic per call, and never a substring of the content it fences.

    The content hash is over sorted names, blind to order, so the swapped order is named in
    the seed (the golden-first seed is unchanged, and so are its nonces and cache entries).
    """
    content = hashlib.sha256(canonical_dumps(dict(sections), indent=None).encode()).hexdigest()
    order = "\0replay-first" if swapped else ""
    salt = 0
    while True:
        seed = f"ratchet-judge-fence\0{pair_id}\0{tier}\0{attempt}{order}\0{content}\0{salt}"
        nonce = hashlib.sha256(seed.encode()).hexdigest()[:NONCE_CHARS]
        if not any(nonce in text for text in sections.values()):
            return nonce
        salt += 1


def _fit(sections: Mapping[str, str], budget_chars: int) -> dict[str, str]:
    """Share the character budget fairly: short sections whole, long ones cut to what is left."""
    fitted = dict(sections)
    remaining = max(budget_chars, 200 * len(sections))
    pending = sorted(sections, key=lambda name: len(sections[name]))
    while pending:
        share = remaining // len(pending)
        name = pending.pop(0)
        text = sections[name]
        if len(text) > share:
            cut = len(text) - share
            text = text[: max(share - 40, 0)] + f"\n...[truncated {cut} characters]"
        fitted[name] = text
        remaining -= len(text)
    return fitted


def build_judge_request(
    prompt: JudgePrompt,
    sections: Mapping[str, str],
    *,
    pair_id: str,
    tier: str,
    attempt: int,
    max_input_tokens: int,
    max_output_tokens: int,
    swapped: bool = False,
) -> ChatRequest:
    """The chat request for one judge call (build_judge_call, without the nonce)."""
    return build_judge_call(
        prompt,
        sections,
        pair_id=pair_id,
        tier=tier,
        attempt=attempt,
        max_input_tokens=max_input_tokens,
        max_output_tokens=max_output_tokens,
        swapped=swapped,
    ).request


def build_judge_call(
    prompt: JudgePrompt,
    sections: Mapping[str, str],
    *,
    pair_id: str,
    tier: str,
    attempt: int,
    max_input_tokens: int,
    max_output_tokens: int,
    swapped: bool = False,
) -> JudgeCall:
    """The chat request for one judge call (system rubric, fenced data, rubric restated) and its nonce.

    `swapped`: the replay's output is shown before the golden's. The sections are fitted to the
    budget before they are reordered, so both orders show exactly the same text.
    """
    overhead = len(prompt.system) + len(prompt.reminder) + len(RETRY_NOTE) + 120 * (len(sections) + 2)
    fitted = _fit(sections, max_input_tokens * 4 - overhead - 400)
    if swapped:
        fitted = swapped_sections(fitted)
    nonce = fence_nonce(pair_id, tier, attempt, fitted, swapped=swapped)
    data = "\n\n".join(fence(name, text, nonce) for name, text in fitted.items())
    user = f"{data}\n\n{prompt.reminder}"
    if attempt > 1:
        user += f"\n{RETRY_NOTE}"
    request = ChatRequest(
        messages=[
            Message(role="system", content=prompt.system.replace(_PLACEHOLDER, nonce)),
            Message(role="user", content=user),
        ],
        response_format={"type": "json_object", "schema": OPINION_SCHEMA},
        max_tokens=max_output_tokens,
        temperature=0.0,
    )
    return JudgeCall(request, nonce)
