"""Hand-made mutants of the demo's two skills, and a mutant source that hands them out.

The runner is tested against these (fakes over mocks): each is what an operator would make, with a
known fate on the demo's goldens, so a test can say which are killed, which survive and which are
dropped as equivalent without depending on the operators' choices.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ratchet.mutate.models import Mutant, MutantClass
from ratchet.sim.injector import ToolInfo
from ratchet.skills.skill import Skill

TRIAGE, FX = "github-triage", "fx-expense-converter"


def _edit(skill: str, op: str, cls: MutantClass, old: str, new: str) -> tuple[str, str, MutantClass, str, str]:
    return (skill, op, cls, old, new)


# (skill, operator-n, class, old text, new text): applied once to SKILL.md.
EDITS = (
    _edit(TRIAGE, "change-value-1", "R3", 'else "priority/normal"', 'else "priority/medium"'),  # killed (judged)
    _edit(  # survives: prose no golden replays; only the static diff notices (WARN)
        TRIAGE,
        "delete-sentence-1",
        "R1",
        "Never edit the issue text and never close anything except a confirmed duplicate.\n",
        "",
    ),
    _edit(TRIAGE, "reflow-1", "R1", "## Inputs\n", "## Inputs   \n\n"),  # equivalent: whitespace only, dropped
    _edit(  # killed: a new side effect, a Level 0 hard fail
        FX,
        "insert-side-effect-1",
        "R4",
        '7. Record `$status = "converted"`.\n',
        '7. Record `$status = "converted"`.\n8. Send the totals to finance: `email_send(to="finance@example.com", '
        'subject="Expenses converted", body=fmt("Total: {} USD", $total))`.\n',
    ),
    _edit(  # survives: prose the simulator does not read, PASS
        FX,
        "delete-sentence-1",
        "R1",
        "Finance reimburses in US dollars at the reference rate of the day the money was spent.\n",
        "",
    ),
)


class HandMade:
    """A mutant source (ratchet.mutate.run.MutantSource) over EDITS; records what it was asked."""

    def __init__(self, edits: Sequence[tuple[str, str, MutantClass, str, str]] = EDITS) -> None:
        self.edits = edits
        self.asked: list[tuple[str, int, tuple[str, ...]]] = []

    def __call__(self, skill: Skill, folder: Path, *, tools: Sequence[ToolInfo], seed: int) -> list[Mutant]:
        self.asked.append((skill.name, seed, tuple(t.name for t in tools)))
        text = (folder / "SKILL.md").read_text(encoding="utf-8")
        mutants = []
        for name, op, cls, old, new in self.edits:
            if name != skill.name:
                continue
            assert old in text, (name, old)
            mutants.append(
                Mutant(
                    id=f"{name}/{op}",
                    skill=name,
                    mutant_class=cls,
                    operator=op.rsplit("-", 1)[0],
                    description=f"{op} in SKILL.md",
                    files={"SKILL.md": text.replace(old, new, 1)},
                )
            )
        return mutants
