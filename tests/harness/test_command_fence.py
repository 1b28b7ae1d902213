"""Every command a replay runs is an allowed one or the shim, and recorded: under bubblewrap the host's command
folders hold only the allowed commands and the harness's runtime, every other name in them is the shim (an
absolute path like /usr/lib/git-core/git or /usr/bin/perl included), and bash hands a name it cannot find to
the shim (command_not_found_handle), bubblewrap or not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ratchet.goldens.trace import Trace
from ratchet.harness import bwrap
from ratchet.world.commands import NOT_MOCKED
from tests.helpers.command_replay import replay_line


def _ran(trace: Trace) -> list[tuple[str, list[str], str | None]]:
    """The commands the model's shell line ran (not the agent's own `git --version` before it asked anything)."""
    calls = [c for c in trace.tool_calls if c.name.startswith("cmd:") and c.arguments["argv"] != ["git", "--version"]]
    return [(c.name, c.arguments["argv"], c.error) for c in calls]


def test_under_bubblewrap_only_allowed_commands_run_and_every_other_one_is_recorded(tmp_path: Path) -> None:
    why = bwrap.unavailable()
    if why:
        pytest.skip(why)
    for path in ("/usr/lib/git-core/git", "/usr/bin/perl"):
        if not Path(path).is_file():
            pytest.skip(f"no {path} on this host to hide")
    line = (
        "/usr/lib/git-core/git status; /usr/bin/perl -e 'print 1'; glab mr create; "
        "echo kept: $(ls /usr/bin | grep -cx cat) $(readlink /usr/bin/perl); cat /etc/passwd >/dev/null && echo cat-ran"
    )
    trace = replay_line(tmp_path, line, sandbox="bubblewrap")
    assert trace.harness is not None and trace.harness.sandbox == "bubblewrap"
    assert _ran(trace) == [
        ("cmd:git", ["git", "status"], NOT_MOCKED.format(name="git")),
        ("cmd:perl", ["perl", "-e", "print 1"], NOT_MOCKED.format(name="perl")),
        ("cmd:glab", ["glab", "mr", "create"], NOT_MOCKED.format(name="glab")),
    ]
    shell = str(next(call.result for call in trace.tool_calls if call.name == "bash"))
    assert "not a git repository" not in shell and "cat-ran" in shell
    assert "kept: 1 /ratchet-scratch/command-shim.py" in shell, shell


def test_without_bubblewrap_bash_still_records_a_name_it_cannot_find(tmp_path: Path) -> None:
    trace = replay_line(tmp_path, "glab mr create --fill; s3cmd ls s3://bucket", sandbox="off")
    assert _ran(trace) == [
        ("cmd:glab", ["glab", "mr", "create", "--fill"], NOT_MOCKED.format(name="glab")),
        ("cmd:s3cmd", ["s3cmd", "ls", "s3://bucket"], NOT_MOCKED.format(name="s3cmd")),
    ]


def test_every_name_in_the_host_command_folders_is_covered_but_the_kept_ones(tmp_path: Path) -> None:
    from ratchet.config.harness import DEFAULT_COMMANDS_ALLOW
    from ratchet.harness.commands import command_covers, install_commands
    from ratchet.harness.sandbox import replay_dirs

    with replay_dirs(tmp_path / "a") as dirs:
        install_commands(dirs, (), list(DEFAULT_COMMANDS_ALLOW))
        covered = {path for shim, path in command_covers(dirs) if shim != path}
    for name in ("/usr/bin/perl", "/usr/lib/git-core/git", "/usr/bin/git"):
        assert not Path(name).exists() or Path(name) in covered, name
    sh = Path("/usr/bin/sh")
    kept = [Path("/usr/bin/env"), Path("/usr/bin/cat"), sh, sh.parent / os.readlink(sh) if sh.is_symlink() else sh]
    assert [path for path in kept if path in covered] == [], "allowed commands and the runtime, each link on the way"
    with replay_dirs(tmp_path / "b") as dirs:
        install_commands(dirs, (), ["bash", "git"])
        covered = {path for shim, path in command_covers(dirs) if shim != path}
    assert not any(path.parent.name == "git-core" for path in covered), "an allowed git keeps its helpers"
