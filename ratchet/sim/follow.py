"""What the simulator can follow of a skill body, said before anyone trusts a replay of it.

The simulated agent acts only on backticked spans in `## Inputs`, `## Steps` and `## Output`
(ratchet/sim/program.py). A free-form skill gives it nothing to act on, so its replays under the
base and the edited skill are both empty and Level 0 would call them `same`: seen and identical,
when nothing was seen. This report is how the recorder and the gate tell the two apart
(docs/adr/0012-never-a-silent-pass.md).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ratchet.sim.harness_steps import READ, SHELL, rewrite_steps
from ratchet.sim.program import Program, Step, kept_program

NOTHING_TO_READ = "no steps or output fields the simulator can read"


class UnfollowedStep(BaseModel):
    """One step or span of the Steps section the simulator saw and could not act on."""

    model_config = ConfigDict(frozen=True)

    line: int = Field(description="1-based line of SKILL.md the step or span is on.")
    last_line: int = Field(description="Last SKILL.md line of the step, its nested items included (>= line).")
    text: str = Field(description="The step's text (or the span), whitespace folded and shortened.")
    why: str = Field(description="Why it was not followed, e.g. 'a condition the simulator cannot read'.")


class FollowReport(BaseModel):
    """What the simulator can act on in one skill body, with SKILL.md line numbers."""

    model_config = ConfigDict(frozen=True)

    followable: bool = Field(description="False when no step has an action it can run and no output field exists.")
    reason: str | None = Field(default=None, description="Why it is not followable; None when it is.")
    unfollowed: list[UnfollowedStep] = Field(default_factory=list, description="Steps it skipped, in line order.")
    read_lines: list[int] = Field(
        default_factory=list,
        description="SKILL.md lines holding a span it acts on or a section heading it reads, ascending.",
    )


def _acts(steps: list[Step]) -> bool:
    return any(step.kind != "unread" and (step.actions or _acts(step.children)) for step in steps)


def program_report(program: Program, *, body_line: int = 1) -> FollowReport:
    """The report for an already parsed program (line numbers shifted to SKILL.md's)."""
    shift = body_line - 1
    followable = _acts(program.steps) or bool(program.outputs)
    unfollowed = sorted(
        {
            UnfollowedStep(line=u.line + shift, last_line=u.last + shift, text=u.text, why=u.why)
            for u in program.unfollowed
        },
        key=lambda u: (u.line, u.text, u.why),
    )
    return FollowReport(
        followable=followable,
        reason=None if followable else NOTHING_TO_READ,
        unfollowed=unfollowed,
        read_lines=sorted(line + shift for line in program.read_lines),
    )


def follow_report(body: str, tools: frozenset[str], *, body_line: int = 1) -> FollowReport:
    """What the simulator can follow of `body` when offered `tools`; `body_line` is where the body starts in SKILL.md.

    With SHELL / READ among `tools` (a harness's shell and reader: ratchet.sim.harness_steps) its command and
    read steps are read as the follower behind that harness reads them (the rewrite keeps every line)."""
    body = rewrite_steps(body, commands=SHELL in tools, reads=READ in tools)
    return program_report(kept_program(body, tools), body_line=body_line)
