"""evaluate_edit on the run's pool: the demo's edits give the same verdicts and replays at 8 workers as at none."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import load_project
from ratchet.core.clock import frozen_clock
from ratchet.core.jsonio import canonical_dumps
from ratchet.core.pool import WorkPool
from ratchet.gate.context import CheckContext
from ratchet.gate.drift import make_search
from ratchet.gate.evaluate import Evaluation, evaluate_edit
from ratchet.gate.replay import Replayer
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import load_goldens
from ratchet.setup.demo import EDITS
from ratchet.sim.models import sim_model_for
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import parse_skill_text
from tests.helpers.demo_repo import _blessed_template, demo_repo

__all__ = ["_blessed_template", "demo_repo"]


def _gate_demo_edits(root: Path, pool: WorkPool | None) -> list[Evaluation]:
    project = load_project(root)
    paths = project.config.paths
    skills = load_skills(root / paths.skills)
    tasks, goldens = load_tasks(root / paths.tasks), load_goldens(root / paths.goldens)
    config = resolve_gate_config("cascade")
    judges = {step.tier: sim_model_for(step.tier) for step in config.tiers}
    out = []
    for edit in EDITS:
        text = (root / paths.skills / edit.skill / "SKILL.md").read_text(encoding="utf-8")
        head = {
            **skills,
            edit.skill: parse_skill_text(edit.apply(text), folder=root / paths.skills / edit.skill, source=edit.branch),
        }
        search = make_search(config.drift.search, root / config.drift.fixtures)
        run = CheckContext(config=config, judges=judges, search=search, record_base=True, clock=frozen_clock, pool=pool)
        replays = Replayer(
            project, tree=root, head_skills=head, base_skills=skills, agent=sim_model_for("agent"), clock=frozen_clock
        )
        out.append(evaluate_edit(run, replays, changed=[edit.skill], tasks=tasks, goldens=goldens))
    return out


def _bytes(evaluations: list[Evaluation]) -> list[str]:
    return [canonical_dumps(e.model_dump(mode="json")) for e in evaluations]


@pytest.mark.parametrize("size", [1, 8])
def test_demo_edits_on_the_pool_are_byte_identical_to_the_plain_loop(demo_repo: Path, size: int) -> None:
    sequential = _gate_demo_edits(demo_repo, None)
    with WorkPool(size) as pool:
        # Each edit runs on a worker, as the bench runs them: its pairs spread over the idle workers.
        pooled = pool.submit(lambda _: _gate_demo_edits(demo_repo, pool), 0).result()
    assert _bytes(pooled) == _bytes(sequential)
    assert [e.verdict.decision for e in sequential] == [edit.expected for edit in EDITS]
    assert sum(len(e.verdict.pairs) for e in sequential) > len(EDITS)  # pairs to spread, not one per edit
