"""Run one fuzz case and say how it broke the contract "bad input gets a clear error".

A case runs against a fresh copy of a template project (the blessed demo repository, or the
bench dataset from this repository's HEAD), with RATCHET_HOME in a folder beside it (never
inside it), so a message that leaks a scratch path is told apart from one naming the user's file.

The contract, checked for every case (CONTRIBUTING.md, "Conventions"):
- the exit code is the expected one (2 bad input, 3 store/infrastructure fault);
- no traceback anywhere in the output, and no exception escaping the command;
- it ends within the per-case timeout;
- the message is one line on stderr starting `error: ` that names the user's file (and no
  path under RATCHET_HOME); `ratchet validate` reports `path:line: error: ...` on stdout instead,
  and typer's usage errors (a flag outside its choices) keep their own panel;
- a failing command wrote nothing: the working tree, the index, refs, hooks, goldens and the
  pending traces are byte-identical before and after.
"""

from __future__ import annotations

import hashlib
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fuzz.cases import Case

SOURCE = Path(__file__).resolve().parents[2]
CASE_TIMEOUT_S = 30.0
MEMORY_LIMIT_BYTES = 3 * 1024**3  # a YAML alias bomb must not take the shared machine down
GIT_IDENTITY = ["-c", "user.name=Ratchet Fuzz", "-c", "user.email=fuzz@example.com", "-c", "commit.gpgsign=false"]
# Files that make up the bench dataset, exported from this repository's HEAD (not the live tree,
# which other people may be editing while the probe runs).
BENCH_FILES = [
    "ratchet.yaml",
    "skills",
    "goldens",
    "labels",
    "bench/tasks.yaml",
    "bench/world",
    "bench/workspaces",
    "bench/fixtures",
    "bench/edits",
    "bench/DIGESTS.json",
]
# Environment every case starts from; a case's env is applied on top (None removes a variable).
_CLEARED = (
    "RATCHET_CLOCK",
    "RATCHET_DEBUG",
    "RATCHET_BENCH_USD_CAP",
    "CI",
    "XDG_CACHE_HOME",
    "GIT_DIR",
    "GIT_INDEX_FILE",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
)

_SUBPROCESS_MAIN = (
    "import faulthandler, os, signal, sys\n"
    "faulthandler.register(signal.SIGUSR1)\n"  # a hang is asked for its stack before it is killed
    "os.environ.setdefault('LITELLM_LOCAL_MODEL_COST_MAP', 'True')\n"
    "from ratchet.cli import main\n"
    "sys.argv = ['ratchet', *sys.argv[1:]]\n"
    "main()\n"
)
# A traceback's frames ("line 3, in f", innermost last) or faulthandler's ("line 3 in f", innermost first).
_RATCHET_FRAME = re.compile(r'File "[^"]*/(ratchet/[^"]+\.py)", line (\d+),? in (\S+)')


# -- templates -------------------------------------------------------------------------------


@contextmanager
def _env(values: dict[str, str | None]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def git(root: Path, *args: str) -> str:
    """Run git in root (never in the repository the probe lives in)."""
    done = subprocess.run(["git", *GIT_IDENTITY, *args], cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {root}: {done.stderr.strip()}")
    return done.stdout


class Templates:
    """The template projects, built once in `base` and copied per case."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self._built: dict[str, Path] = {}

    def get(self, kind: str) -> Path:
        if kind not in self._built:
            self._built[kind] = getattr(self, f"_build_{kind}")(self.base / f"template-{kind}")
        return self._built[kind]

    @staticmethod
    def _build_demo(root: Path) -> Path:
        from ratchet.setup.demo import build_demo_repo

        repo = root / "repo"
        repo.mkdir(parents=True)
        cleared: dict[str, str | None] = {name: None for name in _CLEARED}
        with _env({**cleared, "RATCHET_UPSTREAM": "sim", "RATCHET_HOME": str(root / "home")}):
            build_demo_repo(repo, root / "home")
        return repo

    @staticmethod
    def _build_bench(root: Path) -> Path:
        repo = root / "repo"
        repo.mkdir(parents=True)
        archive = root / "bench.tar"
        with archive.open("wb") as out:
            subprocess.run(["git", "-C", str(SOURCE), "archive", "HEAD", *BENCH_FILES], stdout=out, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(repo, filter="data")
        archive.unlink()
        return repo

    @staticmethod
    def _build_empty(root: Path) -> Path:
        repo = root / "repo"
        repo.mkdir(parents=True)
        return repo


# -- the case's world ------------------------------------------------------------------------


@dataclass
class Ctx:
    """One case's folders: the project copy, RATCHET_HOME beside it, and a scratch dir for extras."""

    tmp: Path
    repo: Path
    home: Path

    def path(self, rel: str) -> Path:
        return self.repo / rel

    def write(self, rel: str, data: str | bytes) -> Path:
        path = self.repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_bytes(data.encode("utf-8"))
        return path

    def read(self, rel: str) -> str:
        return (self.repo / rel).read_text(encoding="utf-8")

    def home_write(self, rel: str, data: str | bytes) -> Path:
        path = self.home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return path

    def git(self, *args: str) -> str:
        return git(self.repo, *args)

    def commit(self, message: str = "fuzz") -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "--no-verify", "-m", message)

    def expand(self, text: str) -> str:
        return text.replace("{repo}", str(self.repo)).replace("{home}", str(self.home)).replace("{tmp}", str(self.tmp))


# -- snapshots -------------------------------------------------------------------------------

_GIT_SKIP = {"objects", "logs", "index"}


def _walk(root: Path, prefix: str, skip: tuple[str, ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    if not root.exists() and not root.is_symlink():
        return found
    if root.is_file():
        return {prefix: hashlib.sha1(root.read_bytes()).hexdigest()}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        if rel_dir == ".git/":
            dirnames[:] = [d for d in dirnames if d not in _GIT_SKIP]
        dirnames[:] = [d for d in dirnames if not any(f"{rel_dir}{d}/".startswith(s) for s in skip)]
        for name in filenames:
            rel = f"{rel_dir}{name}"
            if rel_dir == ".git/" and name in _GIT_SKIP:
                continue
            if any(rel.startswith(s) for s in skip):
                continue
            full = Path(dirpath) / name
            try:
                digest = (
                    f"link:{os.readlink(full)}" if full.is_symlink() else hashlib.sha1(full.read_bytes()).hexdigest()
                )
            except OSError as exc:
                digest = f"unreadable:{exc.errno}"
            found[f"{prefix}{rel}"] = digest
        for name in dirnames:
            found[f"{prefix}{rel_dir}{name}/"] = "dir"
    return found


def snapshot(ctx: Ctx, skip: tuple[str, ...]) -> dict[str, str]:
    """Everything a failing command must leave alone: tree, index entries, refs, hooks, pending traces."""
    state = _walk(ctx.repo, "", skip)
    if (ctx.repo / ".git").is_dir():
        index = subprocess.run(["git", "ls-files", "-s"], cwd=ctx.repo, capture_output=True, check=False).stdout
        state["<git index entries>"] = hashlib.sha1(index).hexdigest()
    state.update(_walk(ctx.home / "pending", "$RATCHET_HOME/pending/", ()))
    return state


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    out = []
    for key in sorted(set(before) | set(after)):
        if key not in before:
            out.append(f"+{key}")
        elif key not in after:
            out.append(f"-{key}")
        elif before[key] != after[key]:
            out.append(f"~{key}")
    return out


# -- running ---------------------------------------------------------------------------------


class CaseHang(BaseException):
    """The per-case timeout fired (a BaseException, so CliRunner does not swallow it)."""


@dataclass
class Outcome:
    """What one case did, and every way it broke the contract."""

    case_id: str
    command: str = ""
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    traceback: str = ""
    hang: bool = False
    written: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0
    setup_error: str = ""

    @property
    def categories(self) -> set[str]:
        return {v.split(":", 1)[0] for v in self.violations}

    @property
    def first_line(self) -> str:
        if self.setup_error:
            return f"setup failed: {self.setup_error}"
        if self.hang and self.culprit != "?":
            return f"timed out in {self.culprit}"
        if self.hang:
            said = [line.strip() for line in (self.stdout + self.stderr).splitlines() if line.strip()]
            return f"timed out; last output: {said[-1]}" if said else "timed out with no output"
        if self.traceback:
            last = [line for line in self.traceback.strip().splitlines() if line.strip()]
            return f"{last[-1].strip() if last else 'traceback'}  [{self.culprit}]"
        for text in (self.stderr, self.stdout):
            for line in text.splitlines():
                if line.strip() and not line.strip().startswith(("Usage:", "Try ")):
                    return line.strip()
        return "(no output)"

    @property
    def culprit(self) -> str:
        """The deepest Ratchet frame of the traceback: the file and function at fault."""
        frames = _RATCHET_FRAME.findall(self.traceback)
        if not frames:
            return "?"
        path, line, func = frames[0] if self.traceback.startswith("Current thread") else frames[-1]
        return f"{path}:{line} {func}"

    def explain(self) -> str:
        parts = [f"case {self.case_id}: " + "; ".join(self.violations)]
        if self.traceback:
            parts.append(self.traceback[-3000:])
        parts.append(
            f"exit={self.exit_code}\n--- stderr ---\n{self.stderr[-2000:]}\n--- stdout ---\n{self.stdout[-1500:]}"
        )
        return "\n".join(parts)


def _in_process(
    argv: list[str], env: dict[str, str | None], cwd: Path, timeout: float
) -> tuple[int | None, str, str, str, bool]:
    from typer.testing import CliRunner

    from ratchet.cli import app

    use_alarm = threading.current_thread() is threading.main_thread()

    def on_alarm(signum: int, frame: Any) -> None:
        raise CaseHang()

    previous_cwd = os.getcwd()
    previous_handler = signal.signal(signal.SIGALRM, on_alarm) if use_alarm else None
    try:
        os.chdir(cwd)
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            result = CliRunner().invoke(app, argv, env=env)
        finally:
            if use_alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
    except CaseHang:
        return None, "", "", "", True
    finally:
        os.chdir(previous_cwd)
        if use_alarm:
            signal.signal(signal.SIGALRM, previous_handler)
    tb = ""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        exc = result.exception
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return result.exit_code, result.stdout, result.stderr, tb, False


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def _in_subprocess(
    argv: list[str], env: dict[str, str | None], cwd: Path, timeout: float
) -> tuple[int | None, str, str, str, bool]:
    full_env = dict(os.environ)
    for name, value in env.items():
        if value is None:
            full_env.pop(name, None)
        else:
            full_env[name] = value
    full_env["PYTHONPATH"] = str(SOURCE)
    proc = subprocess.Popen(
        [sys.executable, "-c", _SUBPROCESS_MAIN, *argv],
        cwd=cwd,
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limit_memory,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)
        try:
            out, err = proc.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        stderr = err.decode("utf-8", "replace")
        stack = stderr[stderr.find("Current thread") :] if "Current thread" in stderr else ""
        return None, out.decode("utf-8", "replace"), stderr, stack, True
    stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    tb = (
        stderr[stderr.index("Traceback (most recent call last)") :]
        if "Traceback (most recent call last)" in stderr
        else ""
    )
    code = proc.returncode
    if code < 0 and not tb:
        tb = f"killed by signal {-code}"
    return code, stdout, stderr, tb, False


_BOX = re.compile(r"[╭╮╰╯│─]")


def _check_message(case: Case, ctx: Ctx, outcome: Outcome) -> None:
    must = ctx.expand(case.must_name) if case.must_name else None
    forbid = [ctx.expand(f) for f in case.forbid]
    forbid += [str(Path(f).resolve()) for f in forbid]
    if case.style == "usage":
        flat = " ".join(_BOX.sub(" ", outcome.stderr).split())
        if "Error" not in flat:
            outcome.violations.append("message: no usage error on stderr")
        elif must and must not in flat:
            outcome.violations.append(f"message: usage error does not name {must!r}")
        return
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    if case.style == "report":
        reported = [line for line in outcome.stdout.splitlines() if ": error: " in line]
        if lines:  # validate may refuse a path outright: then the usual one line
            reported = lines
            if len(lines) != 1 or not lines[0].startswith("error: "):
                outcome.violations.append(f"message: stderr is not one 'error: ' line ({len(lines)} line(s))")
        if not reported:
            outcome.violations.append("message: no 'path:line: error: ...' line reported")
            return
        if must and not any(must in line for line in reported):
            outcome.violations.append(f"message: no error line names {must!r}")
        leaked = [f for f in forbid if any(f in line for line in reported)]
        if leaked:
            outcome.violations.append("message: names a path under RATCHET_HOME")
        return
    # record and bless work through a batch: one `error: ` line per refused item, then a summary.
    batch = case.argv[0] in ("record", "bless")
    if not lines or (len(lines) > 1 and not (batch and all(line.startswith("error: ") for line in lines))):
        outcome.violations.append(f"message: expected one line on stderr, got {len(lines)}")
    if not lines:
        return
    first = next((line for line in lines if must and must in line), lines[0]) if batch else lines[0]
    if not first.startswith("error: "):
        outcome.violations.append("message: stderr does not start with 'error: '")
    if must and must not in first:
        outcome.violations.append(f"message: does not name {must!r}")
    leaked = [f for f in forbid if f in first]
    if leaked:
        outcome.violations.append("message: names a path under RATCHET_HOME")


def run_case(case: Case, workdir: Path, templates: Templates, *, timeout: float = CASE_TIMEOUT_S) -> Outcome:
    """Set the case up in workdir, run it, and list its contract violations."""
    outcome = Outcome(case.id, command=" ".join(case.argv[:2] if case.argv[0] in ("bench", "hook") else case.argv[:1]))
    tmp = workdir / case.slug
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    repo = tmp / "repo"
    if case.fixture == "none":
        repo.mkdir()
    else:
        shutil.copytree(templates.get(case.fixture), repo, symlinks=True)
    ctx = Ctx(tmp=tmp, repo=repo, home=tmp / "home")
    try:
        if case.setup is not None:
            case.setup(ctx)
    except Exception as exc:  # a broken case is the probe's bug: say so instead of blaming Ratchet
        outcome.setup_error = f"{type(exc).__name__}: {exc}"
        outcome.violations.append(f"setup: {outcome.setup_error}")
        return outcome
    argv = [ctx.expand(arg) for arg in case.argv]
    env: dict[str, str | None] = {name: None for name in _CLEARED}
    env.update({"RATCHET_HOME": str(ctx.home), "RATCHET_UPSTREAM": "sim", "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    env.update({name: (ctx.expand(value) if value is not None else None) for name, value in case.env.items()})
    skip = case.snapshot_skip
    before = snapshot(ctx, skip)
    started = time.monotonic()
    runner = _in_subprocess if case.subprocess else _in_process
    code, out, err, tb, hang = runner(
        argv, env, repo if case.cwd is None else ctx.path(case.cwd), case.timeout or timeout
    )
    outcome.seconds = time.monotonic() - started
    outcome.exit_code, outcome.stdout, outcome.stderr, outcome.traceback, outcome.hang = code, out, err, tb, hang
    if hang:
        outcome.violations.append(f"hang: no exit within {case.timeout or timeout:.0f} s")
    else:
        if tb or "Traceback (most recent call last)" in out + err:
            outcome.violations.append("traceback: " + outcome.first_line)
            outcome.traceback = outcome.traceback or err
        if code not in case.exit_codes:
            outcome.violations.append(f"exit: {code}, expected {' or '.join(map(str, case.exit_codes))}")
        if code != 0 and not tb:
            _check_message(case, ctx, outcome)
    after = snapshot(ctx, skip)
    outcome.written = changed(before, after)
    # check and validate never write to the user's tree, whatever they answer; others only when failing.
    if outcome.written and (code != 0 or argv[0] in ("check", "validate")):
        outcome.violations.append(f"written: {', '.join(outcome.written[:6])}")
    return outcome


def default_workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="ratchet-fuzz-"))
