"""`ratchet demo --harness claude-code` (and codex) is right through other releases than the pin: the tested
range's other end and the newest release the registry serves (ratchet/harness/versions.py).

Why: through Claude Code 2.1.197 the demo got two of five decisions wrong without a word about the version (the
simulator behind it read that release's own bundled skills as the project's, and a task routed nowhere).

Each install folder (RATCHET_OTHER_HARNESSES, folders separated by `:`; default var/harness-alt and
var/harness-latest) is what `scripts/install_harnesses.sh --release|--latest DIR` installed. In CI these run only
in scripts/check's "harness versions" stage (RATCHET_HARNESS_VERSIONS=1), where a missing binary fails; elsewhere
a missing one is skipped, and so is a folder holding the pinned release (tests/harness/test_real_harnesses.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.harness.binaries import PINNED, BinaryHarness, binary_version
from ratchet.harness.versions import outside_tested

ROOT = Path(__file__).resolve().parents[2]
STAGE = os.environ.get("RATCHET_HARNESS_VERSIONS") == "1"


def _installs() -> list[Path]:
    listed = os.environ.get("RATCHET_OTHER_HARNESSES", "")
    if listed:
        return [Path(folder) for folder in listed.split(os.pathsep) if folder]
    return [ROOT / "var" / "harness-alt", ROOT / "var" / "harness-latest"]


HARNESSES: tuple[BinaryHarness, ...] = ("claude-code", "codex")
CASES = [(harness, install) for install in _installs() for harness in HARNESSES]


@pytest.mark.parametrize(("harness", "install"), CASES, ids=[f"{h}-{i.name}" for h, i in CASES])
def test_the_demo_is_right_through_another_release(
    harness: BinaryHarness, install: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if os.environ.get("CI") and not STAGE:
        pytest.skip("CI runs it in scripts/check's `harness versions` stage")
    pin = PINNED[harness]
    binary = install / "node_modules" / ".bin" / pin.command
    if not binary.is_file():
        if STAGE:
            pytest.fail(f"{binary} is missing: scripts/install_harnesses.sh --release|--latest {install}")
        pytest.skip(f"no other {harness} release in {install} (scripts/install_harnesses.sh --latest {install})")
    version = binary_version(binary)
    if version == pin.version:
        pytest.skip(f"{install.name} holds the pinned {harness} {version}: test_real_harnesses.py runs it")
    monkeypatch.setenv(pin.env_var, str(binary))
    result = CliRunner().invoke(app, ["demo", "--harness", harness, "--dir", str(tmp_path / "demo")])
    marks = [line for line in result.stdout.splitlines() if line.startswith(("ok ", "!! "))]
    assert result.exit_code == 0 and len(marks) == 5, f"{harness} {version}:\n{result.output}"
    assert all(line.startswith("ok ") for line in marks), marks
    flat = " ".join(result.stdout.split())
    said = outside_tested(harness, version)
    # A release newer than the range is named on every verdict's first line, and must still be right.
    assert (said is not None and " ".join(said.split()) in flat) or (said is None and "tested range" not in flat)
