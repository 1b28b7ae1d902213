"""What a repeated `ratchet check` imports: nothing it does not use (issue 16's repeated check).

Each check is a fresh process, so a module imported for nothing is paid on every push. On the
simulator with every answer cached, none of these is imported: a model client (litellm), the
loopback endpoint (FastAPI, uvicorn: the harness runner's), a thread pool (--concurrency 1), the
declared-tool models (a world without tools/), the budget estimates (a simulated run has no cap).
The verdict is the one the same check gives in-process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ratchet.config.gate import resolve_gate_config
from ratchet.gate.check import check_edit
from ratchet.setup.demo import EDITS, apply_edit

NOT_IMPORTED = (
    "litellm",
    "openai",
    "fastapi",
    "uvicorn",
    "httpx",
    "ratchet.harness.driver",
    "ratchet.core.pool",
    "ratchet.world.tools.declared",
    "ratchet.llm.budget",
)
BRANCH = "edit/changed-argument"

_CHECK = """
import json, sys
import ratchet.cli  # what `ratchet check` imports before it checks
from ratchet.gate.check import check_edit
verdict = check_edit(sys.argv[1], base="main", head=sys.argv[2], config="cascade")
print(json.dumps({"decision": verdict.decision, "pairs": [[p.task_id, p.outcome] for p in verdict.pairs],
                  "modules": sorted(sys.modules)}))
"""


def test_a_repeated_check_imports_no_model_client_endpoint_pool_or_declared_tools(demo_repo: Path) -> None:
    apply_edit(demo_repo, next(edit for edit in EDITS if edit.branch == BRANCH))
    first = check_edit(demo_repo, base="main", head=BRANCH, config=resolve_gate_config("cascade"))
    assert not (demo_repo / "world" / "tools").exists()
    done = subprocess.run(
        [sys.executable, "-c", _CHECK, str(demo_repo), BRANCH],
        capture_output=True,
        text=True,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    again = json.loads(done.stdout)
    assert (again["decision"], again["pairs"]) == (first.decision, [[p.task_id, p.outcome] for p in first.pairs])
    assert first.decision == "BLOCK"
    imported = set(again["modules"])
    assert "ratchet.world.tools" in imported  # the probe sees the check's imports at all
    assert not [name for name in NOT_IMPORTED if name in imported]


def test_a_repeated_check_runs_four_git_processes(demo_repo: Path, tmp_path: Path) -> None:
    """Both names in one rev-parse, one ls-tree per state, one cat-file for every blob both states need;
    the changed paths come from the two listings (no diff-tree). A fresh process, as each check is."""
    apply_edit(demo_repo, next(edit for edit in EDITS if edit.branch == BRANCH))
    first = check_edit(demo_repo, base="main", head=BRANCH, config=resolve_gate_config("cascade"))
    real = shutil.which("git")
    assert real is not None
    bin_dir, log = tmp_path / "bin", tmp_path / "git.log"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(f'#!/bin/sh\necho "$1" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    (bin_dir / "git").chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-c", _CHECK, str(demo_repo), BRANCH],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"},
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    commands = [c for c in log.read_text(encoding="utf-8").split() if c != "version"]  # GitPython's own, at import
    assert commands == ["rev-parse", "ls-tree", "ls-tree", "cat-file"]
    assert json.loads(done.stdout)["pairs"] == [[p.task_id, p.outcome] for p in first.pairs]
