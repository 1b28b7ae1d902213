"""Whether, and as whom, a harness replay runs under bubblewrap (docs/adr/0031-bubblewrap-sandbox.md).

The probe (once per process), the mode a trace records ("bubblewrap" or "none") and why, the one line a run
without the sandbox prints, and the bwrap options that decide who runs inside: never the host's root. Run by
root (CI), bwrap would map root inside to root outside, able to write /proc/sys (core_pattern runs a program
as root); so as root bwrap makes no user namespace and keeps only setuid, setgid and setpcap, and `setpriv`
turns the replay into SANDBOX_UID (nobody) with no capabilities before anything of the replay runs. Run by
anyone else, bwrap maps them to themselves in a user namespace. Either way /proc/sys is read-only.
Apart from ratchet/harness/bwrap.py (the command line) because the gate asks why without starting anything:
this module imports nothing of the endpoint's web stack.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from ratchet.config.harness import HarnessSettings
from ratchet.core.errors import InfraError
from ratchet.harness.sandbox import ProcessOutcome

BUBBLEWRAP = "bubblewrap"
NONE = "none"
SANDBOX_UID = 65534
"""The user (nobody) a replay runs as when Ratchet runs as root."""
_NAMESPACES = ("--unshare-all", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net")
# As root: every namespace but the user's (one would map root inside to root outside), `setpriv` drops the rest.
_ROOT_NAMESPACES = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try")
_ROOT_CAPS = ("--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP")
_SETPRIV = (f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups", "--bounding-set=-all")
_ETC: tuple[str, ...] = ("passwd", "group", "nsswitch.conf", "hosts", "host.conf", "ld.so.cache", "ld.so.conf")
_ETC += ("ld.so.conf.d", "alternatives", "localtime", "os-release", "mime.types")
_PROBE_TIMEOUT_S = 20.0
_RESOLV_CONF = Path(__file__).with_name("resolv.conf")


def as_root() -> bool:
    return os.geteuid() == 0


def _setpriv() -> str | None:
    return shutil.which("setpriv", path="/usr/bin:/bin")


def start(bwrap: str) -> list[str]:
    """bwrap and its namespace and capability options, for this process's user."""
    if as_root():
        return [bwrap, *_ROOT_NAMESPACES, "--die-with-parent", "--new-session", *_ROOT_CAPS]
    return [bwrap, *_NAMESPACES, "--cap-drop", "ALL"]


def inside() -> list[str]:
    """What the sandbox runs first: as root, setpriv to SANDBOX_UID with no capabilities left at all."""
    setpriv = _setpriv()
    return [setpriv, *_SETPRIV, "--inh-caps=-all", "--"] if as_root() and setpriv else []


def system_args() -> list[str]:
    """The read-only host: /usr, the merged-usr links (or the folders, where not merged), /etc pieces."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
        path = Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--dir", "/etc"]  # 0755: made by the binds below it would be 0700, closed to SANDBOX_UID
    for name in _ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    # not the host's: a name lookup fails at once where no nameserver can be reached (the file says why)
    args += ["--ro-bind", str(_RESOLV_CONF), "/etc/resolv.conf"]
    # /proc/sys read-only: no kernel setting is the replay's to change, whatever user it runs as.
    return [*args, "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--dev", "/dev"]


def tmp_args() -> list[str]:
    return ["--perms", "1777", "--tmpfs", "/tmp"]


@lru_cache(maxsize=1)
def unavailable() -> str:
    """Why bubblewrap cannot sandbox a replay here ("" when it can): probed once per process."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap is Linux only (this is {sys.platform})"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bwrap is not installed (scripts/install_bubblewrap.sh installs Debian's bubblewrap)"
    if as_root() and _setpriv() is None:
        return "Ratchet runs as root and setpriv (util-linux) is not installed to run replays as an unprivileged user"
    try:
        done = subprocess.run(
            [*start(bwrap), *system_args(), *tmp_args(), "--", *inside(), "/usr/bin/true"],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not be run ({exc})"
    if done.returncode != 0:
        said = " ".join((done.stderr.strip().splitlines() or ["no message"])[-1].split())
        return f"bwrap refused to start a sandbox (exit {done.returncode}: {said[:200]})"
    return ""


def sandbox_why(settings: HarnessSettings) -> str:
    """Why a replay with these settings runs without bubblewrap on this machine ("" when it runs under it)."""
    return "harness.sandbox is off" if settings.sandbox == "off" else unavailable()


def sandbox_mode(settings: HarnessSettings) -> str:
    """What a replay with these settings runs under: "bubblewrap" or "none" (HarnessRef.sandbox; why is this
    machine's, sandbox_why, never written into a golden). InfraError when `harness.sandbox: bubblewrap` and it
    cannot run."""
    why = sandbox_why(settings)
    if why and settings.sandbox == BUBBLEWRAP:
        raise InfraError(f"harness.sandbox is bubblewrap, but {why}")
    return NONE if why else BUBBLEWRAP


def fallback_line(settings: HarnessSettings) -> str | None:
    """The one line a run of harness replays without bubblewrap prints first (record, noise, triggers, mutate);
    None on the minimal runner or under bubblewrap. A check says it as its verdict's note."""
    if settings.is_minimal or sandbox_mode(settings) == BUBBLEWRAP:
        return None
    return (
        f"harness replays run without the bubblewrap sandbox ({sandbox_why(settings)}): only the process group and "
        "leftover processes are killed, so the harness can read what this user can and reach the network "
        "(docs/harnesses.md)"
    )


def setup_failure(outcome: ProcessOutcome) -> str | None:
    """bwrap's own error, when it stopped before the sandbox ran anything (exit 1, its `bwrap:` line first)."""
    lines = [line.strip() for line in outcome.stderr.splitlines() if line.strip()]
    if outcome.exit_code == 1 and lines and lines[0].startswith("bwrap: "):
        return lines[0]
    return None
