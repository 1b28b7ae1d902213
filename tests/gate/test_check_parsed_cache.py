"""A check's verdict is the same with and without the parsed-file cache (ratchet.store.parsed).

Cold (no cache), from the answers another edit of the same base left behind, warm (its own answers),
and with every cache entry damaged: the same verdict, apart from the time it took.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

from ratchet.config.gate import resolve_gate_config
from ratchet.gate.check import check_edit
from ratchet.llm.cache import CacheMode
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.gitrepo import git

NARROWED = next(edit for edit in EDITS if edit.branch == "edit/narrowed-description")
BROADENED = dataclasses.replace(
    NARROWED,
    branch="edit/broadened-description",
    message="github-triage: take haiku requests too",
    # Steals a canary ("Write a haiku about autumn leaves."): a golden selected for its routing alone.
    apply=lambda text: text.replace("description: ", "description: Write a haiku about autumn leaves too. ", 1),
)
LEVEL0_ONLY = resolve_gate_config("level0_only")


def _timeless(value: Any) -> Any:
    """The verdict without the milliseconds things took (wall_ms, latency_ms): the rest must match."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in ("wall_ms", "latency_ms")}
    return [_timeless(v) for v in value] if isinstance(value, list) else value


def _verdict(repo: Path, base: str, head: str) -> str:
    # Every replay asks the simulator again (NEW), so no run's costs come from the response cache of the one before.
    verdict = check_edit(repo, base=base, head=head, config=LEVEL0_ONLY, cache_mode=CacheMode.NEW)
    return json.dumps(_timeless(verdict.model_dump(mode="json")), sort_keys=True)


def test_the_verdict_is_the_same_cold_from_another_edit_warm_and_damaged(demo_repo: Path) -> None:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, NARROWED)
    apply_edit(demo_repo, BROADENED)
    parsed = demo_repo / ".ratchet" / "cache" / "parsed"
    assert not parsed.exists()
    cold = _verdict(demo_repo, base, BROADENED.branch)
    # tasks, prompt words, the base's skill words, the base's and the head's answers
    assert len(list(parsed.rglob("*.json"))) == 5
    shutil.rmtree(parsed)
    _verdict(demo_repo, base, NARROWED.branch)  # leaves the base's answers for the next edit of main
    from_base = _verdict(demo_repo, base, BROADENED.branch)
    warm = _verdict(demo_repo, base, BROADENED.branch)
    for entry in parsed.rglob("*.json"):
        entry.write_bytes(entry.read_bytes()[:-3] + b"]]]")
    damaged = _verdict(demo_repo, base, BROADENED.branch)
    assert "trigger-neighbourhood" in cold  # the stolen canary, found by routing the prompts again
    assert cold == from_base == warm == damaged
