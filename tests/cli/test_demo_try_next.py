"""The demo's "try next" lines run as printed: the venv need not be activated (issue: `ratchet: command not found`)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ratchet.cli.demo import invocation


def _entry(folder: Path) -> Path:
    script = folder / "ratchet"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_on_path_it_is_plain_ratchet(tmp_path: Path) -> None:
    script = _entry(tmp_path)
    assert invocation(argv0=str(script), path=str(tmp_path)) == "ratchet"


def test_not_on_path_it_is_the_path_it_was_started_by(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    _entry(tmp_path / ".venv" / "bin")
    monkeypatch.chdir(tmp_path)
    assert invocation(argv0=".venv/bin/ratchet", path="/nonexistent") == ".venv/bin/ratchet"
    assert invocation(argv0=".venv/bin/ratchet", path="/nonexistent", absolute=True) == str(
        (tmp_path / ".venv/bin/ratchet").resolve()
    )


def test_another_ratchet_first_on_path_is_not_this_one(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _entry(tmp_path / "a")
    mine = _entry(tmp_path / "b")
    assert invocation(argv0=str(mine), path=os.pathsep.join([str(tmp_path / "a"), str(tmp_path / "b")])) == str(mine)


def test_python_dash_m_ratchet_runs_the_same_command_line() -> None:
    result = subprocess.run([sys.executable, "-m", "ratchet", "--version"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and result.stdout.startswith("ratchet ")
    assert invocation(argv0="/usr/lib/python3/some_runner.py") == f"{Path(sys.executable).name} -m ratchet"


def test_the_printed_command_runs_from_a_shell_without_the_venv_on_path(tmp_path: Path) -> None:
    ratchet = Path(sys.executable).parent / "ratchet"
    result = subprocess.run(
        [str(ratchet), "demo"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "RATCHET_HOME": str(tmp_path / "h")},
    )
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith("Try next:"))
    command = line.removeprefix("Try next:").split("(")[0].split()
    assert command[0] == str(ratchet.resolve()) or Path(command[0]).resolve() == ratchet.resolve()
    again = subprocess.run(
        [*command[:1], "--version"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert again.returncode == 0, again.stderr
