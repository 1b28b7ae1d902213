"""Finding the real Claude Code and Codex binaries, reading their versions, and the pinned install.

Fake executables in tmp_path stand in for the binaries on the found / not-found / version paths;
the real installed ones (scripts/install_harnesses.sh, which scripts/check runs) are checked when
RATCHET_CLAUDE_BIN / RATCHET_CODEX_BIN point at them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from ratchet.core.errors import InfraError
from ratchet.harness.binaries import (
    CLAUDE_CODE_VERSION,
    CODEX_VERSION,
    PINNED,
    BinaryHarness,
    binary_version,
    find_binary,
    install_command,
)

ROOT = Path(__file__).resolve().parents[2]
HARNESS_DIR = ROOT / "scripts" / "harness"
INSTALL = ROOT / "scripts" / "install_harnesses.sh"
BOTH: list[BinaryHarness] = ["claude-code", "codex"]


def fake_binary(where: Path, name: str, body: str = 'echo "9.9.9"') -> Path:
    """An executable shell script named `name` in `where` (created), running `body`."""
    where.mkdir(parents=True, exist_ok=True)
    path = where / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_harness_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Neither env variable set and PATH holding only an empty directory (returned)."""
    monkeypatch.delenv("RATCHET_CLAUDE_BIN", raising=False)
    monkeypatch.delenv("RATCHET_CODEX_BIN", raising=False)
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return empty


# --- the pins --------------------------------------------------------------------------------


def test_the_constants_are_the_exact_pins_of_package_json_and_the_lockfile() -> None:
    package = json.loads((HARNESS_DIR / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((HARNESS_DIR / "package-lock.json").read_text(encoding="utf-8"))
    assert CLAUDE_CODE_VERSION == "2.1.332" and CODEX_VERSION == "0.169.0"
    expected = {"@anthropic-ai/claude-code": CLAUDE_CODE_VERSION, "@openai/codex": CODEX_VERSION}
    assert {PINNED[h].package: PINNED[h].version for h in BOTH} == expected
    # Exact versions, no ranges: `npm ci` and the lock agree with package.json only then.
    assert package["dependencies"] == expected
    assert lock["packages"][""]["dependencies"] == expected
    for name, version in expected.items():
        entry = lock["packages"][f"node_modules/{name}"]
        assert entry["version"] == version
        assert entry["integrity"].startswith("sha512-")
    # The native binary ships in a platform package the lock pins too (linux-x64 is CI's).
    linux = lock["packages"]["node_modules/@anthropic-ai/claude-code-linux-x64"]
    assert linux["version"] == CLAUDE_CODE_VERSION
    codex_linux = lock["packages"]["node_modules/@openai/codex-linux-x64"]
    assert codex_linux["version"] == f"{CODEX_VERSION}-linux-x64"


@pytest.mark.parametrize(
    ("harness", "command"),
    [
        ("claude-code", "npm install -g @anthropic-ai/claude-code@2.1.332"),
        ("codex", "npm install -g @openai/codex@0.169.0"),
    ],
)
def test_install_command_names_the_pinned_version(harness: BinaryHarness, command: str) -> None:
    assert install_command(harness) == command


# --- find_binary -----------------------------------------------------------------------------


def test_a_configured_path_wins_over_the_env_variable_and_path(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    configured = fake_binary(tmp_path / "configured", "my-claude")
    from_env = fake_binary(tmp_path / "env", "claude")
    on_path = fake_binary(tmp_path / "bin", "claude")
    monkeypatch.setenv("RATCHET_CLAUDE_BIN", str(from_env))
    monkeypatch.setenv("PATH", str(on_path.parent))
    assert find_binary("claude-code", str(configured)) == configured


def test_a_configured_bare_name_is_looked_up_on_path(no_harness_env: Path) -> None:
    on_path = fake_binary(no_harness_env, "codex-nightly")
    assert find_binary("codex", "codex-nightly") == on_path


def test_the_env_variable_is_used_when_nothing_is_configured(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_harness_env: Path,
) -> None:
    from_env = fake_binary(tmp_path / "env", "codex")
    fake_binary(no_harness_env, "codex")
    monkeypatch.setenv("RATCHET_CODEX_BIN", str(from_env))
    assert find_binary("codex", None) == from_env


@pytest.mark.parametrize(("harness", "command"), [("claude-code", "claude"), ("codex", "codex")])
def test_path_is_searched_last(harness: BinaryHarness, command: str, no_harness_env: Path) -> None:
    on_path = fake_binary(no_harness_env, command)
    assert find_binary(harness, None) == on_path
    assert find_binary(harness, "") == on_path  # an empty setting is no setting


@pytest.mark.parametrize("harness", BOTH)
def test_an_absent_binary_is_an_infra_error_naming_the_npm_command(
    harness: BinaryHarness,
    no_harness_env: Path,
) -> None:
    with pytest.raises(InfraError) as info:
        find_binary(harness, None)
    line = info.value.one_line()
    assert info.value.exit_code == 3
    assert "\n" not in line
    assert f"`{install_command(harness)}`" in line
    assert f"{PINNED[harness].command!r} is not on PATH" in line
    assert PINNED[harness].env_var in line


def test_a_configured_path_that_is_not_executable_fails_rather_than_falling_back(
    tmp_path: Path,
    no_harness_env: Path,
) -> None:
    fake_binary(no_harness_env, "claude")  # would be found on PATH: it must not be used
    not_executable = tmp_path / "claude.txt"
    not_executable.write_text("not a program\n", encoding="utf-8")
    with pytest.raises(InfraError) as info:
        find_binary("claude-code", str(not_executable))
    line = info.value.one_line()
    assert f"configured binary {str(not_executable)!r} is not an executable file" in line
    assert "`npm install -g @anthropic-ai/claude-code@2.1.332`" in line


def test_an_env_variable_naming_a_missing_file_fails_rather_than_falling_back(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_harness_env: Path,
) -> None:
    fake_binary(no_harness_env, "codex")
    missing = tmp_path / "nowhere" / "codex"
    monkeypatch.setenv("RATCHET_CODEX_BIN", str(missing))
    with pytest.raises(InfraError) as info:
        find_binary("codex", None)
    assert f"RATCHET_CODEX_BIN={str(missing)!r} is not an executable file" in info.value.one_line()


def test_a_directory_is_not_a_binary(tmp_path: Path, no_harness_env: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    with pytest.raises(InfraError, match="is not an executable file"):
        find_binary("claude-code", str(folder))


# --- binary_version --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("printed", "version"),
    [
        ("2.1.332 (Claude Code)", "2.1.332"),
        ("codex-cli 0.169.0", "0.169.0"),
        ("tool v1.2.3-beta.4", "1.2.3-beta.4"),
    ],
)
def test_binary_version_reads_the_version_it_prints(tmp_path: Path, printed: str, version: str) -> None:
    binary = fake_binary(tmp_path, "tool", f'[ "$1" = "--version" ] || exit 9\necho "{printed}"')
    assert binary_version(binary) == version


def test_binary_version_runs_in_a_clean_environment(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sentinel = "sk-sentinel-never-leaves-0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", sentinel)
    monkeypatch.setenv("OPENAI_API_KEY", sentinel)
    seen = tmp_path / "env.txt"
    binary = fake_binary(tmp_path / "bin", "claude", f'env > "{seen}"\necho "2.1.332 (Claude Code)"')
    assert binary_version(binary) == "2.1.332"
    env = dict(line.split("=", 1) for line in seen.read_text(encoding="utf-8").splitlines() if "=" in line)
    assert sentinel not in seen.read_text(encoding="utf-8")
    assert env["PATH"] == os.environ["PATH"]  # codex.js finds node through PATH
    assert env["HOME"] != os.environ.get("HOME")  # nothing is written into the user's home
    assert not Path(env["HOME"]).exists()  # and the scratch home is gone afterwards


def test_a_failing_binary_is_an_infra_error_with_its_message(tmp_path: Path) -> None:
    binary = fake_binary(tmp_path, "claude", 'echo "Error: claude native binary not installed." >&2\nexit 1')
    with pytest.raises(InfraError) as info:
        binary_version(binary)
    line = info.value.one_line()
    assert info.value.exit_code == 3
    assert line == (f"{binary}: `--version` exited 1: Error: claude native binary not installed.")


def test_a_binary_printing_no_version_is_an_infra_error(tmp_path: Path) -> None:
    binary = fake_binary(tmp_path, "codex", 'echo "usage: codex [OPTIONS]"')
    with pytest.raises(InfraError) as info:
        binary_version(binary)
    assert info.value.one_line() == f"{binary}: `--version` printed no version: 'usage: codex [OPTIONS]'"


def test_a_hanging_binary_times_out_with_its_children(tmp_path: Path) -> None:
    # A child of the binary holds the output pipe open (codex.js spawns the native codex): the
    # whole process group must go, or waiting for the pipe would outlast the timeout.
    binary = fake_binary(tmp_path, "codex", "sleep 30\necho 1.0.0")
    started = time.monotonic()
    with pytest.raises(InfraError) as info:
        binary_version(binary, timeout_s=0.5)
    assert time.monotonic() - started < 5
    assert info.value.one_line() == f"{binary}: `--version` did not finish within 0.5 s"


def test_a_file_that_cannot_be_executed_is_an_infra_error(tmp_path: Path) -> None:
    garbage = tmp_path / "claude"
    garbage.write_bytes(b"\x7fELF-not-really")
    garbage.chmod(0o755)
    with pytest.raises(InfraError) as info:
        binary_version(garbage)
    assert info.value.one_line().startswith(f"{garbage}: `--version` could not be started: ")


# --- the real binaries, when installed -------------------------------------------------------

installed = pytest.mark.skipif(
    not (os.environ.get("RATCHET_CLAUDE_BIN") and os.environ.get("RATCHET_CODEX_BIN")),
    reason="RATCHET_CLAUDE_BIN / RATCHET_CODEX_BIN not set (scripts/check installs and sets them)",
)


@installed
@pytest.mark.parametrize("harness", BOTH)
def test_the_installed_binary_is_the_pinned_version(harness: BinaryHarness) -> None:
    binary = find_binary(harness, None)
    assert binary == Path(os.environ[PINNED[harness].env_var])
    assert binary_version(binary) == PINNED[harness].version


@installed
def test_the_install_script_is_a_quick_no_op_once_installed() -> None:
    started = time.monotonic()
    result = subprocess.run([str(INSTALL)], capture_output=True, text=True, check=False, timeout=60)
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 10
    assert result.stdout.splitlines() == [
        f"harnesses already installed in {ROOT / 'var' / 'harness'} (lock unchanged)",
        f"claude-code {CLAUDE_CODE_VERSION}",
        f"codex {CODEX_VERSION}",
    ]


# --- the install script's failures -----------------------------------------------------------


def path_without_node(tmp_path: Path) -> Path:
    """A PATH directory holding every program of /usr/bin and /bin except npm and node."""
    bin_dir = tmp_path / "bin-without-node"
    bin_dir.mkdir()
    for system in (Path("/usr/bin"), Path("/bin")):
        for program in system.iterdir():
            hidden = program.name in {"npm", "npx", "node", "nodejs", "corepack"}
            if not hidden and not (bin_dir / program.name).exists():
                (bin_dir / program.name).symlink_to(program)
    return bin_dir


def test_the_install_script_fails_clearly_without_npm(tmp_path: Path) -> None:
    env = {
        "PATH": str(path_without_node(tmp_path)),
        "HOME": str(tmp_path),
        "RATCHET_HARNESS_DIR": str(tmp_path / "harness"),
    }
    result = subprocess.run(
        ["/bin/bash", str(INSTALL)], env=env, capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "install_harnesses.sh: npm is not on PATH; install Node.js with npm (e.g. `apt-get install nodejs npm`),",
        "  then run scripts/install_harnesses.sh again",
    ]
    assert not (tmp_path / "harness").exists()


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_the_install_script_fails_clearly_when_the_registry_fails(tmp_path: Path) -> None:
    target = tmp_path / "harness"
    env = {
        **os.environ,
        "RATCHET_HARNESS_DIR": str(target),
        "npm_config_registry": "http://127.0.0.1:1/",
        "npm_config_cache": str(tmp_path / "npm-cache"),
        "npm_config_fetch_retries": "0",
    }
    result = subprocess.run([str(INSTALL)], env=env, capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-2:] == [
        "install_harnesses.sh: `npm ci` failed in " + str(target) + " (registry http://127.0.0.1:1/);",
        "  check the network or the npm registry setting (npm config get registry), then run it again",
    ]
    assert not (target / ".installed").exists()  # no stamp: the next run tries again
