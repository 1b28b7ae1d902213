"""Ratchet: a pre-merge regression gate for agent skills.

The public Python API (docs/api.md) is `__all__`: check an edit, load a project, the verdict and
its parts, the behavioural diff, the errors, the labels and the version. Everything else under
`ratchet.` is internal and may move in any release. tests/test_public_api.py pins the list.

Every name but the labels and the version is loaded on first use (PEP 562 `__getattr__`): every
`import ratchet.x` runs this file first, so importing the gate here would put its import time on
each CLI command and on `python -m ratchet.mcp`, which every replay through a real harness starts.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ratchet.core.labels import SIMULATED, SIMULATED_BANNER, SIMULATED_CHECK_BANNER, __version__

if TYPE_CHECKING:
    from ratchet.config.project import Project, load_project
    from ratchet.core.errors import InfraError, InputError, RatchetError
    from ratchet.diff.edit import diff_revisions
    from ratchet.diff.models import DiffFinding, EditDiff, SkillDiff
    from ratchet.gate.check import CheckOptions, check_edit
    from ratchet.gate.models import Decision, Finding, Opinion, Outcome, PairOutcome, Unseen, Verdict

# name -> the module that defines it (the TYPE_CHECKING imports above, spelled for the import system)
_LAZY: dict[str, str] = {
    "check_edit": "ratchet.gate.check",
    "CheckOptions": "ratchet.gate.check",
    "Verdict": "ratchet.gate.models",
    "PairOutcome": "ratchet.gate.models",
    "Finding": "ratchet.gate.models",
    "Opinion": "ratchet.gate.models",
    "Unseen": "ratchet.gate.models",
    "Decision": "ratchet.gate.models",
    "Outcome": "ratchet.gate.models",
    "load_project": "ratchet.config.project",
    "Project": "ratchet.config.project",
    "diff_revisions": "ratchet.diff.edit",
    "EditDiff": "ratchet.diff.models",
    "SkillDiff": "ratchet.diff.models",
    "DiffFinding": "ratchet.diff.models",
    "RatchetError": "ratchet.core.errors",
    "InputError": "ratchet.core.errors",
    "InfraError": "ratchet.core.errors",
}

__all__ = [
    "SIMULATED",
    "SIMULATED_BANNER",
    "SIMULATED_CHECK_BANNER",
    "CheckOptions",
    "Decision",
    "DiffFinding",
    "EditDiff",
    "Finding",
    "InfraError",
    "InputError",
    "Opinion",
    "Outcome",
    "PairOutcome",
    "Project",
    "RatchetError",
    "SkillDiff",
    "Unseen",
    "Verdict",
    "__version__",
    "check_edit",
    "diff_revisions",
    "load_project",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next lookup finds it without coming here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
