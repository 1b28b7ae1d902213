"""Check: one edit (base -> head, or base -> staged) in, one Verdict out.

The user's tree is sacred: both states are exported into scratch folders under Ratchet's
home and read from there; nothing in the repository is written.
"""

from __future__ import annotations

import uuid
from contextlib import ExitStack, closing
from pathlib import Path

from ratchet.clock import Clock, elapsed_ms, wall_clock
from ratchet.config import load_project
from ratchet.errors import GoldenError
from ratchet.gate.decide import no_change
from ratchet.gate.drift import FactSearch, make_search
from ratchet.gate.evaluate import evaluate_edit
from ratchet.gate.gate_config import GateConfig
from ratchet.gate.models import Verdict
from ratchet.gate.policy import OnError
from ratchet.gitops import (
    INDEX,
    changed_skills,
    open_repo,
    repo_root,
    resolve_rev,
    scratch_checkout,
)
from ratchet.llm.cache import CacheMode
from ratchet.llm.gateway import Gateway
from ratchet.skills import load_skills
from ratchet.store import open_store
from ratchet.tasks import load_tasks
from ratchet.trace import load_goldens

__all__ = ["OnError", "check_edit"]


def check_edit(
    path: Path,
    *,
    base: str,
    config: GateConfig,
    head: str | None = None,
    staged: bool = False,
    home: Path | None = None,
    on_error: OnError = OnError.WARN,
    cache_mode: CacheMode = CacheMode.ONCE,
    budget_usd: float | None = None,
    live_tavily: bool = False,
    clock: Clock = wall_clock,
) -> Verdict:
    """Gate the edit between `base` and `head` (a revision) or the index (`staged`).

    Differing pairs go through drift and the judge tiers of `config`; a config with no
    tiers is Level 0 only, and a pair that needs judging is `unsure` (WARN).
    """
    started = clock()
    repo = open_repo(path)
    root = repo_root(repo)
    project = load_project(root, home=home)
    base_sha = resolve_rev(repo, base)
    head_rev = INDEX if staged else resolve_rev(repo, head or "HEAD")
    changed = changed_skills(
        repo, base_sha, None if staged else head_rev, staged=staged, skills_dir=project.config.paths.skills
    )
    if not changed:
        return no_change(base=base_sha, head=head_rev, simulated=project.config.upstream == "sim",
                         on_error=OnError(on_error).value, wall_ms=elapsed_ms(clock, started))
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
        store = stack.enter_context(closing(open_store(project.home)))
        gateway = stack.enter_context(Gateway(
            project, store, run_id=f"check-{uuid.uuid4().hex[:12]}", cache_mode=cache_mode, budget_usd=budget_usd,
        ))
        judges = {step.tier: gateway.model(step.tier, f"judge-{step.tier}") for step in config.tiers}
        search: FactSearch | None = None
        if config.drift.enabled:
            # Fixtures come from the base state, so an edit cannot ship the "evidence" for its own drift.
            search = make_search("tavily" if live_tavily else config.drift.search, base_tree / config.drift.fixtures)
        evaluation = evaluate_edit(
            project=project,
            changed=changed,
            base_skills=load_skills(base_tree / paths.skills),
            head_skills=load_skills(head_tree / paths.skills),
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
            clock=clock,
            started=started,
        )
    return evaluation.verdict
