"""A verdict names a judge tier that could not be asked for structured output.

The demo's edits, gated with the nano tier on a real local judge server (answering as the simulated nano
would) and the other tiers simulated: a server that refuses the response format leaves a note naming
nano on the verdict, and the decision is the one a server that takes it gives.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import TierConfig, load_project
from ratchet.core.clock import frozen_clock
from ratchet.gate.context import CheckContext
from ratchet.gate.evaluate import evaluate_edit
from ratchet.gate.models import Verdict
from ratchet.gate.replay import Replayer
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import load_goldens
from ratchet.llm.live import LiteLLMModel
from ratchet.setup.demo import EDITS
from ratchet.sim.models import sim_model_for
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import parse_skill_text
from ratchet.store.db import open_store
from tests.helpers.demo_repo import _blessed_template, demo_repo
from tests.helpers.gateways import sim_gateway
from tests.helpers.judge_server import JudgeServer

__all__ = ["_blessed_template", "demo_repo"]


def _verdict(root: Path, server: JudgeServer, run_id: str) -> Verdict:
    project = load_project(root)
    paths = project.config.paths
    skills = load_skills(root / paths.skills)
    tasks, goldens = load_tasks(root / paths.tasks), load_goldens(root / paths.goldens)
    config = resolve_gate_config("cascade")
    edit = next(e for e in EDITS if e.expected == "BLOCK")
    text = (root / paths.skills / edit.skill / "SKILL.md").read_text(encoding="utf-8")
    folder = root / paths.skills / edit.skill
    head = {**skills, edit.skill: parse_skill_text(edit.apply(text), folder=folder, source=edit.branch)}
    # A model name per server: the cache keys by it, and each server's answers are its own.
    name = "openai/refusing" if server.refuse_format else "openai/taking"
    nano = LiteLLMModel(TierConfig(model=name, api_base=server.base_url), timeout_s=10)
    with (
        closing(open_store(project.home)) as store,
        sim_gateway(project, store, run_id=run_id, upstream_models={"nano": nano}) as gateway,
    ):
        judges = {step.tier: gateway.model(step.tier, f"judge-{step.tier}") for step in config.tiers}
        run = CheckContext(config=config, judges=judges, clock=frozen_clock)
        replays = Replayer(
            project, tree=root, head_skills=head, base_skills=skills, agent=sim_model_for("agent"), clock=frozen_clock
        )
        return evaluate_edit(run, replays, changed=[edit.skill], tasks=tasks, goldens=goldens).verdict


def test_a_tier_that_could_not_be_asked_is_named_in_the_verdict(demo_repo: Path) -> None:
    with JudgeServer(refuse_format=True) as refusing:
        verdict = _verdict(demo_repo, refusing, "refused")
        again = _verdict(demo_repo, refusing, "cached")  # every answer from the cache: the same note
    notes = [n for n in verdict.unseen if n.kind == "judge"]
    assert [(n.level, n.detail) for n in notes] == [
        (
            "note",
            "judge tier nano: structured output not available (the server refused it), "
            "its answers were parsed from free text",
        )
    ]
    assert again.unseen == verdict.unseen and again.decision == verdict.decision
    with JudgeServer() as taking:
        asked = _verdict(demo_repo, taking, "taken")
    assert not [n for n in asked.unseen if n.kind == "judge"]
    assert asked.decision == verdict.decision == "BLOCK"
