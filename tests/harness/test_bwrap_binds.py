"""What a replay under bubblewrap is given to read (ratchet.harness.bwrap.replay_binds), no bwrap needed.

Review of issue 27, items 4 and 6: a program under /bin made its "Python prefix" the host's root, and a node
in ~/bin made HOME a read-only bind, so the sandbox would have shown the whole machine or the user's home;
a bind of a path that is not there came out as bwrap's own error from inside the replay.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ratchet.config.harness import HarnessSettings
from ratchet.core.errors import InfraError
from ratchet.harness import bwrap
from ratchet.harness.base import ReplayInput
from ratchet.harness.sandbox import ProcessOutcome, replay_dirs

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def replay(tmp_path: Path) -> Iterator[ReplayInput]:
    with replay_dirs(tmp_path / "work") as dirs:
        yield ReplayInput(
            prompt="p",
            dirs=dirs,
            endpoint_url="http://127.0.0.1:9",
            token="t",
            mcp_argv=[],
            frozen_time="2026-01-15T09:00:00Z",
            settings=HarnessSettings(name="command", command="agent {prompt}"),
        )


def _fake_prefix(root: Path, program: str) -> Path:
    """A folder laid out like a Python install (bin/, lib/python3.11/os.py), holding `program` in bin/."""
    (root / "lib" / "python3.11").mkdir(parents=True)
    (root / "lib" / "python3.11" / "os.py").write_text("", encoding="utf-8")
    (root / "bin").mkdir()
    (root / "bin" / program).write_text("", encoding="utf-8")
    return root / "bin" / program


def test_only_a_program_named_python_has_a_python_prefix_and_never_the_root(tmp_path: Path) -> None:
    assert bwrap.python_prefixes(_fake_prefix(tmp_path / "a", "node")) == []
    assert bwrap.python_prefixes(_fake_prefix(tmp_path / "b", "python3.11")) == [tmp_path / "b"]
    for program in (Path("/bin/python3"), Path("/bin/sh"), Path("/usr/bin/python3")):
        assert Path("/") not in bwrap.python_prefixes(program), program


@pytest.mark.parametrize("wide", ["home", "repository", "parent of the repository", "root"])
def test_a_bind_of_home_the_repository_or_a_folder_above_them_is_refused(
    replay: ReplayInput, wide: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    named = {"home": home, "repository": REPO, "parent of the repository": REPO.parent, "root": Path("/")}[wide]
    argv = [sys.executable, "agent.py", f"--data={named}"]
    if wide == "root":  # a word naming / is no bind; a program whose install folder is / would be one
        argv = ["/agent"]
        monkeypatch.setattr(bwrap, "program_binds", lambda program: [Path("/")])
    with pytest.raises(InfraError, match=rf"would show {named}, which is or holds "):
        bwrap.replay_binds(replay, argv, None)


def test_a_node_in_the_home_folder_is_refused_not_bound_with_all_of_home(
    replay: ReplayInput, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "user"
    node = home / "bin" / "node"
    node.parent.mkdir(parents=True)
    node.write_text("", encoding="utf-8")
    node.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{node.parent}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(InfraError, match=rf"would show {home}, which is or holds {home} "):
        bwrap.replay_binds(replay, [sys.executable], None)


def test_a_program_that_is_not_there_is_refused_before_bwrap_starts(replay: ReplayInput, tmp_path: Path) -> None:
    missing = tmp_path / "not-installed" / "agent"
    with pytest.raises(InfraError, match=rf"cannot start the harness: {missing} does not exist"):
        bwrap.replay_binds(replay, [str(missing)], None)


def test_a_pyenv_or_asdf_shim_is_refused_naming_the_real_interpreter_to_give(
    replay: ReplayInput, tmp_path: Path
) -> None:
    for manager in (".pyenv", ".asdf"):
        shim = tmp_path / manager / "shims" / "python3"
        shim.parent.mkdir(parents=True)
        shim.write_text("#!/bin/sh\n", encoding="utf-8")
        with pytest.raises(InfraError, match=rf"{shim} is a version manager's shim"):
            bwrap.replay_binds(replay, [str(shim), "agent.py"], None)


def test_bwraps_own_setup_error_is_told_from_the_harness_failing() -> None:
    def outcome(code: int | None, stderr: str) -> ProcessOutcome:
        return ProcessOutcome(exit_code=code, stdout="", stderr=stderr)

    failed = outcome(1, "bwrap: Can't find source path /x: No such file or directory\n")
    assert bwrap.setup_failure(failed) == "bwrap: Can't find source path /x: No such file or directory"
    assert bwrap.setup_failure(outcome(1, "Traceback (most recent call last):\nbwrap: no\n")) is None
    assert bwrap.setup_failure(outcome(2, "bwrap: Unknown option --x\n")) is None
    assert bwrap.setup_failure(outcome(None, "bwrap: x\n")) is None
