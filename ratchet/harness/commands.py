"""A replay's commands: its bin/ folder of shims and allowed commands, and the shims' record read back.

Each replay gets `<scratch>/bin/` as its only PATH (sandbox.base_env): a link to the shim
(<scratch>/command-shim.py, ratchet/world/command_shim.py with the scratch folder written in) per
mocked name (<world>/commands.yaml) and per KNOWN_EXTERNAL name not allowed, and a link to the
host's real command per name of `harness.commands_allow` (found in SYSTEM_BINS), plus `node`,
which the harnesses themselves run on. A login shell (Claude Code's Bash and Codex's shell start
one) reads /etc/profile, which resets PATH; the fresh HOME's ~/.bash_profile, ~/.profile and
~/.bashrc set it back, and hand bash a name it cannot find to the shim (command_not_found_handle; BASH_ENV
names ~/.bashrc for `bash -c`). `date` (when allowed) is the shim too, answering on the frozen clock. Under
bubblewrap the host's command folders hold only what is kept and the shim under every other name
(command_covers, harness/fence.py), so `/usr/lib/git-core/git` is the shim too, and the shim, bin/ and the
commands folder are bound read-only; without it an absolute path still reaches the host's command
(docs/harnesses.md says so).

The record is the Collector's, on the host: each shim sends its CommandRun over the unix socket in the
commands folder and answers only once the collector has acknowledged it, so a replay can neither run a
mocked command unseen nor erase what it ran. It becomes the trace's `cmd:<name>` calls; CountingModel
notes how many commands had run when each model request arrived, so trace_map can put each after the
shell call that ran it. Nothing is left out for the process that ran it: only a harness's own start-up
probes (harness_probes), matched exactly on argv and folder, and only before its first model request.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import sys
import threading
from collections.abc import Mapping, Sequence
from contextlib import suppress
from datetime import datetime
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import ValidationError

from ratchet.core.chat import ChatModel, ChatRequest, ChatResponse
from ratchet.core.errors import InfraError
from ratchet.harness.base import PLACEHOLDER_ROOT
from ratchet.harness.fence import fence_covers
from ratchet.harness.sandbox import ReplayDirs
from ratchet.harness.trace_map import CommandTrail
from ratchet.llm.sessions import Exchange
from ratchet.world import command_shim
from ratchet.world.commands import KNOWN_EXTERNAL, CommandMock, CommandRun, command_calls

SHIM_NAME = "command-shim.py"
"""The shim, in the scratch root (bin/ holds only links: nothing in it is a command of Ratchet's own)."""
SYSTEM_BINS: tuple[str, ...] = ("/usr/local/bin", "/usr/bin", "/bin")
"""Where an allowed command is looked for: the system's folders, never the user's PATH (a venv, ~/.local/bin)."""
_RC_FILES = (".bash_profile", ".profile", ".bashrc")


@cache
def shim_python() -> Path:
    """The interpreter the shim runs on: the base Python, resolved (what the sandbox binds read-only)."""
    return (Path(sys.base_prefix) / "bin" / "python3").resolve()


def _shim_text(root: Path, clock: str, date: str) -> str:
    source = Path(command_shim.__file__).read_text(encoding="utf-8")
    _, _, rest = source.partition("\n")
    for name, value in (("ROOT", str(root)), ("CLOCK", clock), ("DATE", date)):
        marker = f'{name} = ""  #'
        assert marker in rest, f"command_shim.py lost its {name} line"
        rest = rest.replace(marker, f"{name} = {json.dumps(value)}  #", 1)
    return f"#!{shim_python()} -IS\n" + rest


def _epoch(clock: str) -> str:
    """The frozen clock (ISO-8601, 2026-01-15T09:00:00Z) as epoch seconds, what `date -d @N` takes."""
    return str(int(datetime.fromisoformat(clock.replace("Z", "+00:00")).timestamp()))


def host_command(name: str) -> Path | None:
    """The host's `name` in SYSTEM_BINS (python: python3 when there is no python), else None."""
    found = shutil.which(name, path=os.pathsep.join(SYSTEM_BINS))
    if found is None and name in ("python", "python3"):
        found = shutil.which("python3", path=os.pathsep.join(SYSTEM_BINS)) or str(shim_python())
    return Path(found) if found else None


def shimmed_names(mocks: Sequence[CommandMock], allow: Sequence[str]) -> list[str]:
    """Every name a replay's bin/ answers with the shim: the mocked ones, then the known-external ones not allowed."""
    allowed = set(allow)
    names = dict.fromkeys(mock.name for mock in mocks)
    names.update(dict.fromkeys(name for name in KNOWN_EXTERNAL if name not in allowed))
    return list(names)


def install_commands(dirs: ReplayDirs, mocks: Sequence[CommandMock], allow: Sequence[str], *, clock: str = "") -> None:
    """The replay's bin/, the shim and its mocks, and the rc files that keep PATH to bin/. `clock`: the frozen
    clock an allowed, unmocked `date` answers on ("": the host's date, as it is)."""
    dirs.commands.mkdir(parents=True, exist_ok=True)
    (dirs.commands / command_shim.MOCKS).write_text(
        json.dumps([mock.shim_entry() for mock in mocks], ensure_ascii=False), encoding="utf-8"
    )
    date = host_command("date") if clock and "date" in allow else None
    frozen = date is not None and all(mock.name != "date" for mock in mocks)
    shim = dirs.root / SHIM_NAME
    shim.write_text(_shim_text(dirs.root, _epoch(clock) if frozen else "", str(date) if frozen else ""), "utf-8")
    shim.chmod(0o755)
    dirs.bin.mkdir(exist_ok=True)
    shimmed = shimmed_names(mocks, allow) + (["date"] if frozen else [])
    for name in shimmed:
        (dirs.bin / name).symlink_to(Path("..") / SHIM_NAME)
    node = shutil.which("node") or shutil.which("node", path=os.pathsep.join(SYSTEM_BINS))
    real = {name: host_command(name) for name in allow if name not in shimmed}
    real.setdefault("node", Path(node) if node else None)  # the harness's own runtime (#!/usr/bin/env node)
    for name, path in real.items():
        if path is not None and not os.path.lexists(dirs.bin / name):
            (dirs.bin / name).symlink_to(path)
    dirs.home.mkdir(parents=True, exist_ok=True)
    # bash runs a name it cannot find through the shim, recorded like any other (glab, s3cmd: no bin/ link)
    unknown = f'command_not_found_handle() {{ {shlex.quote(str(shim))} "$@"; }}\n'
    for rc in _RC_FILES:
        (dirs.home / rc).write_text(f"PATH={shlex.quote(str(dirs.bin))}\nexport PATH\n{unknown}", encoding="utf-8")


def missing_allowed(allow: Sequence[str]) -> list[str]:
    """The names of `allow` this host has no command for (a replay running one gets "command not found")."""
    return [name for name in allow if host_command(name) is None]


@cache
def say_missing(allow: tuple[str, ...]) -> None:
    """One line on stderr, once per process, naming the allowed commands this host lacks: a replay here and one
    where they exist run differently, and a golden recorded there would not replay the same here."""
    missing = missing_allowed(allow)
    if missing:
        sys.stderr.write(
            f"ratchet: harness.commands_allow names {', '.join(missing)}, which this host does not have: "
            'a replay that runs one gets "command not found" (install it, or take it off the list)\n'
        )


def command_covers(dirs: ReplayDirs) -> list[tuple[Path, Path]]:
    """What bubblewrap binds read-only over the replay's writable scratch folder: the shim, bin/ and the
    commands folder over themselves (nothing the record depends on can be rewritten), then the shim as every
    name of the host's command folders (harness/fence.py), so an absolute path (/usr/lib/git-core/git,
    /usr/bin/perl) runs the shim too. Never a name an allowed command, the frozen `date`, the shim's Python or
    the harness's runtime leads through."""
    shim = dirs.root / SHIM_NAME
    if not dirs.bin.is_dir():
        return []
    target = Path("..") / SHIM_NAME
    shimmed, kept = [], {shim_python()}
    for link in sorted(dirs.bin.iterdir()):
        if link.is_symlink() and Path(os.readlink(link)) == target:
            shimmed.append(link.name)
        elif link.is_symlink():
            kept.add(Path(os.readlink(link)))  # the host path as linked: fence.hops keeps each link on the way
    mocked = {entry.get("name") for entry in json.loads((dirs.commands / command_shim.MOCKS).read_text("utf-8"))}
    if "date" in shimmed and "date" not in mocked:
        shimmed.remove("date")  # the frozen clock: the shim runs the host's date itself
        kept.add(host_command("date") or shim)
    own = [(path, path) for path in (shim, dirs.bin, dirs.commands)]
    return [*own, *fence_covers(shim, kept)]


class Collector:
    """The host end of the shims' record: a unix socket in the replay's commands folder; each shim sends one
    CommandRun line and answers only after the collector has kept it and said "ok". The runs stay here, in
    order, out of the replay's reach. A context manager: closed, the socket is gone."""

    LIMIT = 4 * 1024 * 1024
    """The longest record line taken (an argv is at most a few MB)."""

    def __init__(self, dirs: ReplayDirs) -> None:
        self.runs: list[CommandRun] = []
        self._lock = threading.Lock()
        self._path = dirs.commands / command_shim.SOCKET
        dirs.commands.mkdir(parents=True, exist_ok=True)
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            _bind(self._listener, self._path)
            self._path.chmod(0o666)  # a replay run as another user (bubblewrap's, dropping root) connects too
            self._listener.listen(64)
        except OSError as exc:
            self._listener.close()
            raise InfraError(f"cannot open the command record's socket ({exc.strerror})", path=self._path) from None
        self._thread = threading.Thread(target=self._serve, name="ratchet-commands", daemon=True)
        self._thread.start()

    def count(self) -> int:
        with self._lock:
            return len(self.runs)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._take, args=(conn,), daemon=True).start()

    def _take(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(command_shim.WAIT_S)
            data = b""
            with suppress(OSError):
                while not data.endswith(b"\n") and len(data) < self.LIMIT:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            try:
                run = CommandRun.model_validate_json(data)
            except ValidationError:
                return  # not a record: no "ok", and the shim refuses to answer (exit 126)
            with self._lock:
                self.runs.append(run)
            with suppress(OSError):
                conn.sendall(command_shim.ACK)

    def close(self) -> None:
        with suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() waiting in _serve
        self._listener.close()
        self._thread.join(timeout=5)
        with suppress(OSError):
            self._path.unlink()

    def __enter__(self) -> Collector:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def _bind(listener: socket.socket, path: Path) -> None:
    address = str(path)
    if len(address.encode()) <= 100 or not Path("/proc/self/fd").is_dir():
        listener.bind(address)
        return
    # a unix socket's address is limited to 107 bytes, a scratch path is not: bind through the folder's descriptor
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        listener.bind(f"/proc/self/fd/{folder}/{path.name}")
    finally:
        os.close(folder)


def harness_probes(harness: str, dirs: ReplayDirs) -> list[tuple[tuple[str, ...], str]]:
    """(argv, folder) of each command a harness's binary runs by itself as it starts, exactly: Codex 0.169
    asks git for its plugin catalog from CODEX_HOME. Left out of the trace when run before the first model
    request; the same command run later, or anywhere else, is the replay's own."""
    if harness == "codex":
        plugins = ("git", "-c", "safe.bareRepository=explicit", "ls-remote", "https://github.com/openai/plugins.git")
        return [((*plugins, "HEAD"), str(dirs.home / ".codex"))]
    return []


class CountingModel:
    """The replay's model, noting per request how many commands had run when it arrived (the command's
    place in the trace: after the shell call the model asked for before that request)."""

    def __init__(self, model: ChatModel, collector: Collector) -> None:
        self._model = model
        self._collector = collector
        self.arrivals: list[tuple[ChatRequest, int]] = []

    @property
    def model_id(self) -> str:
        return self._model.model_id

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.arrivals.append((request, self._collector.count()))
        return self._model.complete(request)

    def arrival(self, request: ChatRequest) -> int | None:
        """How many commands had run when `request` (the very object) arrived; None: never seen."""
        return next((count for asked, count in self.arrivals if asked is request), None)


def command_trail(
    dirs: ReplayDirs,
    runs: Sequence[CommandRun],
    mocks: Sequence[CommandMock],
    data: Mapping[str, Any],
    counting: CountingModel,
    exchanges: Sequence[Exchange],
    *,
    probes: Sequence[tuple[Sequence[str], str]] = (),
) -> CommandTrail:
    """The collector's runs as `cmd:` ToolCalls (scratch paths in their argv as the model saw them:
    PLACEHOLDER_ROOT), with each exchange's arrival count, for trace_map.map_calls. A run before the first
    request that is exactly one of the harness's `probes` (argv and folder) is None in the trail."""
    arrivals = [counting.arrival(ex.request) for ex in exchanges]
    first = arrivals[0] if arrivals and arrivals[0] is not None else len(runs)
    homes = {(tuple(argv), folder) for argv, folder in probes}
    homes |= {(argv, str(Path(folder).resolve())) for argv, folder in homes}
    roots = sorted({str(dirs.root), str(dirs.root.resolve())}, key=len, reverse=True)
    shown = []
    for run in runs:
        argv = list(run.argv)
        for root in roots:
            argv = [word.replace(root, PLACEHOLDER_ROOT) for word in argv]
        shown.append(run.model_copy(update={"argv": argv}))
    calls = command_calls(shown, mocks, data)
    own = [i < first and (tuple(run.argv), run.cwd) in homes for i, run in enumerate(runs)]
    return CommandTrail(
        calls=[None if probe else call for probe, call in zip(own, calls, strict=True)], arrivals=arrivals
    )
