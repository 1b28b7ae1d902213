"""R1-R6 injection: propose a variant, keep it only if it is a valid skill that manifests.

Two proposers, one loop. Offline, ratchet.sim.injector's templates propose; live, the injector
tier is asked through the gateway with inject_regression.md (BenchPaths.injector_prompt). Either way a variant
is kept only when it parses as a valid skill with the same name and replaying the goldens it can
affect (tasks routed to the skill, plus the trigger neighbourhood) makes at least one diverge at
Level 0. Each variant gets up to MAX_TRIES tries; a variant that never manifests is dropped and
every try's reason is logged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ratchet.bench.build.replays import PairCheck, ReplayEnv
from ratchet.bench.data.models import Dropped, Edit, EditType
from ratchet.core.chat import ChatModel, ChatRequest, Message
from ratchet.core.errors import InputError, ModelCallError, SkillError
from ratchet.sim.injector import InjectContext, propose

MAX_TRIES = 3
R_VARIANTS = 2

TYPE_NAMES: dict[str, tuple[str, str]] = {
    "R1": (
        "Logic drift",
        "Change one step so the output is subtly wrong: a total, an ordering, a filter or a comparison.",
    ),
    "R2": ("Dropped field", "Remove one required element of the output (a field, a line, a recipient)."),
    "R3": (
        "Tool-argument change",
        "Keep the same tool call but change one of its arguments (a label, a branch, a date, a currency).",
    ),
    "R4": (
        "Scope creep",
        "Add a step that makes a new write, send, spend or destroy call with one of the offered tools.",
    ),
    "R5": ("Trigger over-firing", "Broaden the frontmatter description so the skill also fires on unrelated requests."),
    "R6": (
        "Trigger under-firing",
        "Narrow the frontmatter description so the skill stops firing on the requests it is for.",
    ),
}


@dataclass(frozen=True)
class Candidate:
    skill_md: str
    description: str
    key: str


class Proposer(Protocol):
    source: str

    def __call__(
        self, skill: str, text: str, edit_type: str, variant: int, attempt: int, feedback: str
    ) -> Candidate | None:
        """A proposed variant, or None when the proposer has nothing (more) to offer."""
        ...


class TemplateProposer:
    """The simulator's mutation templates (offline). Remembers what it proposed per (skill, type)."""

    source = "template"

    def __init__(self, contexts: Callable[[str], InjectContext]) -> None:
        self.contexts = contexts
        self.used: dict[tuple[str, str], set[str]] = {}

    def __call__(
        self, skill: str, text: str, edit_type: str, variant: int, attempt: int, feedback: str
    ) -> Candidate | None:
        used = self.used.setdefault((skill, edit_type), set())
        proposal = propose(
            text,
            name=skill,
            edit_type=edit_type,
            variant=variant,
            attempt=attempt,
            context=self.contexts(skill),
            exclude=frozenset(used),
        )
        if proposal is None:
            return None
        used.add(proposal.key)
        return Candidate(proposal.skill_md, proposal.description, proposal.key)


_FENCE = re.compile(r"```(?:markdown|md)?\s*\n(.*?)\n```", re.S)


class ModelProposer:
    """The injector tier through the gateway, prompted with inject_regression.md (BenchPaths.injector_prompt)."""

    source = "injector"

    def __init__(
        self, model: ChatModel, prompt_path: Path, contexts: Callable[[str], InjectContext], *, max_tokens: int = 4000
    ) -> None:
        try:
            self.template = prompt_path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot read the injector prompt: {exc.strerror}", path=prompt_path) from None
        self.model = model
        self.contexts = contexts
        self.max_tokens = max_tokens

    def prompt(self, skill: str, text: str, edit_type: str, variant: int, attempt: int, feedback: str) -> str:
        name, definition = TYPE_NAMES[edit_type]
        context = self.contexts(skill)
        tools = "\n".join(f"- {t.name} [{t.effect}]({', '.join(p[0] for p in t.params)})" for t in context.tools)
        values = {
            "type": edit_type,
            "type_name": name,
            "type_definition": definition,
            "skill_name": skill,
            "skill_md": text,
            "tools": tools,
            "variant": str(variant),
            "attempt": str(attempt),
            "feedback": feedback or "(first try)",
        }
        return re.sub(r"\{\{(\w+)\}\}", lambda m: values.get(m.group(1), m.group(0)), self.template)

    def __call__(
        self, skill: str, text: str, edit_type: str, variant: int, attempt: int, feedback: str
    ) -> Candidate | None:
        content = self.prompt(skill, text, edit_type, variant, attempt, feedback)
        seed = int.from_bytes(f"{skill}|{edit_type}|{variant}|{attempt}".encode()[:8].ljust(8, b"\0"), "big") % (2**31)
        request = ChatRequest(
            messages=[Message(role="user", content=content)], seed=seed, temperature=0, max_tokens=self.max_tokens
        )
        reply = self.model.complete(request).message.content or ""
        match = _FENCE.search(reply)
        edited = (match.group(1) if match else reply).strip() + "\n"
        summary = next((line.strip() for line in reply.splitlines() if line.lower().startswith("change:")), "")
        return Candidate(
            edited,
            summary.removeprefix("Change:").removeprefix("change:").strip() or f"{edit_type} by the injector",
            f"model|{attempt}",
        )


@dataclass
class InjectOutcome:
    """What injection produced for one (skill, type): kept edits with their checks, dropped variants."""

    kept: list[tuple[Edit, list[PairCheck]]] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)


def inject_type(
    env: ReplayEnv, skill: str, edit_type: EditType, proposer: Proposer, *, base_content_hash: str
) -> InjectOutcome:
    """Up to R_VARIANTS kept variants of one type for one skill."""
    text = (env.project.path("skills") / skill / "SKILL.md").read_text(encoding="utf-8")
    outcome = InjectOutcome()
    for variant in range(1, R_VARIANTS + 1):
        edit_id = f"{skill}.{edit_type}.{variant}"
        reasons: list[str] = []
        kept = None
        for attempt in range(1, MAX_TRIES + 1):
            try:
                candidate = proposer(skill, text, edit_type, variant, attempt, reasons[-1] if reasons else "")
            except ModelCallError as exc:
                reasons.append(f"try {attempt}: the injector call failed ({exc.message})")
                continue
            if candidate is None:
                reasons.append(f"try {attempt}: no further {edit_type} mutation applies to this skill")
                break
            kept, reason = _try(
                env, skill, edit_type, variant, attempt, candidate, text, proposer.source, base_content_hash
            )
            if kept is not None:
                break
            reasons.append(f"try {attempt}: {reason}")
        if kept is None:
            outcome.dropped.append(
                Dropped(edit_id=edit_id, skill=skill, type=edit_type, variant=variant, reasons=reasons)
            )
        else:
            outcome.kept.append(kept)
    return outcome


def _try(
    env: ReplayEnv,
    skill: str,
    edit_type: EditType,
    variant: int,
    attempt: int,
    candidate: Candidate,
    text: str,
    source: str,
    base_content_hash: str,
) -> tuple[tuple[Edit, list[PairCheck]] | None, str]:
    if candidate.skill_md == text:
        return None, "the proposal does not change the skill"
    try:
        checks = env.check(skill, candidate.skill_md)
    except SkillError as exc:
        return None, f"not a valid skill with the same name ({exc.message})"
    if not any(c.diverged for c in checks):
        failed = sum(1 for c in checks if c.error)
        why = f"{failed} replay(s) failed" if failed else "no golden diverged"
        return None, f"does not manifest: {why} over {len(checks)} affected golden(s) ({candidate.description})"
    edit = Edit(
        id=f"{skill}.{edit_type}.{variant}",
        skill=skill,
        type=edit_type,
        variant=variant,
        description=candidate.description,
        skill_md=candidate.skill_md,
        base_content_hash=base_content_hash,
        source="template" if source == "template" else "injector",
        tries=attempt,
    )
    return (edit, checks), ""
