"""The real Claude Code and Codex binaries (pinned, installed by scripts/install_harnesses.sh) record
goldens and gate the demo's edits offline, over the simulator playing the model behind them.

Skipped when the binaries are not installed, except under CI, where their absence fails.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ratchet.config.gate import resolve_gate_config
from ratchet.config.harness import HarnessName
from ratchet.gate.check import check_edit
from ratchet.gate.models import Verdict
from ratchet.goldens.trace import read_trace
from ratchet.harness.sandbox import processes_under
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.harness_demo import build_recorded_demo

KEEP = (
    "github-triage-01",
    "github-triage-02",
    "github-triage-04",
    "fx-expense-converter-01",
    "fx-expense-converter-02",
    "canary-01",
)
SENTINEL = "sk-ratchet-sentinel-4f1d9a"
ENV_OF = {"claude-code": "RATCHET_CLAUDE_BIN", "codex": "RATCHET_CODEX_BIN"}
EDIT = {edit.branch: edit for edit in EDITS}


def _binary_or_skip(harness: HarnessName) -> None:
    value = os.environ.get(ENV_OF[harness], "")
    if value and Path(value).is_file():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{ENV_OF[harness]} must point at the pinned binary in CI (scripts/install_harnesses.sh)")
    pytest.skip(f"{harness} is not installed (scripts/install_harnesses.sh, then set {ENV_OF[harness]})")


class _Watcher:
    """Polls every process and file under a scratch root while harnesses run: the sentinel must be in none."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.seen_processes = 0
        self.leaks: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _Watcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self._look()
            except OSError:  # a folder removed while walking it: look again next round
                continue

    def _look(self) -> None:
        needle = SENTINEL.encode()
        if True:
            for pid in processes_under(self.scratch):
                try:
                    environ = Path(f"/proc/{pid}/environ").read_bytes()
                except OSError:
                    continue
                self.seen_processes += 1
                if needle in environ:
                    self.leaks.append(f"environment of pid {pid}")
            for path in self.scratch.rglob("*") if self.scratch.is_dir() else []:
                try:
                    if path.is_file() and needle in path.read_bytes():
                        self.leaks.append(str(path))
                except OSError:
                    continue


@pytest.fixture(scope="module", params=["claude-code", "codex"])
def harness_demo(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[HarnessName, Path, str]]:
    harness: HarnessName = request.param
    _binary_or_skip(harness)
    root = tmp_path_factory.mktemp(f"demo-{harness}") / "repo"
    saved = {name: os.environ.get(name) for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "RATCHET_HOME")}
    os.environ.update(OPENAI_API_KEY=SENTINEL, ANTHROPIC_API_KEY=SENTINEL, RATCHET_HOME=str(root / ".ratchet"))
    try:
        with _Watcher(root / ".ratchet" / "scratch") as watcher:
            base = build_recorded_demo(root, KEEP, harness=harness)
        assert watcher.seen_processes > 0, "the watcher never saw the harness run"
        assert watcher.leaks == [], f"the sentinel key reached {watcher.leaks[:3]}"
        for edit in EDITS:
            apply_edit(root, edit)
        yield harness, root, base
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _check(demo: tuple[HarnessName, Path, str], branch: str) -> Verdict:
    harness, root, base = demo
    return check_edit(
        root, base=base, head=branch, home=root / ".ratchet", config=resolve_gate_config("cascade"), harness=harness
    )


def test_goldens_record_which_harness_loaded_which_skill(harness_demo: tuple[HarnessName, Path, str]) -> None:
    harness, root, _ = harness_demo
    golden = read_trace(root / "goldens" / "github-triage" / "github-triage-01.json")
    assert golden.harness is not None and golden.harness.name == harness and golden.harness.version
    assert golden.fired_skill == "github-triage"
    assert [call.name for call in golden.tool_calls][:1] == ["github_get_issue"]
    assert golden.model_calls and golden.simulated
    canary = read_trace(root / "goldens" / "_none" / "canary-01.json")
    assert canary.skills_fired == [] and canary.tool_calls == []


def test_a_cosmetic_edit_passes_and_its_recheck_is_free(harness_demo: tuple[HarnessName, Path, str]) -> None:
    first = _check(harness_demo, "edit/cosmetic")
    assert first.decision == "PASS", first.summary
    assert all(pair.outcome == "same" for pair in first.pairs)
    assert sum(o.cost_usd for p in first.pairs for o in p.opinions) == 0
    again = _check(harness_demo, "edit/cosmetic")
    assert again.decision == "PASS" and again.cost_usd == 0, "a re-check is served from the cache"


def test_an_added_side_effect_is_blocked_naming_the_mcp_call(harness_demo: tuple[HarnessName, Path, str]) -> None:
    verdict = _check(harness_demo, "edit/new-side-effect")
    assert verdict.decision == "BLOCK"
    blocked = [p for p in verdict.pairs if p.outcome == "regression"]
    assert blocked and all(p.decided_by == "level0" for p in blocked)
    assert "email_send" in blocked[0].reason


def test_a_changed_tool_argument_is_caught(harness_demo: tuple[HarnessName, Path, str]) -> None:
    verdict = _check(harness_demo, "edit/changed-argument")
    assert verdict.decision == "BLOCK", verdict.summary
    found = [f.detail for p in verdict.pairs for f in p.findings]
    assert any("priority/medium" in detail for detail in found), found


def test_a_narrowed_description_is_a_routing_change(harness_demo: tuple[HarnessName, Path, str]) -> None:
    verdict = _check(harness_demo, "edit/narrowed-description")
    assert verdict.decision == "BLOCK", verdict.summary
    moved = {p.task_id for p in verdict.pairs for f in p.findings if f.kind == "routing_changed"}
    assert moved and moved <= {"github-triage-02", "github-triage-04"}, moved


def test_nothing_is_left_running_or_on_disk(harness_demo: tuple[HarnessName, Path, str]) -> None:
    _, root, _ = harness_demo
    scratch = root / ".ratchet" / "scratch"
    assert processes_under(scratch) == []  # not root: the test's own git (cat-file) runs there
    assert not scratch.exists() or list(scratch.iterdir()) == []
