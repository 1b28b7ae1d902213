"""A replay under bubblewrap (real bwrap): what it cannot do, and that it still reaches the model.

A probe agent (the `command` harness, stdlib only) asks the model once through the endpoint URL it was
given, starts `(cd / && setsid sleep ...)`, tries to read a sentinel in the user's real HOME and a file of
the repository, and tries to reach a non-loopback address; it prints what happened as JSON, which the
replay keeps as its final answer. Skipped where bwrap cannot run, except under CI.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import uuid
from pathlib import Path

import pytest

from ratchet.config.harness import HarnessName, HarnessSettings, SandboxMode
from ratchet.config.project import load_project
from ratchet.core.errors import InfraError
from ratchet.data import demo_files
from ratchet.goldens.tasks import Task, load_tasks, task_seed
from ratchet.goldens.trace import HarnessRef, Trace
from ratchet.harness import bwrap, bwrap_mode, warm_mcp
from ratchet.harness.driver import WorldSource, run_through_harness
from ratchet.harness.sandbox import replay_dirs
from ratchet.llm.fake import ScriptedModel
from ratchet.sim.agent import SimAgentModel
from ratchet.skills.sets import load_skills
from tests.helpers.leftovers import LeftoverSpy

REPO_FILE = Path(__file__).resolve().parents[2] / "pyproject.toml"
SLEEP = "7777.31"
PROBE = """
import json, os, socket, subprocess, sys, time, urllib.request
proxy, token = sys.argv[1], sys.argv[2].partition("=")[2]
targets = json.loads(%r)
out = {}
body = {"model": "agent", "messages": [{"role": "user", "content": "hi"}]}
request = urllib.request.Request(proxy + "/v1/chat/completions", data=json.dumps(body).encode(),
    headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
out["model"] = json.loads(urllib.request.urlopen(request, timeout=30).read())["choices"][0]["message"]["content"]
if targets["setsid"]:
    subprocess.run(["sh", "-c", "(cd / && setsid sleep %s &)"], check=True)
    time.sleep(0.3)
    out["child"] = any(os.path.exists(f"/proc/{p}/cmdline") and b"%s" in open(f"/proc/{p}/cmdline", "rb").read()
                       for p in os.listdir("/proc") if p.isdigit())
for name, path in targets["read"].items():
    try:
        out[name] = open(path).read()[:40]
    except OSError as exc:
        out[name] = type(exc).__name__
for name, (host, port) in targets["connect"].items():
    started = time.monotonic()
    try:
        socket.create_connection((host, port), timeout=5).close()
        out[name] = "connected"
    except OSError as exc:
        out[name] = exc.strerror or type(exc).__name__
    out[name + "_s"] = time.monotonic() - started
out["uid"] = os.getuid()
out["resolv"] = open("/etc/resolv.conf").read() if os.path.exists("/etc/resolv.conf") else None
try:
    socket.getaddrinfo("api.github.com", 443)
    out["lookup"] = "resolved"
except OSError as exc:
    out["lookup"] = type(exc).__name__
for name, path in targets.get("writeback", {}).items():  # the value it holds, written back: changes nothing
    try:
        value = open(path).read()
        open(path, "w").write(value)
        out[name] = "written"
    except OSError as exc:
        out[name] = type(exc).__name__
if targets.get("forge"):  # a call that never happened, appended to the MCP server's record
    line = {"arguments": {"to": "all@corp"}, "effect": "send", "error": None, "index": 0, "name": "email_send",
            "result": {"ok": True}, "state_changes": []}
    try:
        with open(os.path.join(os.path.dirname(os.getcwd()), targets["forge"]), "a") as record:
            record.write(json.dumps(line) + "\\n")
        out["forge"] = "appended"
    except OSError as exc:
        out["forge"] = type(exc).__name__
for name, argv in targets.get("run", {}).items():
    done = subprocess.run(argv, capture_output=True, text=True)
    out[name] = [done.returncode, (done.stdout + done.stderr).strip()]
open("written-here.txt", "w").write("the workspace is writable")
print(json.dumps(out))
"""


def _need_bwrap() -> None:
    why = bwrap.unavailable()
    if why and os.environ.get("CI"):
        pytest.fail(f"bubblewrap must run in CI (scripts/install_bubblewrap.sh): {why}")
    if why:
        pytest.skip(why)


def _host_address() -> str | None:
    """This machine's address on its default route (not loopback), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.1", 9))
            return str(probe.getsockname()[0])
        except OSError:
            return None


def _replay(tmp_path: Path, targets: dict[str, object], sandbox: SandboxMode = "auto") -> Trace:
    script = tmp_path / "probe.py"
    script.write_text(PROBE % (json.dumps(targets), SLEEP, SLEEP), encoding="utf-8")
    command = f"{sys.executable} -I {script} {{proxy_url}} --token={{token}} {{prompt}}"
    settings = HarnessSettings(name="command", command=command, sandbox=sandbox)
    world = tmp_path / "world"
    world.mkdir(exist_ok=True)
    return run_through_harness(
        Task(id="probe-01", prompt="probe"),
        {},
        WorldSource(world_dir=world, workspaces_dir=None, workspace=None, frozen_time="2026-01-15T09:00:00Z"),
        ScriptedModel(responses=["done"]),
        settings=settings,
        home=tmp_path / "home",
        seed=1,
        models={"agent": "scripted/fake"},
    )


def _sleepers() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes() == f"sleep\0{SLEEP}\0".encode():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_sandboxed_replay_keeps_nothing_running_reads_no_home_and_reaches_only_loopback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _need_bwrap()
    spy = LeftoverSpy().install(monkeypatch)
    sentinel = Path.home() / f".ratchet-sentinel-{uuid.uuid4().hex}"
    sentinel.write_text("the user's secret", encoding="utf-8")
    server = socket.create_server(("0.0.0.0", 0))
    host = _host_address()
    connect: dict[str, tuple[str, int]] = {"far": ("10.255.255.1", 80)}
    if host is not None:
        connect["host"] = (host, server.getsockname()[1])
    try:
        targets = {
            "setsid": True,
            "read": {"home": str(sentinel), "repo": str(REPO_FILE)},
            "connect": connect,
            "run": {"git": ["/usr/bin/git", "--version"]} if Path("/usr/bin/git").is_file() else {},
        }
        trace = _replay(tmp_path, targets)
        left = _sleepers()
    finally:
        sentinel.unlink()
        server.close()
        for pid in _sleepers():
            os.kill(pid, signal.SIGKILL)
    assert trace.status == "ok", trace.error
    assert trace.harness == HarnessRef(name="command", sandbox="bubblewrap")
    seen = json.loads(trace.final_output)
    assert seen["model"] == "done", "the endpoint is reached through the relay"
    assert seen["child"] is True, "the setsid child did start inside"
    assert left == [], "and is gone when the replay returns"
    assert (seen["home"], seen["repo"]) == ("FileNotFoundError", "FileNotFoundError")
    # no nameserver is reachable, and the sandbox's resolv.conf says so at once (musl's default waits 5 s a name)
    assert seen["lookup"] == "gaierror"
    assert seen["resolv"] == (Path(bwrap_mode.__file__).with_name("resolv.conf")).read_text(encoding="utf-8")
    assert "options timeout:0 attempts:1" in seen["resolv"].splitlines()
    for name in connect:
        assert seen[name] == "Network is unreachable" and seen[f"{name}_s"] < 1, (name, seen)
    if "git" in seen:  # the command shim is bound over the host's git: an absolute path is mocked too
        assert seen["git"] == [127, "ratchet: git is not mocked (commands.yaml)"], seen["git"]
    assert spy.replays == 1 and spy.found == [], "bwrap ended everything before the leftover kill looked"


@pytest.mark.parametrize(
    ("harness", "warm"),
    [("claude-code", True), ("codex", True), ("claude-code", False)],
    ids=["claude", "codex", "cold"],
)
def test_a_real_harness_replays_under_the_sandbox(
    harness: HarnessName, warm: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the warm MCP server's pump, and (cold) through the `python -m ratchet.mcp` fallback."""
    _need_bwrap()
    spy = LeftoverSpy().install(monkeypatch)
    if not warm:
        monkeypatch.setattr(warm_mcp, "available", lambda: False)
    variable = {"claude-code": "RATCHET_CLAUDE_BIN", "codex": "RATCHET_CODEX_BIN"}[harness]
    if not Path(os.environ.get(variable, "")).is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{variable} must point at the pinned binary in CI (scripts/install_harnesses.sh)")
        pytest.skip(f"{harness} is not installed")
    with demo_files() as source:
        project = load_project(Path(source), home=tmp_path / "home")
        task = next(t for t in load_tasks(project.path("tasks")) if t.id == "github-triage-01")
        trace = run_through_harness(
            task,
            load_skills(project.path("skills")),
            WorldSource(
                world_dir=project.path("world"),
                workspaces_dir=project.path("workspaces"),
                workspace=task.workspace,
                frozen_time=project.config.clock,
            ),
            SimAgentModel(),
            settings=HarnessSettings(name=harness, sandbox="bubblewrap"),
            home=project.home,
            seed=task_seed(task.id),
            models={"agent": "sim"},
        )
    assert trace.status == "ok", trace.error
    assert trace.harness is not None and trace.harness.sandbox == "bubblewrap"
    assert trace.fired_skill == "github-triage" and trace.tool_calls, "the MCP server is reached from inside"
    assert spy.replays and spy.found == [], "bwrap ended everything before the leftover kill looked"


def test_a_sandboxed_replay_can_neither_change_kernel_settings_nor_forge_the_mcp_record(tmp_path: Path) -> None:
    """Review of issue 27, items 1 and 3: as the host's root, bwrap mapped root inside to root outside, and a
    write to /proc/sys (core_pattern: a program the kernel runs as root) went through; the MCP server's call
    record sat in the writable scratch root, so the agent could append a call that never happened."""
    _need_bwrap()
    with replay_dirs(tmp_path / "layout") as dirs:
        record = dirs.record.relative_to(dirs.root)
    targets = {
        "setsid": False,
        "read": {},
        "connect": {},
        "writeback": {"swappiness": "/proc/sys/vm/swappiness", "core_pattern": "/proc/sys/kernel/core_pattern"},
        "forge": str(record),
    }
    trace = _replay(tmp_path, targets, sandbox="bubblewrap")
    assert trace.status == "ok", trace.error
    seen = json.loads(trace.final_output)
    assert "written" not in (seen["swappiness"], seen["core_pattern"]), seen
    if os.geteuid() == 0:  # the host's root runs the replay as an unprivileged user
        assert seen["uid"] == bwrap.SANDBOX_UID, seen
    assert [call.name for call in trace.tool_calls] == [], "the record is the warm server's, out of reach"


def test_a_missing_agent_program_is_an_infra_error_not_a_replay_error(tmp_path: Path) -> None:
    """bwrap's own `Can't find source path` came out as the replay's exit 1: every pair an error, not exit 3."""
    _need_bwrap()
    world = tmp_path / "world"
    world.mkdir()
    missing = tmp_path / "not-installed" / "agent"
    with pytest.raises(InfraError, match="not-installed/agent"):
        run_through_harness(
            Task(id="probe-01", prompt="probe"),
            {},
            WorldSource(world_dir=world, workspaces_dir=None, workspace=None, frozen_time="2026-01-15T09:00:00Z"),
            ScriptedModel(responses=["done"]),
            settings=HarnessSettings(name="command", command=f"{missing} {{prompt}}", sandbox="bubblewrap"),
            home=tmp_path / "home",
            seed=1,
            models={"agent": "scripted/fake"},
        )


def test_bwrap_failing_to_set_up_the_sandbox_is_an_infra_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bind bwrap cannot make (here: the model socket's mount point under /proc) stops before the relay
    starts: exit 1 and a `bwrap:` line, Ratchet's fault or the machine's, never the harness's."""
    _need_bwrap()
    monkeypatch.setattr(bwrap, "SOCKET_INSIDE", Path("/proc/ratchet/model.sock"))
    with pytest.raises(InfraError, match=r"bubblewrap could not set up the replay's sandbox: bwrap: "):
        _replay(tmp_path, {"setsid": False, "read": {}, "connect": {}}, sandbox="bubblewrap")


def test_sandbox_off_is_stamped_on_the_trace(tmp_path: Path) -> None:
    trace = _replay(tmp_path, {"setsid": False, "read": {}, "connect": {}}, sandbox="off")
    assert trace.status == "ok", trace.error
    # Only "bubblewrap" or "none": why is this machine's, said on the run's note, never written into a golden.
    assert trace.harness is not None and trace.harness.sandbox == "none"


def test_a_required_sandbox_that_cannot_run_is_an_infra_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bwrap_mode, "unavailable", lambda: "bwrap is not installed")
    assert bwrap.sandbox_mode(HarnessSettings(name="codex")) == "none"
    assert bwrap.sandbox_why(HarnessSettings(name="codex")) == "bwrap is not installed"
    assert bwrap.sandbox_why(HarnessSettings(name="codex", sandbox="off")) == "harness.sandbox is off"
    with pytest.raises(InfraError, match=r"harness\.sandbox is bubblewrap, but bwrap is not installed"):
        bwrap.sandbox_mode(HarnessSettings(name="codex", sandbox="bubblewrap"))


def test_a_trace_from_before_the_sandbox_was_recorded_writes_back_the_same() -> None:
    def trace(harness: HarnessRef) -> Trace:
        return Trace(task_id="t-01", prompt="p", seed=1, frozen_time="2026-01-15T09:00:00Z", harness=harness)

    text = trace(HarnessRef(name="codex", version="0.1")).to_json()
    assert '"sandbox"' not in text
    assert Trace.model_validate_json(text).to_json() == text
    stamped = trace(HarnessRef(name="codex", sandbox="bubblewrap")).to_json()
    assert Trace.model_validate_json(stamped).harness == HarnessRef(name="codex", sandbox="bubblewrap")
