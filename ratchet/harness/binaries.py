"""Where the real Claude Code and Codex binaries are, and which version each one is.

Why pinned: a replay is only comparable to its golden when the same harness version produced
both, so the project installs exact versions (scripts/harness/package-lock.json, installed by
scripts/install_harnesses.sh into var/harness) and the constants below are those pins; a test
keeps them and the lockfile in agreement. A binary is looked for in one order: the configured
path (`harness.bin` in ratchet.yaml), then RATCHET_CLAUDE_BIN / RATCHET_CODEX_BIN, then PATH.
A setting that names a missing file is an error, never a silent fall-through to the next
source: the user asked for that binary. Absent everywhere, the error names the npm command
that installs the pinned version.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ratchet.core.errors import InfraError

BinaryHarness = Literal["claude-code", "codex"]

CLAUDE_CODE_VERSION = "2.1.332"
CODEX_VERSION = "0.169.0"
VERSION_TIMEOUT_S = 15.0

_VERSION = re.compile(r"(?<![\d.])(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)")
_TAIL = 300


class PinnedHarness(BaseModel):
    """One harness binary as the project pins it."""

    model_config = ConfigDict(frozen=True)

    package: str = Field(description="The npm package that ships the binary.")
    version: str = Field(description="The exact version scripts/harness/package-lock.json installs.")
    command: str = Field(description="The executable's name on PATH.")
    env_var: str = Field(description="The environment variable naming the binary's path.")


PINNED: dict[BinaryHarness, PinnedHarness] = {
    "claude-code": PinnedHarness(
        package="@anthropic-ai/claude-code", version=CLAUDE_CODE_VERSION, command="claude", env_var="RATCHET_CLAUDE_BIN"
    ),
    "codex": PinnedHarness(
        package="@openai/codex", version=CODEX_VERSION, command="codex", env_var="RATCHET_CODEX_BIN"
    ),
}


def install_command(harness: BinaryHarness) -> str:
    """The npm command that installs the pinned version, for error messages."""
    pin = PINNED[harness]
    return f"npm install -g {pin.package}@{pin.version}"


def find_binary(harness: BinaryHarness, configured: str | None) -> Path:
    """The harness's executable: `configured` (a path, or a name looked up on PATH), else the
    env variable, else `claude` / `codex` on PATH. An empty string counts as unset.

    A relative configured path resolves against the working directory; a caller reading it from
    ratchet.yaml resolves it against the project first.
    """
    pin = PINNED[harness]
    if configured:
        return _executable(configured, f"configured binary {configured!r}", harness)
    from_env = os.environ.get(pin.env_var)
    if from_env:
        return _executable(from_env, f"{pin.env_var}={from_env!r}", harness)
    found = shutil.which(pin.command)
    if found is None:
        raise InfraError(_absent(harness, f"{pin.env_var} is not set and {pin.command!r} is not on PATH"))
    return Path(found).absolute()


def _executable(value: str, source: str, harness: BinaryHarness) -> Path:
    found = shutil.which(value)
    if found is None:
        raise InfraError(_absent(harness, f"{source} is not an executable file"))
    return Path(found).absolute()


def _absent(harness: BinaryHarness, why: str) -> str:
    pin = PINNED[harness]
    return (
        f"{harness} binary not found: {why}; install the pinned version with "
        f"`{install_command(harness)}` (or from a Ratchet checkout: scripts/install_harnesses.sh), "
        f"or set {pin.env_var} to its path"
    )


def binary_version(path: Path, *, timeout_s: float = VERSION_TIMEOUT_S) -> str:
    """The version `path --version` prints ("2.1.332 (Claude Code)" -> "2.1.332").

    Run with an environment built from nothing but PATH (Codex's launcher is a node script found
    through it) and a scratch HOME that is removed afterwards, so no user setting, provider key or
    config file is read or written. The binary runs in its own process group and the whole group
    is killed on timeout: Codex's launcher spawns the native binary, which would otherwise hold
    the output pipe open past the timeout.
    """
    with tempfile.TemporaryDirectory(prefix="ratchet-version-") as home:
        env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": home, "LC_ALL": "C.UTF-8"}
        try:
            process = subprocess.Popen(
                [str(path), "--version"],
                env=env,
                cwd=home,
                text=True,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise InfraError(f"`--version` could not be started: {exc.strerror or exc}", path=path) from exc
        try:
            out, err = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise InfraError(f"`--version` did not finish within {timeout_s:g} s", path=path) from None
    if process.returncode != 0:
        said = (err.strip() or out.strip()).splitlines()
        raise InfraError(
            f"`--version` exited {process.returncode}: {said[0][:_TAIL] if said else '(no output)'}", path=path
        )
    match = _VERSION.search(out)
    if match is None:
        raise InfraError(f"`--version` printed no version: {out.strip()[:_TAIL]!r}", path=path)
    return match.group(1)
