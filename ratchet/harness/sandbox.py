"""The scratch side of one harness replay: its folders, its environment, its process group.

A replay gets a fresh folder under <home>/scratch (ratchet.repo.scratch.scratch_folder: locked while
it runs, pruned if a crash leaves it) holding `ws/` (the task's workspace files and the skill
set, installed where the harness reads skills), `home/` (a fresh HOME: no user settings,
sessions or credentials leak in, none leak out), `tmp/`, `out/` (a harness's answer file) and
`mcp/` (the MCP server's call record: the host's, never the sandbox's). The harness runs in its
own session and process group with an environment built from nothing (ADR 0016): PATH, HOME, TMPDIR, locale, TZ=UTC and
what the adapter adds (the loopback endpoint and the run token). None of the user's variables,
provider keys included, reach it. On exit, timeout or crash the whole group is killed, then any
process still running from inside the scratch folder, so nothing outlives the replay. On Linux the
argv run_process is given is bubblewrap's (ratchet/harness/bwrap.py: its own PID and network namespaces,
ReplayDirs.writable the only writable paths); this group and folder cleanup is then the second line, and
the whole isolation where bwrap cannot run.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ratchet.core.errors import InfraError, SkillError
from ratchet.repo.scratch import scratch_folder
from ratchet.skills.links import leaving_link_message, links_leaving
from ratchet.skills.skill import Skill

KILL_GRACE_S = 2.0
_TAIL = 600


class ReplayDirs(BaseModel):
    """Where one replay's files live, all inside `root`."""

    model_config = ConfigDict(frozen=True)

    root: Path
    workspace: Path
    home: Path
    tmp: Path
    record: Path = Field(description="The MCP server's call record (one ToolCall per line), in `mcp/`.")
    volatile: Path = Field(description="The MCP server's volatile reads (one VolatileRead per line), in `mcp/`.")
    output: Path = Field(description="Where a harness writes its final answer, when it writes one to a file.")

    @property
    def host_only(self) -> Path:
        """The MCP record's folder: never bound into a bubblewrap sandbox, so what the warm server (on the host)
        writes there is evidence the harness cannot append to (ratchet/harness/bwrap.py)."""
        return self.record.parent

    @property
    def writable(self) -> tuple[Path, ...]:
        """What a harness may write under bubblewrap: its workspace, HOME, TMPDIR and answer folder; nothing else
        of the scratch folder (bin/, commands/, the shim, the relay, the MCP config are read-only; mcp/ absent)."""
        return (self.workspace, self.home, self.tmp, self.output.parent)

    @property
    def bin(self) -> Path:
        """The replay's only PATH folder: command shims and links to the allowed commands (harness/commands.py)."""
        return self.root / "bin"

    @property
    def commands(self) -> Path:
        """The command shims' folder: their mocks and the socket of the record's collector on the host
        (harness/commands.py); read-only inside bubblewrap."""
        return self.root / "commands"


class ProcessOutcome(BaseModel):
    """How the harness process ended."""

    exit_code: int | None = Field(description="None when it was killed at the timeout.")
    stdout: str
    stderr: str
    timed_out: bool = False
    wall_s: float = 0.0

    def stderr_tail(self) -> str:
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return " ".join(" ".join(lines[-3:]).split())[-_TAIL:]


@contextmanager
def replay_dirs(home: Path) -> Iterator[ReplayDirs]:
    """A fresh scratch folder laid out for one replay; it and everything under it go on exit."""
    with scratch_folder(home) as root:
        dirs = ReplayDirs(
            root=root,
            workspace=root / "ws",
            home=root / "home",
            tmp=root / "tmp",
            record=root / "mcp" / "mcp-calls.jsonl",
            volatile=root / "mcp" / "mcp-volatile.jsonl",
            output=root / "out" / "answer.txt",
        )
        for folder in (dirs.workspace, dirs.home, dirs.tmp, dirs.host_only, dirs.output.parent):
            folder.mkdir()
        try:
            yield dirs
        finally:
            kill_leftovers(root)


def install_workspace(dirs: ReplayDirs, workspaces_dir: Path | None, workspace: str | None) -> None:
    """Copy the task's workspace files (the files_* tools' view of them) into the harness's cwd."""
    if workspace is None or workspaces_dir is None:
        return
    source = workspaces_dir / workspace
    if source.is_dir():
        shutil.copytree(source, dirs.workspace, dirs_exist_ok=True, copy_function=shutil.copyfile, symlinks=False)


def install_skills(skills: Mapping[str, Skill], target: Path) -> dict[str, Path]:
    """Copy each skill's folder to target/<name>/ (the layout both CLIs read); name -> installed folder.

    No link is followed (see _copy_skill_folder): whatever load_skill let through, a file from outside
    a skill folder never reaches the sandbox.
    """
    installed: dict[str, Path] = {}
    target.mkdir(parents=True, exist_ok=True)
    for name, skill in sorted(skills.items()):
        source = Path(skill.folder)
        if not (source / "SKILL.md").is_file():
            raise InfraError(f"skill {name!r}: its folder is not on disk to install into the harness", path=source)
        leaving = links_leaving(source)
        if leaving:
            link, where = leaving[0]
            raise SkillError(leaving_link_message(where), path=link)
        dest = target / name
        _copy_skill_folder(source, dest)
        installed[name] = dest
    return installed


def _copy_skill_folder(source: Path, dest: Path) -> None:
    """Copy a skill folder whose links all stay inside it (links_leaving): files as files, links as links.

    A link is written relative, to the same place in the copy: copied as written, an absolute link
    would lead from the sandbox back into the repository, and following links copies a cycle for ever.
    """
    root = os.path.realpath(source)
    for dirpath, dirnames, filenames in os.walk(source):  # followlinks=False: a linked folder stays a link
        out = dest / os.path.relpath(dirpath, source)
        out.mkdir(parents=True, exist_ok=True)
        for name in (*dirnames, *filenames):
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                inside = dest / os.path.relpath(os.path.realpath(path), root)
                os.symlink(os.path.relpath(inside, out), out / name)
            elif name in filenames:
                shutil.copyfile(path, out / name)


def base_env(dirs: ReplayDirs, extra: Mapping[str, str]) -> dict[str, str]:
    """The harness's whole environment: built from nothing, never copied from ours. PATH is the replay's
    bin/ alone (install_commands): an external command there is a shim, never the host's."""
    env = {
        "PATH": str(dirs.bin),
        "HOME": str(dirs.home),
        "BASH_ENV": str(dirs.home / ".bashrc"),  # `bash -c` too: PATH and the unknown-name handler (commands.py)
        "TMPDIR": str(dirs.tmp),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "NO_COLOR": "1",
        "TERM": "dumb",
    }
    env.update(extra)
    return env


def run_process(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    stdin: str | None = None,
    logs: Path | None = None,
) -> ProcessOutcome:
    """Run the harness in its own process group; past `timeout_s` kill the group. Never raises for
    how the process ended; InfraError only when it cannot be started at all.

    Output goes to files under `logs` (default: cwd's parent), not pipes: a child the harness leaves
    running in the background would hold a pipe open, and reading to its end would wait for it."""
    folder = logs or cwd.parent
    out_path, err_path, in_path = folder / "stdout.txt", folder / "stderr.txt", folder / "stdin.txt"
    in_path.write_text(stdin or "", encoding="utf-8")
    started = time.monotonic()
    with in_path.open("rb") as given, out_path.open("wb") as out, err_path.open("wb") as err:
        try:
            proc = subprocess.Popen(
                argv, cwd=cwd, env=dict(env), stdin=given, stdout=out, stderr=err, start_new_session=True
            )
        except OSError as exc:
            raise InfraError(f"cannot start the harness ({exc.strerror})", path=argv[0]) from None
        timed_out = False
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=KILL_GRACE_S)
            except subprocess.TimeoutExpired:
                _kill_group(proc.pid, signal.SIGKILL)
                proc.wait()
        finally:
            _kill_group(proc.pid, signal.SIGKILL)  # children it left behind (MCP servers) go with it
    return ProcessOutcome(
        exit_code=None if timed_out else proc.returncode,
        stdout=out_path.read_text(encoding="utf-8", errors="replace"),
        stderr=err_path.read_text(encoding="utf-8", errors="replace"),
        timed_out=timed_out,
        wall_s=round(time.monotonic() - started, 3),
    )


def _kill_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def processes_under(root: Path) -> list[int]:
    """PIDs of running processes whose working directory or command line is inside `root` (Linux /proc)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    mine = str(root)
    found: list[int] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if mine in cmdline or cwd == mine or cwd.startswith(mine + os.sep):
            found.append(int(entry.name))
    return sorted(found)


def kill_leftovers(root: Path) -> None:
    """Kill whatever still runs from inside a replay's folder (a child that left the process group)."""
    for _ in range(3):
        pids = processes_under(root)
        if not pids:
            return
        for pid in pids:
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)
