"""Check: one edit (base -> head, or base -> staged) in, one Verdict out.

The user's tree is sacred: both states are exported into scratch folders under Ratchet's
home and read from there; nothing in the repository is written.

What the gate is comes from the base (docs/adr/0011): ratchet.yaml, the paths in it, a gate
config given by name or by a path inside the repository, and the prompt and fixtures it points at
are read from the base revision, so the edit under review cannot repoint or soften its own gate.
An edit to them is reported and is at least WARN; so is an edit to the goldens, noise records and
tasks the gate compares with (ratchet.gate.evidence, docs/adr/0007). An error in a file read from a
revision names `<repo path>@<revision>`, never the scratch folder (deleted by the time anyone reads the
message) it was exported to (ratchet.gate.revision_names).

Before any replay it reads what the edit changes in each skill, without a model (ratchet.diff), for
the harness the replays run through: an edit that changes nothing the model reads PASSes with no
replay and no model call, and after the replays the base's `static:` policy acts on what no replay
exercised (ratchet.gate.static).

A change of the agent between base and head in ratchet.yaml, or declared with `agent_model`, is an edit too
(ratchet.gate.agent_change, docs/adr/0023): every golden (a seeded sample under the budget) is replayed under
the head's agent and judged by the base's gate, even when no skill changed.

`check_edit` reads as the steps of a check: read the edit from git, export the base and read the gate
from it, name what cannot be checked, decide without a replay when nothing the model reads changed, else
export the head, build the check's context once (ratchet.gate.context) and evaluate.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, Unpack

from ratchet.config.gate import GateConfig
from ratchet.config.harness import HarnessName
from ratchet.config.project import CONFIG_FILE, Project
from ratchet.core.chat import ChatModel
from ratchet.core.clock import Clock, elapsed_ms, wall_clock
from ratchet.diff.models import EditDiff
from ratchet.gate.agent_change import (
    AgentChange,
    agent_verdict,
    plan_for,
    read_agent_change,
    refuse_sharded_agent_change,
)
from ratchet.gate.base_state import blessed_state, goldens_count
from ratchet.gate.context import CheckContext
from ratchet.gate.decide import no_change
from ratchet.gate.drift import FactSearch, make_search
from ratchet.gate.edit_paths import files_by_skill
from ratchet.gate.evaluate import Evaluation, evaluate_edit
from ratchet.gate.models import Verdict
from ratchet.gate.mutation import base_scores, mutation_notes
from ratchet.gate.policy import OnError
from ratchet.gate.replay import Replayer
from ratchet.gate.revision_names import errors_name_revisions, label, relabel_verdict
from ratchet.gate.revisions import (
    BaseExport,
    RepoEdit,
    behavioural_diff,
    export_base,
    export_head,
    read_edit,
    refuse_links_leaving,
    unchecked_of,
)
from ratchet.gate.shard import ShardJob, Unchecked, shard_of, shard_of_no_change
from ratchet.gate.static import cosmetic_verdict, proved_cosmetic, with_static
from ratchet.gate.triggers import trigger_check, with_trigger_check
from ratchet.goldens.noise import NoiseRecord
from ratchet.goldens.tasks import Task
from ratchet.llm.cache import CacheMode
from ratchet.llm.gateway import Gateway
from ratchet.repo.git import INDEX, open_repo, repo_root, resolve_rev, resolve_revs
from ratchet.repo.trees import blobs_read_once
from ratchet.sim.models import SIMULATOR
from ratchet.skills.sets import load_skills
from ratchet.store.db import open_store
from ratchet.triggers.verdict import TriggerCheck

if TYPE_CHECKING:
    from ratchet.core.pool import WorkPool

__all__ = ["CheckOptions", "OnError", "check_edit"]


class CheckOptions(TypedDict, total=False):
    """How `check_edit` runs, beyond which edit and which gate; each key is optional (default in brackets)."""

    on_error: OnError
    """What an unchecked pair does to the decision [WARN]."""
    cache_mode: CacheMode
    """When the response cache is read and written [ONCE]."""
    budget_usd: float | None
    """The run's spend cap [none]."""
    live_tavily: bool
    """Drift confirms moved facts with Tavily instead of the base's fixtures [False]."""
    clock: Clock
    """Times the check and its pairs [the wall clock]."""
    harness: HarnessName | None
    """Replaces the base's `harness:` name (`--harness`) [the base's]."""
    ledger_hits: bool
    """A ledger row per cache hit (`--ledger-hits`), which otherwise only the run's hit count records [False]."""
    shard: ShardJob | None
    """Replay only this shard's pairs (ratchet.gate.shard) [all of them]."""
    concurrency: int
    """Pairs run on this many threads (ratchet.core.pool; same pairs, same order, same verdict) [1]."""
    agent_model: str | None
    """Declares a change of the agent's model (`--agent-model`): every golden replayed under it [none]."""
    upstream_models: Mapping[str, ChatModel]
    """Tier -> the model that answers for it instead of the configured upstream (tests; never probed) [none]."""


@dataclass(frozen=True)
class _Options:
    """CheckOptions with their defaults."""

    on_error: OnError = OnError.WARN
    cache_mode: CacheMode = CacheMode.ONCE
    budget_usd: float | None = None
    live_tavily: bool = False
    clock: Clock = wall_clock
    harness: HarnessName | None = None
    ledger_hits: bool = False
    shard: ShardJob | None = None
    concurrency: int = 1
    agent_model: str | None = None
    upstream_models: Mapping[str, ChatModel] | None = None

    def __post_init__(self) -> None:
        OnError(self.on_error)  # an unknown policy is refused (ValueError) before any export or replay

    @property
    def policy(self) -> str:
        """`on_error` as the verdict spells it ("warn" or "block")."""
        return OnError(self.on_error).value


def check_edit(
    path: Path,
    *,
    base: str,
    config: GateConfig | str,
    head: str | None = None,
    staged: bool = False,
    home: Path | None = None,
    **options: Unpack[CheckOptions],
) -> Verdict:
    """Gate the edit between `base` and `head` (a revision) or the index (`staged`).

    `config` is a gate config, or its name (the base's configs/<name>.yaml, else the packaged one) or a .yaml path
    (one inside the repository is read at the base; one outside as given). Differing pairs go through drift and the
    judge tiers of the config; with no tiers a pair that needs judging is `unsure` (WARN). `options`: CheckOptions.
    With `shard`, only that shard's pairs are replayed (ratchet.gate.shard): the answer is the shard's partial
    verdict, and `shard.result` what its shard file holds.
    """
    opts = _Options(**options)
    started = opts.clock()
    repo = open_repo(path)
    root = repo_root(repo)
    base_sha, head_rev = (resolve_rev(repo, base), INDEX) if staged else resolve_revs(repo, [base, head or "HEAD"])
    exported: dict[Path, str] = {}  # scratch folder -> the revision label its files are named by
    with errors_name_revisions(exported), ExitStack() as stack:
        # ratchet.yaml, the goldens and both exports: one git process reads what they all read.
        stack.enter_context(blobs_read_once(repo, [base_sha, head_rev]))
        edit = read_edit(repo, root, base_sha, head_rev, staged=staged, home=home, harness=opts.harness)
        at_base = export_base(stack, edit, config, exported)
        agent = read_agent_change(edit, agent_model=opts.agent_model, harness=opts.harness)
        unchecked = unchecked_of(edit, at_base)
        if agent is not None and not agent.settings_too:
            # Only the agent changed in ratchet.yaml: the replays under it check that, no settings note needed.
            unchecked.settings_changed = [path for path in unchecked.settings_changed if path != CONFIG_FILE]
        if not edit.changed and agent is None:
            verdict = no_change(
                base=edit.base,
                head=edit.head,
                simulated=edit.simulated,
                on_error=opts.policy,
                wall_ms=elapsed_ms(opts.clock, started),
            )
            # Nothing blessed and nothing changed: there was nothing to check, and nothing was left unchecked.
            unchecked.nothing_blessed_at = None
            return _decided_without_replay(verdict, edit, at_base, unchecked, opts.shard)
        refuse_links_leaving(edit)
        edit_diff = behavioural_diff(edit)
        if agent is None and proved_cosmetic(edit_diff.skills):
            # Nothing the model reads changed: no replay, no model call (no preflight either), $0.
            verdict = _cosmetic(edit, at_base, edit_diff, opts, started)
            return _decided_without_replay(verdict, edit, at_base, unchecked, opts.shard)
        refuse_sharded_agent_change(agent, opts.shard)
        head_tree = stack.enter_context(export_head(edit))  # with the base's mocked commands
        exported[head_tree] = label(edit.head)
        tasks, goldens, noise = (
            blessed_state(at_base.tree, edit.project, at_base.golden_bytes) if edit.blessed else ([], {}, {})
        )
        run, replays = _context(stack, edit, at_base, edit_diff, _Head(head_tree, agent), noise, opts, started)
        plan = (
            plan_for(agent, tasks, goldens, replays.base_skills, opts.budget_usd, edited=edit.changed)
            if agent is not None
            else None
        )
        triggers = _triggers(edit, at_base, replays, tasks, opts)
        evaluation = evaluate_edit(
            run,
            replays,
            changed=edit.changed,
            tasks=tasks,
            goldens=goldens,
            changed_files=files_by_skill(edit.changes, edit.paths.skills, edit.folders),
            selection=plan.selected if plan is not None else None,
        )
        evaluation = _with_mutation_notes(with_trigger_check(evaluation, triggers), edit, at_base)
        verdict = _answer(evaluation, edit, run, exported, unchecked, job=opts.shard, goldens_total=len(goldens))
        if agent is None or plan is None:
            return verdict
        return agent_verdict(verdict, agent, plan, simulated=edit.simulated, confidence=run.config.block_confidence)


# -- decided without a replay ----------------------------------------------------------------------------


def _cosmetic(edit: RepoEdit, at_base: BaseExport, edit_diff: EditDiff, opts: _Options, started: float) -> Verdict:
    """The verdict for an edit that changes nothing the model reads (ratchet.gate.static): PASS, $0."""
    return cosmetic_verdict(
        edit_diff.skills,
        base=edit.base,
        head=edit.head,
        simulated=edit.simulated,
        on_error=opts.policy,
        gate_config=at_base.gate.name,
        wall_ms=elapsed_ms(opts.clock, started),
        goldens_total=goldens_count(at_base.golden_bytes, at_base.tree / edit.paths.goldens),
    )


def _decided_without_replay(
    verdict: Verdict, edit: RepoEdit, at_base: BaseExport, unchecked: Unchecked, job: ShardJob | None
) -> Verdict:
    """The answer for an edit decided before any selection; a shard of it holds the same verdict."""
    if job is None:
        return unchecked.named(verdict)
    static, confidence = edit.project.config.static, at_base.gate.block_confidence
    return shard_of_no_change(job, verdict, unchecked, block_confidence=confidence, static=static)


# -- replayed: the check's context, evaluate, and the answer -------------------------------------------------


@dataclass(frozen=True)
class _Head:
    """The head as the replays see it: its export, and the agent they run under when the edit changes it."""

    tree: Path
    agent: AgentChange | None


def _context(
    stack: ExitStack,
    edit: RepoEdit,
    at_base: BaseExport,
    edit_diff: EditDiff,
    head: _Head,
    noise: Mapping[str, NoiseRecord],
    opts: _Options,
    started: float,
) -> tuple[CheckContext, Replayer]:
    """The check's context, built once (ratchet.gate.context), and the replays' source over the head's export.

    With a change of the agent, the gateway and the replays run with the base's project carrying the head's
    agent (ratchet.gate.agent_change): preflight covers the head's agent tier, the judges stay the base's."""
    head_tree = head.tree
    project, gate = (head.agent.project if head.agent is not None else edit.project), at_base.gate
    gateway = _gateway(stack, project, opts)
    # Before any replay: an unknown tier, a missing key or an upstream that does not answer stops here.
    gateway.preflight(["agent", *(s.tier for s in gate.tiers)], named_by=at_base.config_file)
    judges = {step.tier: gateway.model(step.tier, f"judge-{step.tier}") for step in gate.tiers}
    search = _search(gate, at_base.tree, live_tavily=opts.live_tavily)
    base_skills = load_skills(at_base.tree / edit.paths.skills)
    head_skills = load_skills(head_tree / edit.paths.skills)
    replays = Replayer(
        project,
        tree=head_tree,
        head_skills=head_skills,
        base_skills=base_skills,
        agent=gateway.model("agent", "replay"),
        clock=opts.clock,
    )
    run = CheckContext(
        config=gate,
        judges=judges,
        search=search,
        noise=noise,
        diffs=edit_diff.skills,
        clock=opts.clock,
        started=started,
        pool=stack.enter_context(_pool(opts.concurrency)) if opts.concurrency > 1 else None,
        on_error=opts.on_error,
        unchecked_at_cap=True,
        shard=opts.shard.shard if opts.shard is not None else None,
        agent_was=head.agent.was if head.agent is not None else None,
        base=edit.base,
        head=edit.head,
    )
    return run, replays


def _gateway(stack: ExitStack, project: Project, opts: _Options) -> Gateway:
    store = stack.enter_context(closing(open_store(project.home)))
    gateway = Gateway(
        project,
        store,
        simulator=SIMULATOR,
        run_id=f"check-{uuid.uuid4().hex[:12]}",
        cache_mode=opts.cache_mode,
        budget_usd=opts.budget_usd,
        ledger_hits=opts.ledger_hits,
        upstream_models=opts.upstream_models,
    )
    return stack.enter_context(gateway)


def _search(gate: GateConfig, base_tree: Path, *, live_tavily: bool) -> FactSearch | None:
    if not gate.drift.enabled:
        return None
    # Fixtures come from the base state, so an edit cannot ship the "evidence" for its own drift.
    return make_search("tavily" if live_tavily else gate.drift.search, base_tree / gate.drift.fixtures)


def _pool(concurrency: int) -> WorkPool:
    # Imported here: threads (concurrent.futures) are for --concurrency > 1, not every check.
    from ratchet.core.pool import WorkPool

    return WorkPool(concurrency)


def _triggers(
    edit: RepoEdit, at_base: BaseExport, replays: Replayer, tasks: Sequence[Task], opts: _Options
) -> TriggerCheck | None:
    """The trigger queries an edit to what the catalog shows affects, run at base and head (ratchet.gate.triggers);
    of a sharded check, in shard 1 only, whose file carries them to the merge (ratchet.gate.shard)."""
    if opts.shard is not None and opts.shard.shard.index != 1:
        return None
    return trigger_check(
        replays,
        config=at_base.gate.triggers,
        base_tree=at_base.tree,
        tasks_file=edit.paths.tasks,
        tasks=tasks,
        changes=edit.changes,
        changed=edit.changed,
    )


def _with_mutation_notes(evaluation: Evaluation, edit: RepoEdit, at_base: BaseExport) -> Evaluation:
    """The evaluation naming each edited skill whose goldens killed none of its mutants, by the base's score
    (ratchet.gate.mutation): on the verdict, and in the run's unseen notes a shard file carries."""
    scores, notes = (
        base_scores(at_base.tree, edit.paths.goldens, at_base.golden_bytes, edit.changed, at=label(edit.base))
        if edit.blessed
        else ({}, [])
    )
    notes += mutation_notes(scores, edit.changed)
    if not notes:
        return evaluation
    verdict = evaluation.verdict.model_copy(update={"unseen": [*evaluation.verdict.unseen, *notes]})
    return evaluation.model_copy(update={"verdict": verdict, "unseen": [*evaluation.unseen, *notes]})


def _answer(
    evaluation: Evaluation,
    edit: RepoEdit,
    run: CheckContext,
    exported: dict[Path, str],
    unchecked: Unchecked,
    *,
    job: ShardJob | None,
    goldens_total: int,
) -> Verdict:
    """The evaluated verdict naming what the user can open, with the base's static policy and what was not
    checked; for a shard, its partial verdict and its file's content (ratchet.gate.shard)."""
    static = edit.project.config.static
    verdict = with_static(relabel_verdict(evaluation.verdict, exported), run.diffs, policy=static)
    if job is None:
        return unchecked.named(verdict)
    return shard_of(
        job,
        verdict,
        block_confidence=run.config.block_confidence,
        selected=evaluation.selected,
        goldens_total=goldens_total,
        replay_unseen=evaluation.unseen,
        unchecked=unchecked,
        static=static,
    )
