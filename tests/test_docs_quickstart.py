"""docs/quickstart.md, run as printed: from `ratchet init` in an empty git repository to a BLOCKed edit.

Why: the quickstart is what a new team follows literally, so it must not drift from the CLI (as
docs/cli.md cannot: tests/cli/test_reference.py). Every ```sh block from its first numbered section
on runs in order, in one temporary folder, through bash with this venv's `ratchet` first on PATH and
the offline simulator (init's ratchet.yaml says `upstream: sim`). The install section is not run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.gitrepo import git, git_env

QUICKSTART = Path(__file__).resolve().parents[1] / "docs" / "quickstart.md"
_BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.S | re.M)


def quickstart_blocks(text: str) -> list[str]:
    """The ```sh blocks of the quickstart from its first numbered section (`## 1. `) on, in order."""
    start = re.search(r"^## 1\. ", text, re.M)
    assert start is not None, "docs/quickstart.md has no `## 1. ` section"
    return _BLOCK.findall(text, start.start())


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in git_env().items() if not k.startswith("RATCHET_") and k != "CI"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["RATCHET_HOME"] = str(home)
    return env


def test_the_quickstart_runs_as_printed_from_init_to_a_blocked_edit(tmp_path: Path) -> None:
    blocks = quickstart_blocks(QUICKSTART.read_text(encoding="utf-8"))
    assert len(blocks) == 6
    assert blocks[0].splitlines()[:2] == ["git init -b main", "ratchet init"]
    assert blocks[-1].splitlines()[-1] == "ratchet check --base main"
    project = tmp_path / "team"
    project.mkdir()
    env = _env(tmp_path / "home")
    outputs: list[str] = []
    for number, block in enumerate(blocks, start=1):
        ran = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=300,
        )
        outputs.append(ran.stdout + ran.stderr)
        assert "Traceback" not in outputs[-1]
        expected = 1 if number == len(blocks) else 0  # the last block's check BLOCKs
        assert ran.returncode == expected, f"quickstart block {number} exited {ran.returncode}:\n{block}\n{outputs[-1]}"

    start, _skill, tasks, recorded, _commit, check = outputs
    assert "skills/: no skills yet" in start
    assert "0 skills checked: 0 errors, 0 warnings" in start
    rows = [line.split() for line in tasks.splitlines()[:4]]
    assert rows == [
        ["task", "expected", "fired", "score", "margin"],
        ["todo-notes", "todo-report", "todo-report", "0.654", "0.654", "ok"],
        ["todo-plan", "todo-report", "todo-report", "0.240", "0.240", "ok"],
        ["canary-weather", "none", "none", "0.000", "0.000", "ok"],
    ]
    assert "library: 1 of 1 skills model-invocable" in tasks
    assert "blessed 3 golden(s)" in recorded
    golden = (project / "goldens" / "todo-report" / "todo-notes.json").read_text(encoding="utf-8")
    assert "open: 2\\nitems:\\n  - book the venue\\n  - send the invites" in golden  # the simulator followed it
    verdict = " ".join(check.split())  # the verdict wraps at the terminal's width
    assert "BLOCK 2 regression(s), first todo-notes: hard fail: new write call files_write_file" in verdict, check
    assert "decided by: level0 x2" in verdict
    assert git(project, "branch", "--show-current") == "save-todos"


@pytest.mark.parametrize("heading", ["## 1. Start a project", "## 6. Edit the skill, and gate the edit"])
def test_the_quickstart_keeps_its_numbered_sections(heading: str) -> None:
    assert heading in QUICKSTART.read_text(encoding="utf-8").splitlines()
