"""How long `ratchet check` on the live path takes to fail when it cannot work at all.

Builds the demo repository, commits a live ratchet.yaml whose four tiers point at one base URL
with a key variable, and times the whole command (a fresh `python -m` process, imports included)
in two cases: (i) the key variable unset, (ii) the key set but the base URL a closed local port.
Gateway.preflight should stop both before any replay, with exit 3 and one line, well under 2 s
each (without it, a dead upstream cost ~45 s of retries). Prints both wall times.
Run: .venv/bin/python benchmarks/preflight.py
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.setup.demo import EDITS, apply_edit, build_demo_repo
from tests.helpers.gitrepo import commit

KEY_ENV = "RATCHET_BENCH_PREFLIGHT_KEY"
LIMIT_S = 2.0


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _live_yaml(api_base: str) -> str:
    tier = f'{{model: openai/fake-model, api_base: "{api_base}", api_key_env: {KEY_ENV}, max_tokens: 64}}'
    return (
        "schema_version: 1\nupstream: live\n"
        "paths: {skills: skills, tasks: tasks.yaml, goldens: goldens, world: world, workspaces: workspaces}\n"
        f"tiers:\n  agent: {tier}\n  nano: {tier}\n  super: {tier}\n  ultra: {tier}\n"
        "prices:\n  openai/fake-model: {input: 0.000001, output: 0.000002}\n"
    )


def _timed_check(repo: Path, base: str, head: str, env: dict[str, str]) -> tuple[float, int, str]:
    command = [
        sys.executable,
        "-c",
        "from ratchet.cli import main; main()",
        "check",
        "--repo",
        str(repo),
        "--base",
        base,
        "--head",
        head,
    ]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    return time.perf_counter() - started, done.returncode, done.stderr.strip()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        os.environ["RATCHET_UPSTREAM"] = "sim"
        build_demo_repo(repo, repo / ".ratchet")
        dead = f"http://127.0.0.1:{_closed_port()}/v1"
        base = commit(repo, {"ratchet.yaml": _live_yaml(dead)}, "live tiers")
        edit = next(e for e in EDITS if e.branch == "edit/changed-argument")
        apply_edit(repo, edit)
        env = {k: v for k, v in os.environ.items() if k not in (KEY_ENV, "CI")}
        env.update(RATCHET_UPSTREAM="live", RATCHET_HOME=str(Path(tmp) / "home"), LITELLM_LOCAL_MODEL_COST_MAP="True")
        cases = {"(i) no key": env, "(ii) unreachable upstream": {**env, KEY_ENV: "sk-bench"}}
        slow = []
        for name, case_env in cases.items():
            wall, code, line = _timed_check(repo, base, edit.branch, case_env)
            print(f"{name:<27} {wall:5.2f} s  exit {code}  {line}")
            if wall >= LIMIT_S or code != 3:
                slow.append(name)
        if slow:
            print(f"over {LIMIT_S:g} s or not exit 3: {', '.join(slow)}")
            sys.exit(1)


if __name__ == "__main__":
    main()
