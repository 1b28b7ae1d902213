"""`routing: model` end to end on a real git repo and the simulator: record, bless, `ratchet check`.

The simulated agent reads the catalog and loads a skill (it routes with the lexical matcher over
the catalog entries), so the demo's goldens fire the skills they fired before, with one model turn
more; the demo edits get the decisions they get under lexical routing, and check also replays the
edited skill's catalog neighbours.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ratchet.bless.record import bless, record_tasks
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import load_project
from ratchet.gate.check import check_edit
from ratchet.goldens.trace import load_goldens
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.gitrepo import git

EDIT = {edit.branch: edit for edit in EDITS}


def rebless_with_model_routing(repo: Path) -> None:
    config = repo / "ratchet.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "routing: model\n", encoding="utf-8")
    project = load_project(repo, home=repo / ".ratchet")
    recorded = record_tasks(project)
    assert not recorded.errors, recorded.errors
    bless(project)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "Route by the model; re-bless")


@pytest.fixture(scope="module")
def _model_routed_template(_blessed_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("model-routed") / "repo"
    shutil.copytree(_blessed_template, root, symlinks=True)
    mp = pytest.MonkeyPatch()
    mp.setenv("RATCHET_UPSTREAM", "sim")
    try:
        rebless_with_model_routing(root)
    finally:
        mp.undo()
    return root


@pytest.fixture
def model_routed_repo(_model_routed_template: Path, demo_repo: Path) -> Path:
    """The demo repo (and its environment) with routing: model in ratchet.yaml and goldens re-blessed under it."""
    shutil.rmtree(demo_repo)
    shutil.copytree(_model_routed_template, demo_repo, symlinks=True)
    return demo_repo


def test_goldens_recorded_with_model_routing_fire_the_same_skills_one_turn_later(
    _blessed_template: Path, model_routed_repo: Path
) -> None:
    lexical = load_goldens(_blessed_template / "goldens")
    model = load_goldens(model_routed_repo / "goldens")
    assert {t: g.fired_skill for t, g in model.items()} == {t: g.fired_skill for t, g in lexical.items()}
    for task_id, golden in model.items():
        assert golden.tool_calls == lexical[task_id].tool_calls, task_id
        assert golden.final_output == lexical[task_id].final_output, task_id
        loads = 1 if golden.fired_skill is not None else 0
        assert len(golden.model_calls) == len(lexical[task_id].model_calls) + loads, task_id


@pytest.mark.parametrize("branch", [e.branch for e in EDITS])
def test_demo_edits_get_their_decisions_and_replay_catalog_neighbours(model_routed_repo: Path, branch: str) -> None:
    demo_repo = model_routed_repo
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT[branch])
    verdict = check_edit(demo_repo, base=base, head=branch, config=resolve_gate_config("cascade"))
    assert verdict.decision == EDIT[branch].expected, verdict.summary
    edited = EDIT[branch].skill
    if branch == "edit/cosmetic":
        # An HTML comment and whitespace: the diff proves it cosmetic for the minimal runner, so nothing,
        # neighbours included, is replayed (ratchet.gate.static).
        assert verdict.pairs == [] and verdict.summary.startswith("no change in instructions: "), verdict.summary
        return
    because = {p.task_id: p.selected_because for p in verdict.pairs}
    goldens = load_goldens(demo_repo / "goldens")
    # Two skills: the other one is the edited skill's nearest neighbour, so every golden is replayed.
    assert set(because) == set(goldens)
    for task_id, reason in because.items():
        fired = goldens[task_id].fired_skill
        expected = "routed" if fired == edited else "trigger-neighbourhood" if fired is None else "catalog-neighbour"
        assert reason == expected, task_id
    assert all(p.outcome == "same" for p in verdict.pairs if p.selected_because == "catalog-neighbour")
