"""The public Python API (docs/api.md) is exactly `ratchet.__all__`, every name in it resolves, and
`import ratchet` stays cheap: the gate is imported on first use, not by every `import ratchet.x`.

Why pinned: from this release on the list follows semver (docs/api.md), so adding or removing a name
is a decision made here and in CHANGELOG.md, never a side effect of a refactor.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ratchet

ROOT = Path(__file__).resolve().parents[1]

PUBLIC = [
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


def test_all_is_the_pinned_list() -> None:
    assert ratchet.__all__ == PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_resolves_to_its_defining_object(name: str) -> None:
    value = getattr(ratchet, name)
    assert value is not None
    assert name in dir(ratchet)


def test_the_names_are_the_internal_objects_not_copies() -> None:
    from ratchet.config.project import load_project
    from ratchet.core.errors import RatchetError
    from ratchet.diff.edit import diff_revisions
    from ratchet.gate.check import check_edit
    from ratchet.gate.models import Verdict

    assert ratchet.check_edit is check_edit and ratchet.load_project is load_project
    assert ratchet.Verdict is Verdict and ratchet.diff_revisions is diff_revisions
    assert ratchet.RatchetError is RatchetError


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'ratchet' has no attribute 'nothing_here'"):
        _ = ratchet.nothing_here  # type: ignore[attr-defined]


def test_a_subpackage_is_still_imported_as_a_subpackage() -> None:
    from ratchet import gate

    assert gate.__name__ == "ratchet.gate"


def _modules_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(result.stdout.split())


@pytest.mark.parametrize("statement", ["import ratchet", "import ratchet.core.errors"])
def test_importing_ratchet_does_not_import_the_gate(statement: str) -> None:
    loaded = _modules_after(statement)
    assert "ratchet" in loaded
    heavy = sorted(m for m in loaded if m.split(".")[:2] in (["ratchet", "gate"], ["ratchet", "diff"]))
    assert heavy == []
    assert "litellm" not in loaded and "git" not in loaded


def test_the_first_use_of_a_name_imports_its_module() -> None:
    loaded = _modules_after("import ratchet\nratchet.Verdict")
    assert "ratchet.gate.models" in loaded


def test_the_version_is_the_installed_distributions() -> None:
    from importlib.metadata import version

    import ratchet

    assert ratchet.__version__ == version("ratchet")
