"""Every shipped skill and benchmark edit parses exactly as before "unread" steps existed, and is followable.

tests/sim/data/programs.json holds a digest of each program as the parser read it before the
unread kind and line numbers were added (generated once from that parser). A change to the parser
that moves any of them changes what the benchmark replays: it must show here first.
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path
from typing import Any

from ratchet.sim.follow import follow_report
from ratchet.sim.program import Program, Step, parse_program
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill, parse_skill_text
from ratchet.world.tools import ALL_TOOLS

ROOT = Path(__file__).resolve().parents[2]
TOOLS = frozenset(ALL_TOOLS)


def _step(step: Step) -> dict[str, Any]:
    return {
        "kind": step.kind,
        "cond": step.cond,
        "var": step.var,
        "actions": [[a.kind, a.target, a.expr, a.tool, [[n, ast.dump(v)] for n, v in a.args]] for a in step.actions],
        "children": [_step(child) for child in step.children],
    }


def _digest(program: Program) -> str:
    shape = {
        "inputs": [[i.var, i.kind, i.default] for i in program.inputs],
        "steps": [_step(step) for step in program.steps],
        "outputs": [list(output) for output in program.outputs],
    }
    return hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()


def _shipped() -> dict[str, Skill]:
    skills: dict[str, Skill] = {}
    for root in ("skills", "ratchet/data/demo/skills"):
        skills.update({f"{root}/{name}": skill for name, skill in load_skills(ROOT / root).items()})
    for path in sorted((ROOT / "bench" / "edits").glob("*.json")):
        edit = json.loads(path.read_text(encoding="utf-8"))
        skills[f"bench/edits/{path.name}"] = parse_skill_text(
            edit["skill_md"], folder=ROOT / "skills" / edit["skill"], source=str(path)
        )
    return skills


def test_every_shipped_program_parses_as_before() -> None:
    expected = json.loads((Path(__file__).parent / "data" / "programs.json").read_text(encoding="utf-8"))
    actual = {name: _digest(parse_program(skill.body, TOOLS)) for name, skill in _shipped().items()}
    assert actual == expected


def test_every_shipped_skill_is_followable_with_nothing_unfollowed() -> None:
    for name, skill in _shipped().items():
        report = follow_report(skill.body, TOOLS, body_line=skill.body_line)
        assert (name, report.followable, report.unfollowed) == (name, True, [])
