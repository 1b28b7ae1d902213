"""A replay's bin/: the only PATH, shims that answer from commands.yaml and record every call with the host's
collector, real commands for the allowed names, `date` on the frozen clock, a login shell kept on it, and what
bubblewrap must bind read-only."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from ratchet.config.harness import DEFAULT_COMMANDS_ALLOW, HarnessSettings
from ratchet.harness.base import ReplayInput
from ratchet.harness.command import Command
from ratchet.harness.commands import SHIM_NAME, Collector, command_covers, install_commands, say_missing, shim_python
from ratchet.harness.sandbox import ReplayDirs, base_env, replay_dirs
from ratchet.world.commands import NOT_MOCKED, CommandMock, CommandRun

MOCKS = (
    CommandMock(name="gh", args=["issue", "comment", "**"], stdout="commented\n", effect="send"),
    CommandMock(name="git", args=["push", "**"], stderr="rejected\n", exit=1, effect="write"),
)


def _run(dirs: ReplayDirs, line: str) -> subprocess.CompletedProcess[str]:
    """`line` through a login shell, as Claude Code's Bash and Codex's shell run it (/etc/profile resets PATH)."""
    return subprocess.run(
        ["/bin/bash", "-lc", line],
        cwd=dirs.workspace,
        env=base_env(dirs, {}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_mocked_and_external_commands_answer_from_the_shim_and_are_recorded(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs, Collector(dirs) as collector:
        install_commands(dirs, MOCKS, DEFAULT_COMMANDS_ALLOW)
        assert base_env(dirs, {})["PATH"] == str(dirs.bin)
        commented = _run(dirs, "gh issue comment 7 --body 'looks good'")
        pushed = _run(dirs, "git push origin main")
        curled = _run(dirs, "curl https://example.com")
        runs = list(collector.runs)
    assert (commented.returncode, commented.stdout, commented.stderr) == (0, "commented\n", "")
    assert (pushed.returncode, pushed.stdout, pushed.stderr) == (1, "", "rejected\n")
    assert (curled.returncode, curled.stderr) == (127, NOT_MOCKED.format(name="curl") + "\n")
    assert runs == [
        CommandRun(
            name="gh", argv=["gh", "issue", "comment", "7", "--body", "looks good"], cwd=str(dirs.workspace), mock=0
        ),
        CommandRun(name="git", argv=["git", "push", "origin", "main"], cwd=str(dirs.workspace), mock=1, exit=1),
        CommandRun(name="curl", argv=["curl", "https://example.com"], cwd=str(dirs.workspace), exit=127),
    ]


def test_a_login_shell_keeps_path_to_bin_and_allowed_commands_run_for_real(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs, Collector(dirs) as collector:
        install_commands(dirs, MOCKS, ["bash", "id", "python3", "cat"])
        script = dirs.workspace / "report.py"
        script.write_text("import os\nprint('report', os.environ['PATH'])\n", encoding="utf-8")
        ran = _run(dirs, "echo $PATH; command -v git; python3 report.py; command -v jq || echo 'no jq'")
        bin_dir = str(dirs.bin)
        entries = sorted(p.name for p in dirs.bin.iterdir())
        links = {p.name: os.readlink(p) for p in dirs.bin.iterdir()}
        shebang = (dirs.root / SHIM_NAME).read_text(encoding="utf-8").splitlines()[0]
        assert collector.runs == [], "`command -v` finds the shim without running it"
    assert (ran.stdout.splitlines(), ran.stderr) == ([bin_dir, f"{bin_dir}/git", f"report {bin_dir}", "no jq"], "")
    assert {"bash", "python3", "cat", "node", "gh", "git", "curl", "kubectl"} <= set(entries)
    assert "jq" not in entries and "ls" not in entries, "only the names allowed are linked"
    assert links["git"] == f"../{SHIM_NAME}" and links["cat"] == "/usr/bin/cat"
    assert shebang == f"#!{shim_python()} -IS"


def test_an_allowed_name_is_never_shimmed_unless_mocked(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs:
        install_commands(dirs, (CommandMock(name="cat", stdout="mocked\n", effect="read"),), ["cat", "git"])
        links = {p.name: os.readlink(p) for p in dirs.bin.iterdir()}
    assert links["cat"] == f"../{SHIM_NAME}", "a mock wins over the allowlist"
    assert links["git"] == "/usr/bin/git" and "gh" in links


def test_covers_bind_the_shim_over_each_shimmed_command_the_host_has(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs:
        install_commands(dirs, MOCKS, ["bash", "python3"])
        covers = command_covers(dirs)
        shim = dirs.root / SHIM_NAME
    own, over = covers[:3], covers[3:]
    assert own == [(shim, shim), (dirs.bin, dirs.bin), (dirs.commands, dirs.commands)], "read-only over themselves"
    hosts = {path for _, path in over}
    assert all(source == shim for source, _ in over)
    assert Path("/usr/bin/git").resolve() in hosts and Path("/usr/bin/curl").resolve() in hosts
    assert Path("/usr/bin/bash") not in hosts and shim_python() not in hosts
    assert len(hosts) == len(over)


def test_the_record_is_kept_by_the_host_where_nothing_the_replay_runs_can_erase_it(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs, Collector(dirs) as collector:
        install_commands(dirs, MOCKS, ["bash", "rm"])
        ran = _run(dirs, f"gh issue comment 7; rm -rf {dirs.commands}; bash -c 'exec gh issue comment 8'")
        runs = [run.argv[3] for run in collector.runs]
        left = sorted(path.name for path in dirs.root.rglob("*") if path.suffix in (".jsonl", ".json"))
    assert ran.returncode == 126, "with its folder gone, a shim cannot record: it refuses to answer"
    assert runs == ["7"], "what ran before stays recorded"
    assert left == [], "no record in the scratch folder to rewrite"


def test_a_shim_that_cannot_record_refuses_to_run(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs:
        install_commands(dirs, MOCKS, ["bash", "id"])
        ran = _run(dirs, "gh issue comment 7")  # no collector listening
    assert ran.returncode == 126 and ran.stdout == ""
    assert ran.stderr.startswith("ratchet: gh ran but could not be recorded")


def test_a_shim_answers_only_once_its_record_is_acknowledged(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs:
        install_commands(dirs, MOCKS, ["bash"])
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(dirs.commands / "record.sock"))
        listener.listen(1)

        def swallow() -> None:  # reads the record and hangs up without an "ok"
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)

        thread = threading.Thread(target=swallow, daemon=True)
        thread.start()
        ran = _run(dirs, "gh issue comment 7")
        thread.join(timeout=10)
        listener.close()
    assert (ran.returncode, ran.stdout) == (126, "")
    assert "could not be recorded" in ran.stderr


def test_date_answers_on_the_frozen_clock_unless_told_which_date(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs, Collector(dirs) as collector:
        install_commands(dirs, MOCKS, ["bash", "date"], clock="2026-01-15T09:00:00Z")
        ran = _run(dirs, "date; date +%F; date -u +%s; date -Iseconds; date -d @0 +%Y; date -d 2026-02-01 +%F")
        covered = {path for _, path in command_covers(dirs)}
        runs = list(collector.runs)
    assert ran.stdout.splitlines() == [
        "Thu Jan 15 09:00:00 UTC 2026",
        "2026-01-15",
        "1768467600",
        "2026-01-15T09:00:00+00:00",
        "1970",
        "2026-02-01",
    ]
    assert runs == [], "reading the clock reaches nothing: not recorded"
    assert Path("/usr/bin/date").resolve() not in covered, "the frozen date runs the host's date"


def test_a_mocked_date_is_the_mock_not_the_clock(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs, Collector(dirs):
        mocks = (CommandMock(name="date", stdout="then\n", effect="read"),)
        install_commands(dirs, mocks, ["bash", "date"], clock="2026-01-15T09:00:00Z")
        ran = _run(dirs, "date")
    assert ran.stdout == "then\n"


def test_an_allowed_command_the_host_lacks_is_one_line_once(capsys: pytest.CaptureFixture[str]) -> None:
    allow = ("bash", "no-such-tool-e5b1", "cat", "no-such-tool-77c2")
    say_missing(allow)
    say_missing(allow)
    assert capsys.readouterr().err == (
        "ratchet: harness.commands_allow names no-such-tool-e5b1, no-such-tool-77c2, which this host does not have: "
        'a replay that runs one gets "command not found" (install it, or take it off the list)\n'
    )


def test_the_shim_reads_its_mocks_from_the_scratch_folder_written_into_it(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs:
        install_commands(dirs, MOCKS, [])
        text = (dirs.root / SHIM_NAME).read_text(encoding="utf-8")
        mocks = json.loads((dirs.commands / "mocks.json").read_text(encoding="utf-8"))
    assert f"ROOT = {json.dumps(str(dirs.root))}" in text
    assert [m["name"] for m in mocks] == ["gh", "git"] and "effect" not in mocks[0]


def test_a_command_agent_named_without_a_path_is_found_on_ratchets_own_path(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs:
        replay = ReplayInput(
            prompt="p",
            dirs=dirs,
            endpoint_url="http://127.0.0.1:1",
            token="t",
            mcp_argv=["py"],
            frozen_time="2026-10-14T16:00:00Z",
            settings=HarnessSettings(name="command", command="python3 agent.py {prompt}"),
        )
        argv = Command().launch(replay, None).argv
    assert argv == [shutil.which("python3"), "agent.py", "p"]


def test_a_scratch_path_too_long_for_a_socket_address_still_records(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)  # a unix socket's address holds at most 107 bytes
    with replay_dirs(deep) as dirs, Collector(dirs) as collector:
        install_commands(dirs, MOCKS, ["bash"])
        ran = _run(dirs, "gh issue comment 7")
        runs = [run.argv for run in collector.runs]
    assert len(str(dirs.commands / "record.sock")) > 107
    assert (ran.returncode, runs) == (0, [["gh", "issue", "comment", "7"]])
