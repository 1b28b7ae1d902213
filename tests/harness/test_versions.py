"""The tested range of each harness, and a release outside it named on the verdict's first line and in
`ratchet record`'s output (ratchet/harness/versions.py). Fast: a fake binary prints a version; a check's
stored replays are stamped with one."""

from __future__ import annotations

import io
import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import load_project
from ratchet.core.clock import frozen_clock
from ratchet.gate.context import CheckContext
from ratchet.gate.drift import make_search
from ratchet.gate.evaluate import evaluate_edit
from ratchet.gate.models import Verdict
from ratchet.gate.replay import Replayer
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import HarnessRef, load_goldens
from ratchet.harness.binaries import PINNED
from ratchet.harness.versions import TESTED, outside_tested, untested_versions, version_key
from ratchet.outputs.junit import render_junit
from ratchet.outputs.markdown import render_markdown
from ratchet.outputs.table import render_verdict
from ratchet.setup.demo import EDITS
from ratchet.sim.models import sim_model_for
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import parse_skill_text
from tests.harness.test_binaries import fake_binary
from tests.helpers.demo_repo import _blessed_template, demo_project, demo_repo

__all__ = ["_blessed_template", "demo_repo"]

runner = CliRunner()
NAMED = "claude-code 2.0.1 is outside the tested range 2.1.197-2.1.332"


def test_each_pin_is_inside_its_tested_range() -> None:
    for harness, pin in PINNED.items():
        assert TESTED[harness].holds(pin.version), harness


def test_versions_order_by_number_and_a_pre_release_before_its_release() -> None:
    assert version_key("2.1.99") < version_key("2.1.197") < version_key("2.1.332")  # type: ignore[operator]
    assert version_key("2.1.332-beta.1") < version_key("2.1.332")  # type: ignore[operator]
    assert version_key("not a version") is None


@pytest.mark.parametrize("version", ["2.1.197", "2.1.250", "2.1.332"])
def test_a_release_inside_the_range_is_not_named(version: str) -> None:
    assert outside_tested("claude-code", version) is None


@pytest.mark.parametrize("version", ["2.0.1", "2.1.196", "2.1.333", "3.0.0", "2.1.197-beta.1"])
def test_a_release_outside_the_range_is_named_with_the_command_that_installs_the_pin(version: str) -> None:
    said = outside_tested("claude-code", version)
    assert said is not None
    assert said.startswith(f"claude-code {version} is outside the tested range 2.1.197-2.1.332: ")
    assert "`npm install -g @anthropic-ai/claude-code@2.1.332`" in said


def test_a_harness_without_versions_or_a_replay_without_one_is_never_named() -> None:
    assert outside_tested("command", "0.0.1") is None
    assert outside_tested("minimal", "") is None
    assert outside_tested("claude-code", "") is None


def test_several_replays_through_one_release_name_it_once() -> None:
    said = untested_versions([("claude-code", "2.0.1"), ("codex", "0.169.0"), ("claude-code", "2.0.1")])
    assert said == outside_tested("claude-code", "2.0.1")
    assert untested_versions([("codex", "0.170.0")]) is None


def _stamped_check(root: Path, harness: HarnessRef, *, golden: HarnessRef | None = None) -> Verdict:
    """The demo's first edit (cosmetic) checked on the simulator, then again from its replays stamped as run
    through `harness` (stored replays: no agent call), against goldens stamped alike (or as recorded through
    `golden`): what a check through that release records."""
    project = load_project(root)
    paths = project.config.paths
    skills = load_skills(root / paths.skills)
    tasks, goldens = load_tasks(root / paths.tasks), load_goldens(root / paths.goldens)
    goldens = {k: g.model_copy(update={"harness": golden or harness}) for k, g in goldens.items()}
    config = resolve_gate_config("cascade")
    edit = EDITS[0]
    text = (root / paths.skills / edit.skill / "SKILL.md").read_text(encoding="utf-8")
    head = {
        **skills,
        edit.skill: parse_skill_text(edit.apply(text), folder=root / paths.skills / edit.skill, source=edit.branch),
    }

    def run() -> CheckContext:
        judges = {step.tier: sim_model_for(step.tier) for step in config.tiers}
        search = make_search(config.drift.search, root / config.drift.fixtures)
        return CheckContext(config=config, judges=judges, search=search, record_base=True, clock=frozen_clock)

    first = Replayer(project, tree=root, head_skills=head, base_skills=skills, agent=sim_model_for("agent"))
    recorded = evaluate_edit(run(), first, changed=[edit.skill], tasks=tasks, goldens=goldens).replays
    assert recorded.replays
    stamped = recorded.model_copy(
        update={
            "replays": {k: t.model_copy(update={"harness": harness}) for k, t in recorded.replays.items()},
            "base_replays": {k: t.model_copy(update={"harness": harness}) for k, t in recorded.base_replays.items()},
        }
    )
    again = Replayer(project, tree=root, head_skills=head, base_skills=skills, stored=stamped)
    return evaluate_edit(run(), again, changed=[edit.skill], tasks=tasks, goldens=goldens).verdict


def test_a_check_through_a_release_outside_the_range_names_it_on_the_first_line_of_every_format(
    demo_repo: Path,
) -> None:
    verdict = _stamped_check(demo_repo, HarnessRef(name="claude-code", version="2.0.1"))
    assert verdict.harness_untested == outside_tested("claude-code", "2.0.1")
    out = io.StringIO()
    render_verdict(verdict, Console(file=out, width=400, color_system=None))
    assert out.getvalue().splitlines()[0] == verdict.harness_untested
    first = render_markdown(verdict).splitlines()[0]
    assert first.startswith("✅ **Ratchet: PASS** · ") and f" · ⚠️ {NAMED}: " in first
    properties = {p.get("name"): p.get("value") for p in ET.fromstring(render_junit(verdict)).iter("property")}
    assert properties["harness_untested"] == verdict.harness_untested
    assert json.loads(verdict.to_json())["harness_untested"] == verdict.harness_untested


def test_a_check_through_a_tested_release_names_nothing(demo_repo: Path) -> None:
    verdict = _stamped_check(demo_repo, HarnessRef(name="claude-code", version="2.1.197"))
    assert verdict.harness_untested is None
    assert "harness_untested" not in json.loads(verdict.to_json())
    assert "outside the tested range" not in render_markdown(verdict)


def test_record_names_a_binary_outside_the_range_on_its_first_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = demo_project(tmp_path, monkeypatch)
    claude = fake_binary(tmp_path / "bin", "claude", 'echo "2.0.1 (Claude Code)"')
    monkeypatch.setenv("RATCHET_CLAUDE_BIN", str(claude))
    result = runner.invoke(app, ["record", "github-triage-01", "--project", str(root), "--harness", "claude-code"])
    assert result.stdout.splitlines()[0] == outside_tested("claude-code", "2.0.1")
    assert result.exit_code == 3  # the fake prints a version and nothing else: the task fails to record


def test_goldens_recorded_through_another_release_than_their_replays_are_named_on_the_verdict(
    demo_repo: Path,
) -> None:
    verdict = _stamped_check(
        demo_repo,
        HarnessRef(name="claude-code", version="2.1.332"),
        golden=HarnessRef(name="claude-code", version="2.1.197"),
    )
    assert verdict.harness_untested is None  # both inside the range: only the difference is named
    notes = [n for n in verdict.unseen if n.kind == "provenance"]
    assert len(notes) == 1 and notes[0].level == "warn"
    assert "recorded through claude-code 2.1.197 but replayed through claude-code 2.1.332" in notes[0].detail
    assert verdict.decision == "WARN"


@pytest.mark.parametrize("args", [["--latest"], ["--release", "var/x", "2.1.197"], ["--newest", "var/x"]])
def test_the_install_script_refuses_a_release_mode_without_its_arguments(args: list[str]) -> None:
    script = Path(__file__).resolve().parents[2] / "scripts" / "install_harnesses.sh"
    done = subprocess.run([str(script), *args], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "usage: install_harnesses.sh [--latest DIR | --release DIR CLAUDE_CODE_VERSION CODEX_VERSION]\n"
    )
