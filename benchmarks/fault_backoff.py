"""What a provider outage costs one `ratchet check`: the default retry policy against a configured one.

Builds the demo repository, points every tier at a local server that answers 503 to everything,
and times `check_edit` of the changed-argument edit twice in one run: with ratchet.yaml's
default `retry:` (4 attempts, 0.5 s doubling) and with `retry: {max_attempts: 2, base_delay_s:
0.01, max_delay_s: 0.02}` (what the fault test sets). Both must fail closed (WARN, every pair
`error`). Prints both wall times and their ratio. Run: .venv/bin/python benchmarks/fault_backoff.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.config.gate import resolve_gate_config
from ratchet.gate.check import check_edit
from ratchet.setup.demo import EDITS, apply_edit, build_demo_repo
from tests.helpers.fake_openai import FakeOpenAI

FAST = "retry: {max_attempts: 2, base_delay_s: 0.01, max_delay_s: 0.02}\n"


def _live(repo: Path, base_url: str, retry: str) -> None:
    tier = f'{{model: openai/fake-model, api_base: "{base_url}", max_tokens: 64}}'
    (repo / "ratchet.yaml").write_text(
        "schema_version: 1\nupstream: live\n"
        "paths: {skills: skills, tasks: tasks.yaml, goldens: goldens, world: world, workspaces: workspaces}\n"
        f"tiers:\n  agent: {tier}\n  nano: {tier}\n  super: {tier}\n  ultra: {tier}\n"
        f"prices:\n  openai/fake-model: {{input: 0.000001, output: 0.000002}}\n{retry}",
        encoding="utf-8",
    )


def main() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        os.environ["RATCHET_UPSTREAM"] = "sim"
        base = build_demo_repo(repo, repo / ".ratchet")
        edit = next(e for e in EDITS if e.branch == "edit/changed-argument")
        apply_edit(repo, edit)
        os.environ["RATCHET_UPSTREAM"] = "live"
        timings: dict[str, float] = {}
        with FakeOpenAI() as server:
            server.script(*([503] * 2000))
            for name, retry in (("default retry", ""), ("configured retry", FAST)):
                _live(repo, server.base_url, retry)
                started = time.perf_counter()
                verdict = check_edit(
                    repo,
                    base=base,
                    head=edit.branch,
                    home=Path(tmp) / f"home-{len(timings)}",
                    config=resolve_gate_config("cascade"),
                )
                timings[name] = time.perf_counter() - started
                outcomes = {p.outcome for p in verdict.pairs}
                assert verdict.decision == "WARN" and outcomes == {"error"}, (verdict.decision, outcomes)
                print(f"{name:<17} {timings[name]:7.2f} s  {verdict.decision}, {len(verdict.pairs)} pairs all error")
        print(f"ratio default/configured: {timings['default retry'] / timings['configured retry']:.1f}x")


if __name__ == "__main__":
    main()
