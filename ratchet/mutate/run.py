"""`ratchet mutate`: which deliberate breakages of a skill would its goldens notice?

The run reads the base commit (HEAD unless told otherwise; what is not committed is not mutated, and a
note says so), asks the operators for each chosen skill's mutants (ratchet.mutate.operators), drops the
equivalent ones, prints a worst-case estimate, and then gates every mutant as an edit through the normal
check (ratchet.gate.check.check_edit: the same selection, cache, spend cap, concurrency and harness as
`ratchet check`), base -> `mutant/<id>` in a scratch clone under Ratchet's work area, so the user's
repository is only read. The checks use the project's own work area, so they share its response cache:
a second run of the same project and seed is served from it, costs $0 and writes the same bytes.

`budget_usd` caps the whole run: each check is given what is left of it, and once it is spent (or a
check's pairs were stopped by it, or by the cap over all runs, RATCHET_BENCH_USD_CAP) every remaining mutant
is reported unchecked and `stopped` says which cap. ratchet.mutate.outcome says what killed, survived, error
and unchecked mean; when every golden replayed was recorded otherwise than replayed, `provenance` says the
score is not like for like, and no score is saved.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import git

from ratchet.config.gate import config_repo_path
from ratchet.config.harness import HarnessName
from ratchet.config.project import CONFIG_FILE, Project, project_from_text
from ratchet.core.echo import silent
from ratchet.core.errors import ConfigError, InputError
from ratchet.core.ray_cluster import checked_executor
from ratchet.gate.revision_names import label
from ratchet.goldens.mutation import SCORE_FILE
from ratchet.harness.bwrap_mode import fallback_line
from ratchet.llm.budget import CAP_ENV
from ratchet.llm.cache import CacheMode
from ratchet.llm.preflight import preflight_config
from ratchet.mutate.checks import CheckSpec, check_mutant
from ratchet.mutate.clone import commit_mutant, mutant_ref, scratch_clone
from ratchet.mutate.models import Cap, Mutant, MutantOutcome, MutationReport
from ratchet.mutate.operators import mutate_skill
from ratchet.mutate.outcome import differences_text, left_unchecked, scores
from ratchet.mutate.plan import (
    MutantSource,
    Planned,
    chosen_skills,
    plan_estimate,
    planned_mutants,
    read_base,
    unfollowed_skills,
)
from ratchet.mutate.score_files import save_scores
from ratchet.repo.git import open_repo, repo_root, resolve_rev
from ratchet.repo.scratch import scratch_checkout
from ratchet.repo.trees import read_file_at

__all__ = ["MutateOptions", "mutate_project"]


@dataclass(frozen=True)
class MutateOptions:
    """What `ratchet mutate` takes; each check gets `config`, `harness`, `concurrency` and `cache_mode` as
    `ratchet check` would."""

    skills: tuple[str, ...] = ()
    """Skill names to mutate; none: every skill at the base."""
    base: str = "HEAD"
    seed: int = 0
    limit: int | None = None
    """At most this many mutants per skill, taken in turn from each class."""
    budget_usd: float | None = None
    """The cap across the whole run (each check gets what is left of it)."""
    config: str = "cascade"
    harness: HarnessName | None = None
    concurrency: int = 1
    cache_mode: CacheMode = CacheMode.ONCE
    home: Path | None = None
    """Ratchet's work area (default: the project's, RATCHET_HOME): where the checks' cache is shared."""
    source: MutantSource | None = None
    """Where mutants come from (default ratchet.mutate.operators.mutate_skill)."""
    save: bool = False
    """Write each fully checked skill's score to <goldens>/<skill>/mutation.score.json in the working tree
    (ratchet.mutate.score_files), to be committed: `ratchet mutate` does unless --no-save."""
    echo: Callable[[str], None] = silent
    """Progress: the estimate, a note about uncommitted changes, one line per mutant."""
    executor: str = "local"
    """"local": one mutant after another in this process; "ray": Ray actors, `concurrency` at once
    (ratchet.mutate.on_ray), the same report."""
    ray_address: str | None = None
    """With executor "ray": the cluster's head (None: a local Ray started for the run)."""


BUDGET_ON_RAY = (
    "--budget gives each check what the checks before it left, one after another: leave it out with "
    "--executor ray (RATCHET_BENCH_USD_CAP caps the spend of every run)"
)


def mutate_project(path: Path, opts: MutateOptions) -> MutationReport:
    """Mutate the skills of the repository at `path` at `opts.base` and check every mutant; the report."""
    checked_executor(opts.executor, opts.ray_address)
    if opts.executor == "ray" and opts.budget_usd is not None:
        raise InputError(BUDGET_ON_RAY)
    repo = open_repo(path)
    root = repo_root(repo)
    sha = resolve_rev(repo, opts.base)
    project = _project_at(repo, root, sha, opts)
    if sha == resolve_rev(repo, "HEAD"):
        _note_uncommitted(repo, project, sha, opts.echo)
    with ExitStack() as stack:
        tree = stack.enter_context(scratch_checkout(repo, sha, project.home))
        base = read_base(sha, tree, project, opts.config, repo_root=root)
        # Once, before the estimate and the first mutant: every check calls the agent and the gate's judges,
        # and a dead upstream would otherwise be one error per mutant (each check's own preflight).
        preflight_config(project.config, ["agent", *(stage.tier for stage in base.gate.tiers)])
        skills = chosen_skills(base, opts.skills)
        blind = unfollowed_skills(base, skills)  # named next to their scores: why a prose skill scores low offline
        planned = planned_mutants(base, skills, opts.source or mutate_skill, seed=opts.seed, limit=opts.limit)
        plan = plan_estimate(base, planned)
        simulated = project.config.upstream == "sim"
        opts.echo(plan.render() + ("  (simulated: no money is spent)" if simulated else ""))
        unsandboxed = fallback_line(project.config.harness)  # once for the run, not per mutant's check
        if unsandboxed is not None:
            opts.echo(f"note: {unsandboxed}")
        clone = stack.enter_context(scratch_clone(root, project.home))
        config = _config_in_clone(opts.config, root, clone)
        spec = CheckSpec(
            clone=Path(str(clone.working_tree_dir)),
            base=base.sha,
            config=config,
            home=base.project.home,
            static=base.project.config.static,
            cache_mode=opts.cache_mode,
            harness=opts.harness,
            concurrency=opts.concurrency,
        )
        spread = _on_ray(stack, clone, spec, planned, opts) if opts.executor == "ray" else None
        outcomes, stopped = _check_all(clone, spec, planned, spread, opts)
    report = MutationReport(
        base=sha,
        seed=opts.seed,
        simulated=simulated,
        skills=scores(outcomes, unfollowed=blind),
        outcomes=outcomes,
        dropped_equivalent=planned.dropped_equivalent,
        estimate_usd=round(plan.total_usd, 6),
        cost_usd=sum(outcome.cost_usd for outcome in outcomes),
        stopped=stopped,
        provenance=_not_like_for_like(outcomes),
    )
    if opts.save and report.provenance is not None:
        opts.echo(f"note: no mutation score is saved: {report.provenance}")
    elif opts.save:
        for path in save_scores(root / project.config.paths.goldens, report, limit=opts.limit, echo=opts.echo):
            opts.echo(f"saved {path.relative_to(root).as_posix()}: commit it, so bless and pull requests show it")
    return report


def _project_at(repo: git.Repo, root: Path, sha: str, opts: MutateOptions) -> Project:
    """The project as the base commit configures it, with the work area of the user's repository (not the
    clone's), so the checks share its cache."""
    text = read_file_at(repo, sha, CONFIG_FILE, error=ConfigError)
    project = project_from_text(root, text, source=f"{CONFIG_FILE}@{label(sha)}", home=opts.home)
    return project.with_harness(opts.harness)


def _note_uncommitted(repo: git.Repo, project: Project, sha: str, echo: Callable[[str], None]) -> None:
    paths = project.config.paths
    wanted = list(dict.fromkeys([paths.skills, paths.tasks, paths.goldens]))
    # The score files an earlier run saved are its output, not something to mutate.
    saved = f":(exclude){paths.goldens}/*/{SCORE_FILE}"
    # --no-optional-locks: status must not refresh (write) the user's index.
    changed = repo.git.execute(["git", "--no-optional-locks", "status", "--porcelain", "--", *wanted, saved])
    if str(changed).strip():
        echo(
            f"note: uncommitted changes under {', '.join(wanted)} are not mutated: the mutants are made from "
            f"HEAD ({sha[:10]}); commit them to include them"
        )


def _config_in_clone(config: str, root: Path, clone: git.Repo) -> str:
    """A gate config given as a path inside the user's repository names the clone's file instead, so the
    check reads it from the base as it would in the repository (docs/adr/0011)."""
    inside = config_repo_path(config, root)
    return config if inside is None else str(Path(str(clone.working_tree_dir)) / inside)


def _commit(clone: git.Repo, base: str, planned: Planned, mutant: Mutant) -> str:
    message = f"mutant {mutant.id}: {mutant.description}"
    return commit_mutant(clone, base, planned.files[mutant.id], ref=mutant_ref(mutant.id), message=message)


def _on_ray(
    stack: ExitStack, clone: git.Repo, spec: CheckSpec, planned: Planned, opts: MutateOptions
) -> list[Future[MutantOutcome]]:
    """Every mutant committed now and given to the Ray actors; their outcomes, in mutant order."""
    from ratchet.mutate.on_ray import mutants_on_ray

    heads = [(mutant, _commit(clone, spec.base, planned, mutant)) for mutant in planned.mutants]
    return stack.enter_context(mutants_on_ray(spec, heads, opts.concurrency, opts.ray_address))


def _check_all(
    clone: git.Repo,
    spec: CheckSpec,
    planned: Planned,
    spread: list[Future[MutantOutcome]] | None,
    opts: MutateOptions,
) -> tuple[list[MutantOutcome], str | None]:
    """Every mutant's outcome, in order, and why a spend cap stopped the run (None when none did). `spread`:
    the outcomes Ray actors are checking (ratchet.mutate.on_ray), read in the same order under the same rules;
    None: each mutant is committed and checked here, in turn."""
    outcomes: list[MutantOutcome] = []
    spent, stopped = 0.0, None
    total = len(planned.mutants)
    for index, mutant in enumerate(planned.mutants, start=1):
        if stopped is not None:
            outcomes.append(left_unchecked(mutant, stopped))
            continue
        if spread is not None:
            outcome = spread[index - 1].result()
        else:
            left = None if opts.budget_usd is None else opts.budget_usd - spent
            outcome = check_mutant(spec, mutant, _commit(clone, spec.base, planned, mutant), left)
        outcomes.append(outcome)
        spent += outcome.cost_usd
        shown = f" ({outcome.decision})" if outcome.decision is not None else ""
        opts.echo(f"[{index}/{total}] {mutant.id} {mutant.mutant_class}: {outcome.status}{shown}")
        if outcome.status == "unchecked":
            stopped = outcome.stopped_by or "run"
        elif opts.budget_usd is not None and spent >= opts.budget_usd:
            stopped = "run"
    return outcomes, None if stopped is None else _stopped_text(stopped, outcomes, opts.budget_usd)


def _stopped_text(cap: Cap, outcomes: list[MutantOutcome], budget_usd: float | None) -> str:
    """Which cap stopped the run, how far it got, and what to raise."""
    checked = sum(1 for outcome in outcomes if outcome.status in ("killed", "survived", "error"))
    left = f"after {checked} of {len(outcomes)} mutant(s) were checked; {len(outcomes) - checked} left unchecked"
    if cap == "global" or budget_usd is None:
        return f"the spend cap ({CAP_ENV}) stopped it {left}: raise {CAP_ENV} to check them"
    return f"the run's budget of ${budget_usd:.4f} stopped it {left}: raise --budget to check them"


def _not_like_for_like(outcomes: list[MutantOutcome]) -> str | None:
    """Said once for the run when every check's replayed goldens were recorded otherwise than replayed."""
    checked = [outcome for outcome in outcomes if outcome.decision is not None and outcome.status != "unchecked"]
    if not checked or not all(outcome.unlike for outcome in checked):
        return None
    how = differences_text([difference for outcome in checked for difference in outcome.unlike])
    return (
        f"every replayed golden was recorded otherwise than replayed ({how}): the score is not like for like; "
        "re-record the goldens (ratchet record && ratchet bless) and run it again"
    )
