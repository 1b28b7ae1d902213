"""`check_edit` with a gate config: the seven configurations over the demo edits, and world drift."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from ratchet.config.gate import resolve_gate_config
from ratchet.gate.check import check_edit
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.gitrepo import commit, git

EDIT = {edit.branch: edit for edit in EDITS}
SEVEN = ("cascade", "nano_only", "super_only", "ultra_only", "drift_off", "level0_off", "noise")


@pytest.fixture
def edited_demo(demo_repo: Path) -> tuple[Path, str]:
    base = git(demo_repo, "rev-parse", "main")
    for edit in EDITS:
        apply_edit(demo_repo, edit)
    return demo_repo, base


def test_seven_configs_over_the_demo_edits(edited_demo: tuple[Path, str]) -> None:
    repo, base = edited_demo
    for name in SEVEN:
        config = resolve_gate_config(name)
        cosmetic = check_edit(repo, base=base, head="edit/cosmetic", config=config)
        assert (cosmetic.decision, cosmetic.gate_config) == ("PASS", name)
        assert all(p.outcome == "same" and not p.opinions for p in cosmetic.pairs)

        argument = check_edit(repo, base=base, head="edit/changed-argument", config=config)
        judged = [p for p in argument.pairs if p.outcome != "same"]
        assert judged and all(p.opinions and p.decided_by in {s.tier for s in config.tiers} for p in judged)
        assert argument.decision in ("WARN", "BLOCK")

        side = check_edit(repo, base=base, head="edit/new-side-effect", config=config)
        assert side.decision == "BLOCK"
        hard = [p for p in side.pairs if any(f.kind == "new_side_effect" for f in p.findings)]
        assert hard
        if name == "level0_off":
            assert all(p.decided_by != "level0" and p.opinions for p in hard), "the side effect reaches the judges"
        else:
            assert all(p.decided_by == "level0" and not p.opinions for p in hard)


def test_cascade_escalates_and_records_every_opinion(edited_demo: tuple[Path, str]) -> None:
    repo, base = edited_demo
    verdict = check_edit(repo, base=base, head="edit/changed-argument", config=resolve_gate_config("cascade"))
    judged = [p for p in verdict.pairs if p.opinions]
    # Nano escalates every regression unless it settles one Level 0 also shows (docs/adr/0026).
    assert all(p.opinions[0].tier == "nano" for p in judged)
    assert all(len(p.opinions) >= 2 or "settled: Level 0 shows" in p.reason for p in judged)
    assert all(o.prompt_version == "judge-v4" and o.tokens_in > 0 for p in judged for o in p.opinions)
    assert verdict.cost_usd == pytest.approx(sum(p.cost_usd for p in verdict.pairs), abs=1e-6)
    assert json.loads(verdict.to_json())["pairs"][1]["opinions"]


def _moved_rates(repo: Path) -> dict[str, float]:
    moved: dict[str, float] = {}
    for path in sorted((repo / "goldens" / "fx-expense-converter").glob("*.json")):
        for read in json.loads(path.read_text(encoding="utf-8"))["volatile_reads"]:
            moved[read["key"]] = round(float(read["value"]) * 1.02, 6)
    return moved


def _overlay(moved: dict[str, float]) -> str:
    rates: dict[str, dict[str, float]] = {}
    for key, value in moved.items():
        _, _, date, currency = key.split(".")
        rates.setdefault(date, {})[currency] = value
    return yaml.safe_dump({"fx": {"rates": rates}})


def test_a_moved_fx_rate_is_drift_with_the_cascade_and_not_with_drift_off(demo_repo: Path) -> None:
    moved = _moved_rates(demo_repo)
    assert moved, "the fx goldens read volatile rates"
    fixtures = yaml.safe_dump({"schema_version": 1, "facts": moved})
    base = commit(demo_repo, {"bench/fixtures/fx.yaml": fixtures}, "search fixtures for the moved rates")
    skill = demo_repo / "skills" / "fx-expense-converter" / "SKILL.md"
    head = commit(
        demo_repo,
        # A sentence the simulator does not read (a blank line alone is cosmetic: nothing would be replayed).
        {
            "world/zz-moved.yaml": _overlay(moved),
            "skills/fx-expense-converter/SKILL.md": skill.read_text(encoding="utf-8") + "\nKeep the report tidy.\n",
        },
        "D1: a sentence of prose in the skill while the rates moved",
    )
    with_drift = check_edit(demo_repo, base=base, head=head, config=resolve_gate_config("cascade"))
    assert with_drift.decision == "PASS", with_drift.summary
    drifted = [p for p in with_drift.pairs if p.outcome == "drift"]
    assert drifted and all(p.outcome in ("same", "drift") for p in with_drift.pairs)
    assert all(p.hint and "re-bless" in p.hint and p.drift and p.drift.is_drift for p in drifted)
    assert "re-bless" in with_drift.summary

    without = check_edit(demo_repo, base=base, head=head, config=resolve_gate_config("drift_off"))
    assert not any(p.outcome == "drift" for p in without.pairs)
    assert any(p.opinions for p in without.pairs), "drift_off turns the moved rate into a judged difference"
    assert without.decision != "PASS"
