"""Check: one edit (base -> head, or base -> staged) in, one Verdict out.

The user's tree is sacred: both states are exported into scratch folders under Ratchet's
home and read from there; nothing in the repository is written.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Literal

from ratchet.config import Project, load_project
from ratchet.errors import GoldenError
from ratchet.gate.cascade import gate_pair
from ratchet.gate.decide import decide_edit, level0_outcome
from ratchet.gate.drift import FactSearch, make_search
from ratchet.gate.gate_config import GateConfig
from ratchet.gate.level0 import level0_findings
from ratchet.gate.replay import replay_task
from ratchet.gate.select import Selected, affected_goldens
from ratchet.gate.verdict import PairOutcome, Verdict
from ratchet.gitops import (
    INDEX,
    changed_skills,
    open_repo,
    repo_root,
    resolve_rev,
    scratch_checkout,
)
from ratchet.llm.gateway import Gateway
from ratchet.llm.types import ChatModel
from ratchet.skills import Skill, load_skills
from ratchet.store import open_store
from ratchet.tasks import load_tasks
from ratchet.trace import Trace, load_goldens

OnError = Literal["warn", "block"]


def _judge_pair(
    item: Selected, project: Project, tree: Path, skills: Mapping[str, Skill], model: ChatModel
) -> PairOutcome:
    started = time.perf_counter()
    replay = replay_task(item.task, item.golden, skills, model, project=project, tree=tree)
    findings = level0_findings(item.golden, replay)
    outcome, reason = level0_outcome(findings)
    return PairOutcome(
        task_id=item.task.id,
        golden_skill=item.golden.fired_skill,
        replay_skill=replay.fired_skill,
        selected_because=item.because,
        outcome=outcome,
        decided_by="error" if outcome == "error" else "level0",
        reason=reason,
        findings=findings,
        cost_usd=replay.cost_usd,
        latency_ms=round((time.perf_counter() - started) * 1000, 3),
        error=replay.error,
    )


class _Judging:
    """What the cascade needs beyond Level 0: a config, bound judge models, the base skills, search."""

    def __init__(self, config: GateConfig, judges: Mapping[str, ChatModel], base_skills: Mapping[str, Skill], search: FactSearch) -> None:
        self.config = config
        self.judges = judges
        self.base_skills = base_skills
        self.search = search


def _cascade_pair(
    item: Selected, project: Project, tree: Path, skills: Mapping[str, Skill], model: ChatModel, judging: _Judging
) -> PairOutcome:
    started = time.perf_counter()
    replay = replay_task(item.task, item.golden, skills, model, project=project, tree=tree)
    findings = level0_findings(item.golden, replay)

    def replay_base() -> Trace:
        # The unchanged skill set on the current (head) world: did the world move, not the skill?
        return replay_task(item.task, item.golden, judging.base_skills, model, project=project, tree=tree)

    result = gate_pair(
        item.golden, replay, findings, task=item.task, config=judging.config, judges=judging.judges,
        pair_id=f"{item.task.id}", replay_base=replay_base, search=judging.search,
    )
    return PairOutcome(
        task_id=item.task.id,
        golden_skill=item.golden.fired_skill,
        replay_skill=replay.fired_skill,
        selected_because=item.because,
        outcome=result.outcome,
        decided_by=result.decided_by,
        reason=result.reason,
        findings=findings,
        cost_usd=round(replay.cost_usd + result.cost_usd, 9),
        latency_ms=round((time.perf_counter() - started) * 1000, 3),
        error=replay.error,
        confidence=result.confidence,
        opinions=result.opinions,
        drift=result.drift,
        hint=result.hint,
    )


def check_edit(
    path: Path,
    *,
    base: str,
    head: str | None = None,
    staged: bool = False,
    home: Path | None = None,
    on_error: OnError = "warn",
    cache_mode: str = "once",
    budget_usd: float | None = None,
    config: GateConfig | None = None,
    live_tavily: bool = False,
) -> Verdict:
    """Gate the edit between `base` and `head` (a revision) or the index (`staged`).

    With a gate `config`, differing pairs go through drift and the judge cascade; without
    one, Level 0 alone decides and a pair that needs judging is `unsure` (WARN).
    """
    started = time.perf_counter()
    repo = open_repo(path)
    root = repo_root(repo)
    project = load_project(root, home=home)
    base_sha = resolve_rev(repo, base)
    head_rev = INDEX if staged else resolve_rev(repo, head or "HEAD")
    changed = changed_skills(
        repo, base_sha, None if staged else head_rev, staged=staged, skills_dir=project.config.paths.skills
    )
    simulated = project.config.upstream == "sim"
    if not changed:
        return Verdict(
            base=base_sha, head=head_rev, skills_changed=[], decision="PASS",
            summary="no skill changed", simulated=simulated, on_error=on_error,
            wall_ms=round((time.perf_counter() - started) * 1000, 3),
        )
    paths = project.config.paths
    with ExitStack() as stack:
        base_tree = stack.enter_context(scratch_checkout(repo, base_sha, project.home))
        head_tree = stack.enter_context(scratch_checkout(repo, head_rev, project.home))
        tasks = load_tasks(base_tree / paths.tasks)
        goldens = load_goldens(base_tree / paths.goldens)
        known = {task.id for task in tasks}
        for task_id in goldens:
            if task_id not in known:
                raise GoldenError(f"golden for task {task_id!r}, which is not in {paths.tasks}", path=paths.goldens)
        head_skills = load_skills(head_tree / paths.skills)
        selected = affected_goldens(tasks, goldens, changed, head_skills)
        store = stack.enter_context(closing(open_store(project.home)))
        gateway = Gateway(project, store, run_id=f"check-{uuid.uuid4().hex[:12]}", cache_mode=cache_mode, budget_usd=budget_usd)
        model = gateway.model("agent", "replay")
        if config is None:
            pairs = [_judge_pair(item, project, head_tree, head_skills, model) for item in selected]
        else:
            judging = _Judging(
                config,
                {step.tier: gateway.model(step.tier, f"judge-{step.tier}") for step in config.tiers},
                load_skills(base_tree / paths.skills),
                # Fixtures come from the base state, so an edit cannot ship the "evidence" for its own drift.
                make_search("tavily" if live_tavily else config.drift.search, base_tree / config.drift.fixtures),
            )
            pairs = [_cascade_pair(item, project, head_tree, head_skills, model, judging) for item in selected]
    decision, summary = decide_edit(
        pairs, on_error=on_error, block_confidence=config.block_confidence if config is not None else 0.0
    )
    return Verdict(
        base=base_sha,
        head=head_rev,
        skills_changed=changed,
        decision=decision,
        summary=summary,
        pairs=pairs,
        goldens_total=len(goldens),
        cost_usd=round(sum(p.cost_usd for p in pairs), 6),
        wall_ms=round((time.perf_counter() - started) * 1000, 3),
        simulated=simulated,
        on_error=on_error,
        gate_config=config.name if config is not None else None,
    )
