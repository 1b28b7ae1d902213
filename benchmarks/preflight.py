"""How long the commands that call a model take to fail when their upstream cannot serve them.

Builds the demo repository (goldens blessed on the simulator) and the bench tests' mini dataset, turns
both live (`upstream: live`, every tier `openai/fake-model` on one loopback base), and times each command
as a fresh `python -m` process (imports included) in two cases:
  (i)  the base is a closed local port (the server is down);
  (ii) the base is a loopback OpenAI-compatible server that answers but lists other model ids;
  (iii) the base trickles its answer (headers after 1.2 s, then one byte every 1.2 s: each read is
        within httpx's 1.5 s timeout, the answer never ends; before the probe's wall-clock deadline this
        held preflight for as long as the server kept sending).
Commands: `check` (base -> an edit branch), `record`, `noise --repeats 2`, `bench run --config cascade`,
`mutate --limit 1`. Preflight should stop every one before any work with exit 3 and one line on stderr,
in under 2 s each, (iii) in under 2 s plus PREFLIGHT_TIMEOUT_S (before it, `record` with the server down retried every task: 2 min 24 s for 6 tasks).
Prints each wall time, exit code and the line.
Run: .venv/bin/python benchmarks/preflight.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.llm.preflight import PREFLIGHT_TIMEOUT_S
from ratchet.setup.demo import EDITS, apply_edit, build_demo_repo
from tests.bench.fixtures_mini import build_mini_dataset
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gitrepo import commit
from tests.helpers.live_tiers import closed_port, live_tiers_text, set_live_tiers
from tests.helpers.trickle import Trickle

LIMIT_S = 2.0
EDIT = next(e for e in EDITS if e.branch == "edit/changed-argument")
LISTED = ("qwen2.5-coder-0.5b-instruct", "gemma-3-270m")  # what the "wrong model" server serves


def _live_copies(template: Path, mini: Path, where: Path, base: str) -> tuple[Path, Path]:
    """A copy of the demo repository whose main commits live tiers at `base` (plus an edit branch), and a
    copy of the mini dataset with the same tiers."""
    repo = where / "repo"
    shutil.copytree(template, repo, symlinks=True)
    shutil.rmtree(repo / ".ratchet", ignore_errors=True)  # the simulator's cache: not this case's
    text = (repo / "ratchet.yaml").read_text(encoding="utf-8")
    commit(repo, {"ratchet.yaml": live_tiers_text(text, base)}, "live tiers")
    apply_edit(repo, EDIT)
    dataset = where / "mini"
    shutil.copytree(mini, dataset, symlinks=True)
    set_live_tiers(dataset, base)
    return repo, dataset


def _commands(repo: Path, dataset: Path, where: Path) -> dict[str, list[str]]:
    return {
        "check": ["check", "--repo", str(repo), "--base", "main", "--head", EDIT.branch],
        "record": ["record", "--project", str(repo)],
        "noise": ["noise", "--repeats", "2", "--project", str(repo)],
        "bench run": [
            "bench",
            "run",
            "--config",
            "cascade",
            "--root",
            str(dataset),
            "--out",
            str(where / "out"),
            "--yes",
        ],
        "mutate": ["mutate", "--limit", "1", "--no-save", "--repo", str(repo)],
    }


def _timed(args: list[str], env: dict[str, str]) -> tuple[float, int, list[str]]:
    command = [sys.executable, "-c", "from ratchet.cli import main; main()", *args]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    return time.perf_counter() - started, done.returncode, done.stderr.strip().splitlines()


def _run_case(
    name: str, base: str, template: Path, mini: Path, tmp: Path, bad: list[str], limit_s: float = LIMIT_S
) -> None:
    where = tmp / name.split()[0].strip("()")
    where.mkdir()
    repo, dataset = _live_copies(template, mini, where, base)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(RATCHET_UPSTREAM="live", RATCHET_HOME=str(where / "home"), LITELLM_LOCAL_MODEL_COST_MAP="True")
    print(name)
    for command, args in _commands(repo, dataset, where).items():
        wall, code, lines = _timed(args, env)
        shown = lines[0] if len(lines) == 1 else f"{len(lines)} lines: {' | '.join(lines)[:300]}"
        print(f"  {command:<10} {wall:5.2f} s  exit {code}  {shown}")
        if wall >= limit_s or code != 3 or len(lines) != 1:
            bad.append(f"{name} {command}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        template = tmp / "demo"
        template.mkdir()
        os.environ["RATCHET_UPSTREAM"] = "sim"
        build_demo_repo(template, template / ".ratchet")
        mini = build_mini_dataset(tmp / "mini")
        bad: list[str] = []
        _run_case("(i) upstream down", f"http://127.0.0.1:{closed_port()}/v1", template, mini, tmp, bad)
        with FakeOpenAI(listed=LISTED) as server:
            _run_case("(ii) model not listed", server.base_url, template, mini, tmp, bad)
            if server.requests:
                bad.append(f"(ii): {len(server.requests)} completion request(s) reached the server")
        with Trickle(step=1.2, lasts=600) as slow:
            _run_case("(iii) answer trickles", slow.base_url, template, mini, tmp, bad, LIMIT_S + PREFLIGHT_TIMEOUT_S)
        if bad:
            print(f"over its limit, not exit 3 or not one line: {', '.join(bad)}")
            sys.exit(1)


if __name__ == "__main__":
    main()
