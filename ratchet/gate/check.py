"""Check: one edit (base -> head, or base -> staged) in, one Verdict out.

The user's tree is sacred: both states are exported into scratch folders under Ratchet's
home and read from there; nothing in the repository is written.
"""

from __future__ import annotations

import time
import uuid
from contextlib import ExitStack, closing
from pathlib import Path

from ratchet.config import load_project
from ratchet.errors import GoldenError
from ratchet.gate.drift import FactSearch, make_search
from ratchet.gate.evaluate import OnError, evaluate_edit
from ratchet.gate.gate_config import GateConfig
from ratchet.gate.verdict import Verdict
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
from ratchet.skills import load_skills
from ratchet.store import open_store
from ratchet.tasks import load_tasks
from ratchet.trace import load_goldens

__all__ = ["OnError", "check_edit"]


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
        store = stack.enter_context(closing(open_store(project.home)))
        gateway = Gateway(project, store, run_id=f"check-{uuid.uuid4().hex[:12]}", cache_mode=cache_mode, budget_usd=budget_usd)
        judges: dict[str, ChatModel] = {}
        search: FactSearch | None = None
        if config is not None:
            judges = {step.tier: gateway.model(step.tier, f"judge-{step.tier}") for step in config.tiers}
            # Fixtures come from the base state, so an edit cannot ship the "evidence" for its own drift.
            search = make_search("tavily" if live_tavily else config.drift.search, base_tree / config.drift.fixtures)
        evaluation = evaluate_edit(
            project=project,
            changed=changed,
            base_skills=load_skills(base_tree / paths.skills) if config is not None else head_skills,
            head_skills=head_skills,
            tasks=tasks,
            goldens=goldens,
            tree=head_tree,
            agent=gateway.model("agent", "replay"),
            judges=judges,
            config=config,
            search=search,
            on_error=on_error,
            base=base_sha,
            head=head_rev,
        )
    return evaluation.verdict.model_copy(update={"wall_ms": round((time.perf_counter() - started) * 1000, 3)})
