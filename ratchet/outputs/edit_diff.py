"""The lines every format shows first in a verdict's evidence: what the edit changes (Verdict.diff).

One line per finding of the behavioural diff (ratchet.diff), `path:line: message`, or per cosmetic
skill why nothing the model reads changed. A finding the static policy acts on is said to be either
unexercised (`warn`: it floors the verdict, ratchet.gate.static) or replayed (the pairs decide);
those come first, every one of them. The other findings are capped, with the command that lists all.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from ratchet.diff.render import NO_CHANGE
from ratchet.gate.models import Verdict
from ratchet.gate.static import unexercised

MAX_NOTES = 12
"""Findings the policy does not act on, shown before "and N more"."""
UNEXERCISED = "no replay exercised it"
REPLAYED = "replayed: the pairs decide"


class DiffLine(NamedTuple):
    """`where: text`, at `level` (`warn`: the policy floors the verdict on it; `note`: information).

    `where` is `path:line`, a file or a skill folder; None for the line that counts the findings not shown.
    """

    where: str | None
    text: str
    level: Literal["warn", "note"]

    def __str__(self) -> str:
        return self.text if self.where is None else f"{self.where}: {self.text}"


def diff_lines(verdict: Verdict) -> list[DiffLine]:
    """Floor findings (unexercised, then replayed), then up to MAX_NOTES others, then how to see the rest."""
    floored = {diff.skill for diff in unexercised(verdict)}
    floors: list[DiffLine] = []
    replayed: list[DiffLine] = []
    notes: list[DiffLine] = []
    for diff in verdict.diff:
        if diff.cosmetic:
            notes.append(DiffLine(diff.folder, f"{NO_CHANGE} ({diff.cosmetic_reason})", "note"))
        for finding in diff.findings:
            where = f"{finding.path}:{finding.line}" if finding.line is not None else finding.path
            if not finding.floors:
                notes.append(DiffLine(where, finding.message, "note"))
            elif diff.skill in floored:
                floors.append(DiffLine(where, f"{finding.message} ({UNEXERCISED})", "warn"))
            else:
                replayed.append(DiffLine(where, f"{finding.message} ({REPLAYED})", "note"))
    lines = [*floors, *replayed, *notes[:MAX_NOTES]]
    if len(notes) > MAX_NOTES:
        revisions = "--staged" if verdict.head.startswith("<") else f"--head {verdict.head[:10]}"
        lines.append(
            DiffLine(
                None,
                f"and {len(notes) - MAX_NOTES} more change(s): ratchet diff --base "
                f"{verdict.base[:10]} {revisions} lists every one",
                "note",
            )
        )
    return lines
