"""The bubblewrap sandbox around one harness replay (Linux; docs/adr/0031-bubblewrap-sandbox.md).

Each replay runs as `bwrap ... -- [setpriv ...] python3 relay.py PORT SOCKET -- <harness argv>`:
- user: never the host's root. Run by root (CI), bwrap would map root inside to root outside, able to write
  /proc/sys (core_pattern runs a program as root); so as root bwrap makes no user namespace, keeps only
  setuid/setgid/setpcap, and `setpriv` turns the replay into SANDBOX_UID (nobody) with no capabilities,
  before anything of the replay runs; the folders it writes are given to that user. Run by anyone else, bwrap
  maps them to themselves in a user namespace. Either way /proc/sys is read-only and capabilities dropped;
- processes: its own PID namespace (`--unshare-pid`, `--die-with-parent`, `--new-session`): when the harness
  ends, or bwrap is killed at the timeout, the kernel kills every process left in it, `setsid` or not;
- files: a fresh root with only what running needs, read-only: /usr (and the /bin, /lib links), a few /etc
  files, the Python the relay runs on (sys.base_prefix), the harness binary's install folder (its
  node_modules, or its Python prefix), the MCP server's socket (or, for a `python -m ratchet.mcp` server, the
  venv, the ratchet package and the world it reads); a fresh /proc, /dev and /tmp. Of the replay's scratch
  folder only ReplayDirs.writable is writable, the rest of it read-only, and its `mcp/` folder (the MCP call
  record the warm server writes from the host) absent. Never /, HOME, a repository or a folder above them;
- network: its own namespace with loopback alone (`--unshare-net`). The model endpoint (127.0.0.1:PORT on the
  host) is reached through relay.py inside, listening on 127.0.0.1:PORT and piping each connection to a unix
  socket bound in at SOCKET_INSIDE, and a forwarder thread on the host (ratchet/harness/forward.py).

Whether bwrap can run is probed once per process; when it cannot (not Linux, not installed, refused by the
kernel) `harness.sandbox: auto` falls back to the process group and leftover kill (ratchet/harness/sandbox.py)
and says so: HarnessRef.sandbox is "none" on every trace, and the run says why once (fallback_line, the
verdict's note).
"""

from __future__ import annotations

import ast
import itertools
import os
import re
import shutil
import sys
from collections.abc import Iterable, Sequence
from contextlib import suppress
from pathlib import Path
from urllib.parse import urlsplit

from ratchet.core.errors import InfraError
from ratchet.harness.base import ReplayInput
from ratchet.harness.bwrap_mode import (
    BUBBLEWRAP,
    NONE,
    SANDBOX_UID,
    as_root,
    fallback_line,
    inside,
    sandbox_mode,
    sandbox_why,
    setup_failure,
    start,
    system_args,
    tmp_args,
    unavailable,
)
from ratchet.harness.fence import cover_args
from ratchet.harness.forward import endpoint_socket
from ratchet.harness.sandbox import ReplayDirs

RELAY_NAME = "ratchet-relay.py"
SOCKET_INSIDE = Path("/run/ratchet/model.sock")
_RELAY_SOURCE = Path(__file__).with_name("relay.py")
_SYSTEM = (Path("/usr"), Path("/etc"), Path("/bin"), Path("/sbin"), Path("/lib"), Path("/lib64"))
_SHIM_MANAGERS = (".pyenv", ".asdf")

# What callers ask of the sandbox, answered by ratchet/harness/bwrap_mode.py (which the gate imports alone).
__all__ = ["BUBBLEWRAP", "NONE", "SANDBOX_UID", "confine", "fallback_line", "sandbox_mode", "sandbox_why"]
__all__ += ["setup_failure", "unavailable"]

Bind = tuple[Path, Path]
"""(source on the host, target inside the sandbox), bound read-only."""


# -- what a replay can reach -------------------------------------------------------------------------------


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _system(path: Path) -> bool:
    return any(_under(path, folder) for folder in _SYSTEM)


def python_prefixes(program: Path) -> list[Path]:
    """The install folders a Python interpreter (a program named python*) needs: its venv (pyvenv.cfg) and the
    base install it runs, and the source folders their editable installs import from; never /."""
    found: list[Path] = []
    for candidate in (program.absolute(), program.resolve()):
        prefix = candidate.parent.parent
        if not candidate.name.startswith("python") or candidate.parent.name != "bin" or prefix == Path("/"):
            continue
        if (prefix / "pyvenv.cfg").is_file() or any(prefix.glob("lib/python3*/os.py")):
            found += [prefix, *editable_sources(prefix)]
    return list(dict.fromkeys(found))


_MAPPING = re.compile(r"^MAPPING\b[^=\n]*=\s*(\{.*\})\s*$", re.MULTILINE)


def editable_sources(prefix: Path) -> list[Path]:
    """Folders outside `prefix` that its site-packages import from: a .pth file's path lines, and the packages
    a setuptools editable finder maps (`pip install -e`: the package folder, not the whole repository)."""
    found: list[Path] = []
    for site in prefix.glob("lib/python3*/site-packages"):
        for pth in site.glob("*.pth"):
            lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
            found += [Path(line.strip()) for line in lines if line.startswith("/") and Path(line.strip()).is_dir()]
        for finder in site.glob("__editable__*finder.py"):
            match = _MAPPING.search(finder.read_text(encoding="utf-8", errors="replace"))
            with suppress(ValueError, SyntaxError):
                mapping = ast.literal_eval(match.group(1)) if match else {}
                found += [Path(v) for v in mapping.values() if isinstance(v, str) and Path(v).exists()]
    return found


def program_binds(program: Path) -> list[Path]:
    """What running `program` reads: its node_modules folder (an npm-installed CLI, as given and resolved),
    its Python prefixes (an interpreter), or the file itself."""
    found: list[Path] = []
    for candidate in (program.absolute(), program.resolve()):
        if "node_modules" in candidate.parts:
            found.append(Path(*candidate.parts[: candidate.parts.index("node_modules") + 1]))
    found += python_prefixes(program)
    return found or [program.absolute()]


def _named_paths(argv: Sequence[str], scratch: Path, skip: str) -> list[Path]:
    """Existing absolute paths an argv names (whole words, or a `--flag=PATH` value), outside the scratch
    folder; a unix socket is bound by itself (its folder may hold what the replay must not reach)."""
    found: list[Path] = []
    for word in argv:
        value = word.partition("=")[2] if word.startswith("-") and "=" in word else word
        if not value.startswith("/") or value == skip or "\n" in value:
            continue
        path = Path(os.path.normpath(value))
        if path == Path("/") or _under(path, scratch) or not path.exists():
            continue
        found.append(path)
    return found


def _cold(mcp_argv: Sequence[str]) -> bool:
    """Whether the MCP server is the `python -m ratchet.mcp` fallback, run inside the sandbox."""
    return any(a == "-m" and b.startswith("ratchet") for a, b in itertools.pairwise(mcp_argv))


def _server_binds(mcp_argv: Sequence[str], scratch: Path) -> list[Path]:
    """What the MCP command reads: the interpreter, a socket (lane A's pump to the warm server), and for the
    stdio fallback (`python -m ratchet.mcp`) the venv, the ratchet package and the world."""
    if not mcp_argv:
        return []
    binds = [*program_binds(Path(mcp_argv[0])), *_named_paths(mcp_argv[1:], scratch, skip="")]
    if _cold(mcp_argv):
        binds += [Path(sys.prefix), Path(sys.base_prefix), Path(__file__).resolve().parents[1]]
    return binds


def _repository(folder: Path) -> Path | None:
    return next((p for p in (folder, *folder.parents) if (p / ".git").exists()), None)


def _wide_folders() -> list[Path]:
    """What no bind may be or hold: the host's root, HOME, the repository Ratchet runs in and its own checkout."""
    folders = [Path("/"), Path.home().absolute()]
    folders += [repo for repo in (_repository(Path.cwd()), _repository(Path(__file__).resolve())) if repo]
    return folders


def _refuse_wide(paths: Iterable[Path]) -> None:
    wide = _wide_folders()
    for path in paths:
        for folder in (f for f in wide if _under(f, path)):
            raise InfraError(
                f"a replay's bubblewrap sandbox would show {path}, which is or holds {folder} (/, HOME or a "
                "repository): install the harness, its interpreter or node, and the files its command names in "
                "folders of their own (docs/harnesses.md)",
                path=path,
            )


def _refuse_shim(program: Path) -> None:
    """A pyenv or asdf shim runs the manager's own script, which the sandbox does not have (exit 127 inside)."""
    parts = program.absolute().parts
    if len(parts) > 2 and parts[-2] == "shims" and parts[-3] in _SHIM_MANAGERS:
        raise InfraError(
            f"{program} is a version manager's shim, which cannot run inside the sandbox: give the interpreter's "
            "own path (`pyenv which python3`, `asdf which python3`) in harness.command or harness.bin",
            path=program,
        )


def replay_binds(replay: ReplayInput, argv: Sequence[str], binary: Path | None) -> list[Path]:
    """Every host path one replay reads, read-only, outermost first; none under the system folders (bound
    whole) or the scratch folder (bound apart: _scratch_args). InfraError for a path that is not there, a
    shim, or one that is /, HOME, a repository or a folder above them."""
    scratch = replay.dirs.root
    wanted: list[Path] = [*python_prefixes(Path(sys.base_prefix) / "bin" / "python3")]
    node = shutil.which("node")
    if node is not None:
        wanted.append(Path(node).resolve().parent.parent)
    if argv:
        program = binary if binary is not None else Path(argv[0])
        _refuse_shim(program)
        wanted += program_binds(program)
        if binary is None:  # `command`: the agent program and the files its command line names
            wanted += _named_paths(argv[1:], scratch, skip=replay.prompt)
    wanted += _server_binds(replay.mcp_argv, scratch)
    kept = [p for p in dict.fromkeys(wanted) if p.is_absolute() and not _system(p) and not _under(p, scratch)]
    for path in kept:
        if not os.path.lexists(path):
            raise InfraError(f"cannot start the harness: {path} does not exist", path=path)
    _refuse_wide(kept)
    return sorted(kept, key=lambda p: (len(p.parts), str(p)))


def _scratch_args(dirs: ReplayDirs, mcp_argv: Sequence[str]) -> list[str]:
    """The scratch folder as the sandbox sees it: ReplayDirs.writable writable, the rest read-only, its
    host-only `mcp/` absent but for the files the MCP command names there (the pump); writable for the cold
    server, which writes the record from inside (ADR 0031: then the record can be forged)."""
    cold = _cold(mcp_argv)
    writable = {*dirs.writable, *([dirs.host_only] if cold else [])}
    args: list[str] = []
    for entry in sorted(dirs.root.iterdir()):
        if entry in writable:
            args += ["--bind", str(entry), str(entry)]
        elif entry != dirs.host_only:
            args += ["--ro-bind", str(entry), str(entry)]
    if not cold:
        for word in mcp_argv:
            path = Path(word)
            if path.is_absolute() and path.parent == dirs.host_only and path.is_file():
                args += ["--ro-bind", str(path), str(path)]
    return args


def _give_to_sandbox_user(dirs: ReplayDirs, mcp_argv: Sequence[str], sockets: Iterable[Path]) -> None:
    """As root, the replay runs as SANDBOX_UID: it gets the folders it writes and the sockets it connects to."""
    writable = [*dirs.writable, *([dirs.host_only] if _cold(mcp_argv) else [])]
    for folder in (f for f in writable if f.is_dir()):
        os.chown(folder, SANDBOX_UID, SANDBOX_UID)
        for parent, names, files in os.walk(folder):
            for name in (*names, *files):
                os.chown(os.path.join(parent, name), SANDBOX_UID, SANDBOX_UID, follow_symlinks=False)
    for path in sockets:
        os.chown(path, SANDBOX_UID, SANDBOX_UID)


def _with_parents(binds: Sequence[str]) -> list[str]:
    """`binds` (--bind/--ro-bind SRC DEST triples), each DEST's folder made first with `--dir` (0755): bwrap
    would make it 0700, which SANDBOX_UID cannot enter (/root of /root/.pyenv/..., the scratch folder)."""
    out: list[str] = []
    made: set[Path] = set()
    for at in range(0, len(binds), 3):
        flag, source, dest = binds[at : at + 3]
        folder = Path(dest).parent
        if folder not in made and folder != Path("/") and not _system(folder):
            out += ["--dir", str(folder)]
            made.add(folder)
        out += [flag, source, dest]
    return out


def bwrap_argv(
    argv: Sequence[str],
    *,
    replay: ReplayInput,
    binary: Path | None,
    relay: Path,
    port: int,
    socket_path: Path,
    covers: Iterable[Bind] = (),
) -> list[str]:
    """The whole bwrap command line for `argv` (the harness's), relay first: see the module docstring."""
    binds: list[str] = []
    for path in replay_binds(replay, argv, binary):
        binds += ["--ro-bind", str(path), str(path)]
    binds += [*_scratch_args(replay.dirs, replay.mcp_argv), "--ro-bind", str(socket_path), str(SOCKET_INSIDE)]
    args = [*start(shutil.which("bwrap") or "bwrap"), *system_args(), *tmp_args(), *_with_parents(binds)]
    # Lane C's covers (harness/fence.py): the record's paths read-only, and the host's command folders holding the
    # allowed commands and what this line runs, the shim under every other name (/usr/lib/git-core/git too).
    python = Path(sys.base_prefix) / "bin" / "python3"
    args += cover_args(covers, keep=[*inside(), str(python), *argv[:1], *replay.mcp_argv[:1]])
    args += ["--chdir", str(replay.dirs.workspace), "--", *inside()]
    return [*args, str(python), "-I", "-S", str(relay), str(port), str(SOCKET_INSIDE), "--", *argv]


def confine(argv: list[str], replay: ReplayInput, binary: Path | None, *, covers: Iterable[Bind] = ()) -> list[str]:
    """`argv` as the replay runs it: under bubblewrap when the settings' sandbox mode is "bubblewrap" (the
    relay copied into the scratch folder, the endpoint's forwarder started), else unchanged."""
    if sandbox_mode(replay.settings) != BUBBLEWRAP:
        return argv
    port = urlsplit(replay.endpoint_url).port
    if port is None:
        raise InfraError(f"the model endpoint has no port to relay: {replay.endpoint_url!r}")
    relay = replay.dirs.root / RELAY_NAME
    shutil.copyfile(_RELAY_SOURCE, relay)
    socket_path = endpoint_socket(port)
    confined = bwrap_argv(
        argv, replay=replay, binary=binary, relay=relay, port=port, socket_path=socket_path, covers=covers
    )
    if as_root():  # the warm MCP server's socket, and the command shims' collector (ratchet/harness/commands.py)
        sockets = [p for p in _named_paths(replay.mcp_argv[1:], replay.dirs.root, skip="") if p.is_socket()]
        sockets += [p for p in replay.dirs.commands.glob("*") if p.is_socket()]
        _give_to_sandbox_user(replay.dirs, replay.mcp_argv, [socket_path, *sockets])
    return confined
