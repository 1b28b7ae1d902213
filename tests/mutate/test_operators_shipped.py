"""The mutation operators on the shipped skills: the demo's two and the benchmark's ten (simulator convention).

Each class R1-R6 is present, the list is byte-identical for a seed, every mutant is a valid skill of
the same name with a reviewable diff, and no mutant is equivalent to the skill it came from.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ratchet.mutate.models import MUTANT_CLASSES
from ratchet.mutate.operators import PER_OPERATOR, MutantSet, mutants_of, mutate_skill, tool_infos
from ratchet.sim.follow import follow_report
from ratchet.sim.injector import ToolInfo
from ratchet.skills.skill import load_skill, parse_skill_text
from ratchet.world.state import load_world
from ratchet.world.tools import offered_tools

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "ratchet" / "data" / "demo"
DEMO_SKILLS = sorted(p.parent for p in (DEMO / "skills").glob("*/SKILL.md"))
BENCH_SKILLS = sorted(p.parent for p in (ROOT / "skills").glob("*/SKILL.md"))
CLOCK = "2026-10-14T16:00:00Z"
Tools = tuple[ToolInfo, ...]


def _tools(world: Path) -> Tools:
    return tool_infos(offered_tools(load_world(world, workspaces_dir=None, workspace=None, frozen_time=CLOCK)))


DEMO_TOOLS = _tools(DEMO / "world")
BENCH_TOOLS = _tools(ROOT / "bench" / "world")
SHIPPED = [(folder, DEMO_TOOLS) for folder in DEMO_SKILLS] + [(folder, BENCH_TOOLS) for folder in BENCH_SKILLS]
IDS = [f"{folder.parent.parent.name}/{folder.name}" for folder, _ in SHIPPED]


def _set(folder: Path, tools: Tools, seed: int = 0) -> MutantSet:
    return mutate_skill(load_skill(folder), folder, tools=tools, seed=seed)


def test_the_shipped_skills_are_there() -> None:
    assert [p.name for p in DEMO_SKILLS] == ["fx-expense-converter", "github-triage"]
    assert len(BENCH_SKILLS) == 10


@pytest.mark.parametrize(("folder", "tools"), SHIPPED, ids=IDS)
def test_every_class_on_every_shipped_skill(folder: Path, tools: Tools) -> None:
    skill = load_skill(folder)
    assert follow_report(skill.body, frozenset(t.name for t in tools), body_line=skill.body_line).followable
    result = _set(folder, tools)
    assert result.convention == "program"
    assert sorted({m.mutant_class for m in result.mutants}) == list(MUTANT_CLASSES)
    # The program operators, each capped.
    by_operator: dict[str, int] = {}
    for mutant in result.mutants:
        by_operator[mutant.operator] = by_operator.get(mutant.operator, 0) + 1
    assert {"delete-step", "change-logic", "drop-field", "change-argument", "insert-side-effect"} <= set(by_operator)
    assert {"broaden-description", "narrow-description"} <= set(by_operator)
    assert max(by_operator.values()) <= PER_OPERATOR


@pytest.mark.parametrize(("folder", "tools"), SHIPPED, ids=IDS)
def test_every_mutant_is_a_valid_skill_of_the_same_name_and_not_equivalent(folder: Path, tools: Tools) -> None:
    skill = load_skill(folder)
    mutants = mutants_of(skill, folder, tools=tools, seed=7)
    assert mutants
    hashes = set()
    for mutant in mutants:
        assert list(mutant.files) == ["SKILL.md"]
        parsed = parse_skill_text(mutant.files["SKILL.md"], folder=folder, source=mutant.id)
        assert parsed.name == skill.name
        assert parsed.substance_hash != skill.substance_hash, mutant.id
        hashes.add(parsed.substance_hash)
        assert mutant.skill == skill.name
        assert re.fullmatch(rf"{skill.name}/{re.escape(mutant.operator)}-\d+", mutant.id)
        assert mutant.diff.startswith(f"--- a/{skill.name}/SKILL.md\n+++ b/{skill.name}/SKILL.md\n")
        assert re.match(r"SKILL\.md:\d+: \S", mutant.description) and "\n" not in mutant.description
    assert len(hashes) == len(mutants), "two mutants make the same skill"
    assert len({m.id for m in mutants}) == len(mutants)


@pytest.mark.parametrize(("folder", "tools"), SHIPPED, ids=IDS)
def test_same_seed_same_bytes(folder: Path, tools: Tools) -> None:
    first, second = _set(folder, tools, seed=3), _set(folder, tools, seed=3)
    assert first.model_dump_json() == second.model_dump_json()


def test_another_seed_chooses_other_mutants() -> None:
    folder = next(f for f in DEMO_SKILLS if f.name == "github-triage")
    picks = {tuple(m.files["SKILL.md"] for m in _set(folder, DEMO_TOOLS, seed=seed).mutants) for seed in range(4)}
    assert len(picks) > 1


def test_ids_are_numbered_per_operator_in_file_order() -> None:
    folder = next(f for f in DEMO_SKILLS if f.name == "github-triage")
    steps = [m for m in _set(folder, DEMO_TOOLS).mutants if m.operator == "delete-step"]
    assert [m.id for m in steps] == [f"github-triage/delete-step-{n}" for n in range(1, len(steps) + 1)]
    lines = [int(m.description.split(":")[1]) for m in steps]
    assert lines == sorted(lines)


def test_a_deleted_step_is_one_step_with_its_nested_items() -> None:
    folder = next(f for f in DEMO_SKILLS if f.name == "fx-expense-converter")
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    result = mutate_skill(load_skill(folder), folder, tools=DEMO_TOOLS, seed=0, per_operator=100)
    steps = [m for m in result.mutants if m.operator == "delete-step"]
    # 7 top-level steps and 6 nested ones, all R1
    assert len(steps) == 13 and {m.mutant_class for m in steps} == {"R1"}
    loop = next(m for m in steps if "For each" in m.description)
    removed = [line for line in loop.diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert len(removed) == 7 and removed[0].startswith("-6. For each")
    assert loop.files["SKILL.md"] == text.replace(text[text.index("6. For each") : text.index("7. Record")], "", 1)


def test_the_side_effect_uses_a_tool_the_world_offers() -> None:
    folder = next(f for f in DEMO_SKILLS if f.name == "fx-expense-converter")
    result = mutate_skill(load_skill(folder), folder, tools=DEMO_TOOLS, seed=0, per_operator=100)
    inserted = [m for m in result.mutants if m.operator == "insert-side-effect"]
    assert inserted and {m.mutant_class for m in inserted} == {"R4"}
    effects = {t.name: t.effect for t in DEMO_TOOLS}
    for mutant in inserted:
        added = [line for line in mutant.diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
        called = {name for name in effects if f"`{name}(" in " ".join(added)}
        assert called and all(effects[name] in ("write", "send", "spend", "destroy") for name in called)


def test_no_side_effect_without_a_tool_that_has_one() -> None:
    folder = next(f for f in DEMO_SKILLS if f.name == "fx-expense-converter")
    reads = tuple(t for t in DEMO_TOOLS if t.effect == "read")
    result = mutate_skill(load_skill(folder), folder, tools=reads, seed=0)
    assert "R4" not in {m.mutant_class for m in result.mutants}


def test_the_cap_holds_and_is_counted() -> None:
    folder = next(f for f in DEMO_SKILLS if f.name == "github-triage")
    wide = mutate_skill(load_skill(folder), folder, tools=DEMO_TOOLS, seed=0, per_operator=1000)
    capped = mutate_skill(load_skill(folder), folder, tools=DEMO_TOOLS, seed=0, per_operator=1)
    operators = {m.operator for m in wide.mutants}
    assert len(capped.mutants) == len(operators)
    assert capped.capped == len(wide.mutants) - len(capped.mutants) > 0
    assert wide.capped == 0
    assert {m.files["SKILL.md"] for m in capped.mutants} <= {m.files["SKILL.md"] for m in wide.mutants}
