"""Ctrl-C ends `ratchet` with one line and exit 130, never a traceback, whenever it arrives.

Each test runs `python -m ratchet` in a real process and sends it a real SIGINT from inside, at a
fixed point: an import hook signals the process when a given module starts loading. No sleep
decides when the signal lands, so the test says the same on a loaded machine.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Signals this process when `TRIGGER` is first imported, then runs `python -m ratchet ARGS...`.
CHILD = textwrap.dedent(
    """
    import os, runpy, signal, sys

    TRIGGER = sys.argv.pop(1)

    class Interrupt:
        def find_spec(self, name, path=None, target=None):
            if name == TRIGGER:
                sys.meta_path.remove(self)
                os.kill(os.getpid(), signal.SIGINT)  # as a Ctrl-C in the terminal would
            return None

    sys.meta_path.insert(0, Interrupt())
    sys.argv[0] = "ratchet"
    runpy.run_module("ratchet", run_name="__main__", alter_sys=True)
    """
)


def _interrupted(trigger: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, trigger, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("trigger", ["typer", "ratchet.cli.gate"])
def test_ctrl_c_while_the_cli_loads_is_one_line_and_exit_130(tmp_path: Path, trigger: str) -> None:
    result = _interrupted(trigger, "--version", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (130, "", "interrupted\n")


def test_ctrl_c_while_a_command_runs_is_one_line_and_exit_130(tmp_path: Path) -> None:
    # `record` imports ratchet.bless.record when it starts: the signal lands inside the command.
    result = _interrupted("ratchet.bless.record", "record", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (130, "", "interrupted\n")


def test_the_cli_leaves_an_importers_ctrl_c_alone() -> None:
    # A program (or test) that imports the CLI keeps Python's KeyboardInterrupt once the import is done.
    code = "import signal, ratchet.cli; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, "True\n", "")
