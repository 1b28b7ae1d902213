"""How every format labels an unseen `note` (Verdict.unseen at level note): listed, never a warning.

Most notes are prose the simulator does not read; a provenance note (goldens of another Ratchet version)
and a mutation note (goldens that killed none of the skill's mutants, ratchet.gate.mutation) are no limit
of the simulator's, so each is labeled for what it is.
"""

from __future__ import annotations

from ratchet.gate.models import UnseenKind

_LABELS: dict[str, str] = {
    "provenance": "provenance",
    "mutation": "mutation score",
    "judge": "judge answers",
    "sandbox": "sandbox",
}


def note_label(kind: UnseenKind) -> str:
    return _LABELS.get(kind, "not checked by the simulator")
