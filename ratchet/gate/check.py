"""Check: one edit (base -> head, or base -> staged) in, one Verdict out.

The user's tree is sacred: both states are exported into scratch folders under Ratchet's
home and read from there; nothing in the repository is written.

What the gate is comes from the base (docs/adr/0011): ratchet.yaml, the paths in it, a gate
config given by name or by a path inside the repository, and the prompt and fixtures it points at
are read from the base revision, so the edit under review cannot repoint or soften its own gate.
An edit to them is reported and is at least WARN; so is an edit to the goldens, noise records and
tasks the gate compares with (ratchet.gate.evidence, docs/adr/0007). An error in a file read from a revision names `<repo path>@<revision>`, never the scratch
folder (deleted by the time anyone reads the message) it was exported to.

Before any replay it reads what the edit changes in each skill, without a model (ratchet.diff), for
the harness the replays run through: an edit that changes nothing the model reads PASSes with no
replay and no model call, and after the replays the base's `static:` policy acts on what no replay
exercised (ratchet.gate.static).
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import git

from ratchet.clock import Clock, elapsed_ms, wall_clock
from ratchet.config import (
    CONFIG_FILE,
    Paths,
    Project,
    StaticPolicy,
    project_from_text,
    world_at_nothing,
)
from ratchet.diff.edit import skill_diffs
from ratchet.diff.models import EditDiff
from ratchet.errors import ConfigError, GoldenError, InfraError, RatchetError, SkillError
from ratchet.gate.decide import no_change
from ratchet.gate.drift import FactSearch, make_search
from ratchet.gate.evaluate import evaluate_edit, offered_tool_names
from ratchet.gate.evidence import evidence_changes
from ratchet.gate.gate_config import (
    PROJECT_CONFIGS_DIR,
    GateConfig,
    check_judge_tiers,
    config_repo_path,
    gate_config_path,
    load_gate_config,
)
from ratchet.gate.models import Unseen, Verdict
from ratchet.gate.policy import OnError
from ratchet.gate.select import affected_goldens
from ratchet.gate.shard import (
    ShardJob,
    ShardResult,
    ShardRun,
    Unchecked,
    partial_verdict,
    shard_task_ids,
)
from ratchet.gate.static import cosmetic_verdict, proved_cosmetic, with_static
from ratchet.gate.unseen import unseen_notes
from ratchet.gitops import (
    INDEX,
    ChangedPath,
    blobs_read_once,
    changed_paths,
    export_tree,
    files_at,
    open_repo,
    path_exists_at,
    read_file_at,
    repo_root,
    resolve_rev,
    resolve_revs,
    skill_folders_at,
    skill_links_leaving,
    skills_touched,
    submodules_under,
)
from ratchet.harness.settings import HarnessName
from ratchet.llm.cache import CacheMode
from ratchet.llm.gateway import Gateway
from ratchet.noise_record import NoiseRecord, load_noise_records, share_within_skills
from ratchet.scratch import scratch_checkout
from ratchet.skill_sets import load_skills
from ratchet.skills import leaving_link_message
from ratchet.store import open_store
from ratchet.tasks import Task, load_tasks
from ratchet.trace import NOISE_SUFFIX, Trace, load_golden_files
from ratchet.world.state import DECLARED_TOOLS_FOLDER as _TOOLS_FOLDER

if TYPE_CHECKING:
    from ratchet.pool import WorkPool

__all__ = ["OnError", "check_edit"]


def check_edit(
    path: Path,
    *,
    base: str,
    config: GateConfig | str,
    head: str | None = None,
    staged: bool = False,
    home: Path | None = None,
    on_error: OnError = OnError.WARN,
    cache_mode: CacheMode = CacheMode.ONCE,
    budget_usd: float | None = None,
    live_tavily: bool = False,
    clock: Clock = wall_clock,
    harness: HarnessName | None = None,
    ledger_hits: bool = False,
    shard: ShardJob | None = None,
    concurrency: int = 1,
) -> Verdict:
    """Gate the edit between `base` and `head` (a revision) or the index (`staged`).

    `config` is a gate config, or its name (the base's configs/<name>.yaml, else the packaged
    one) or a .yaml path (one inside the repository is read at the base; one outside as given). Differing pairs go through drift and the judge tiers of the config; a
    config with no tiers is Level 0 only, and a pair that needs judging is `unsure` (WARN).
    `harness` replaces the base's `harness:` name (`--harness`); `ledger_hits` writes a ledger row
    per cache hit (`--ledger-hits`), which otherwise only the run's hit count records.
    With `shard`, only that shard's pairs are replayed (ratchet.gate.shard): the answer is the
    shard's partial verdict, and `shard.result` what its shard file holds. `concurrency` > 1 runs
    the pairs on that many threads (ratchet.pool; same pairs, same order, same verdict).
    """
    started = clock()
    repo = open_repo(path)
    root = repo_root(repo)
    base_sha, head_rev = (resolve_rev(repo, base), INDEX) if staged else resolve_revs(repo, [base, head or "HEAD"])
    exported: dict[Path, str] = {}  # scratch folder -> the revision label its files are named by
    with _errors_name_revisions(exported), ExitStack() as stack:
        # ratchet.yaml, the goldens and both exports: one git process reads what they all read.
        stack.enter_context(blobs_read_once(repo, [base_sha, head_rev]))
        config_text = read_file_at(repo, base_sha, CONFIG_FILE, error=ConfigError)
        config_source = f"{CONFIG_FILE}@{_label(base_sha)}"
        project = project_from_text(root, config_text, source=config_source, home=home).with_harness(harness)
        paths = project.config.paths
        blessed = _base_is_blessed(
            repo, base_sha, project, config_source if config_text is not None else None, head=head_rev
        )
        changes = changed_paths(repo, base_sha, None if staged else head_rev, staged=staged)
        folders = skill_folders_at(repo, [base_sha, head_rev], paths.skills)
        changed = skills_touched(changes, paths.skills, folders)
        policy = OnError(on_error).value
        golden_bytes = _goldens_from_git(repo, base_sha, paths) if blessed else None
        golden_skip = () if golden_bytes is None else (posixpath.normpath(paths.goldens),)
        world_skip = _unread_at_base(paths)
        config_at = _config_at_base(repo, base_sha, config, root)
        base_tree = stack.enter_context(
            scratch_checkout(repo, base_sha, project.home, skip=(*golden_skip, *world_skip))
        )
        exported[base_tree] = _label(base_sha)
        config_file: Path | None = None
        if isinstance(config, str):
            config_file = (
                gate_config_path(config, project_root=base_tree) if config_at is None else base_tree / config_at
            )
            if config_at is not None:
                export_tree(repo, base_sha, base_tree, prefix=config_at)  # it may sit in a folder left out above
            if world_skip and _is_inside(config_file, base_tree):
                # The project's own config may keep its judge prompt anywhere in the project: all of it is exported.
                for folder in world_skip:
                    export_tree(repo, base_sha, base_tree, prefix=folder)
                world_skip = ()
            gate = load_gate_config(config_file, project_root=base_tree)
        else:
            gate = config
        check_judge_tiers(gate, project.config.tiers, source=config_file)  # before any export or replay is paid for
        for folder in (*golden_skip, *world_skip):
            if _reads_inside(gate, base_tree, folder):
                export_tree(repo, base_sha, base_tree, prefix=folder)  # the gate keeps fixtures or its prompt there
        unchecked = Unchecked(
            settings_changed=_settings_changed(changes, gate, base_tree, config_at, paths),
            submodules_changed=submodules_under(changes, paths.skills),
            unowned=_unowned(changes, paths.skills, folders),
            nothing_blessed_at=None if blessed else _label(base_sha),
            evidence=evidence_changes(
                repo,
                base=base_sha,
                head=head_rev,
                changes=changes,
                goldens=paths.goldens,
                tasks=paths.tasks,
                changed_skills=changed,
            ),
        )
        if not changed:
            verdict = no_change(
                base=base_sha,
                head=head_rev,
                simulated=project.config.upstream == "sim",
                on_error=policy,
                wall_ms=elapsed_ms(clock, started),
            )
            # Nothing blessed and nothing changed: there was nothing to check, and nothing was left unchecked.
            unchecked.nothing_blessed_at = None
            if shard is not None:
                return _shard_of_no_change(shard, verdict, gate, unchecked, static=project.config.static)
            return unchecked.named(verdict)
        for link, target in skill_links_leaving(repo, head_rev, paths.skills)[:1]:
            # The export writes a link as a file, never its target; but that is not the skill under review.
            raise SkillError(leaving_link_message(target), path=f"{link}@{_label(head_rev)}")
        # What the edit changes, read for the harness the replays run through (ratchet.gate.static).
        edit_diff = EditDiff(
            base=base_sha,
            head=head_rev,
            harness=project.config.harness.name,
            skills=skill_diffs(
                repo, base_sha, head_rev, project=project, names=changed, changes=changes, folders=folders
            ),
        )
        if proved_cosmetic(edit_diff.skills):
            # Nothing the model reads changed: no replay, no model call (no preflight either), $0.
            verdict = cosmetic_verdict(
                edit_diff.skills,
                base=base_sha,
                head=head_rev,
                simulated=project.config.upstream == "sim",
                on_error=policy,
                gate_config=gate.name,
                wall_ms=elapsed_ms(clock, started),
                goldens_total=_goldens_count(golden_bytes, base_tree / paths.goldens),
            )
            if shard is not None:
                return _shard_of_no_change(shard, verdict, gate, unchecked, static=project.config.static)
            return unchecked.named(verdict)
        head_tree = stack.enter_context(scratch_checkout(repo, head_rev, project.home, skip=_unread_at_head(paths)))
        exported[head_tree] = _label(head_rev)
        tasks, goldens, noise = _blessed_state(base_tree, project, golden_bytes) if blessed else ([], {}, {})
        store = stack.enter_context(closing(open_store(project.home)))
        gateway = stack.enter_context(
            Gateway(
                project,
                store,
                run_id=f"check-{uuid.uuid4().hex[:12]}",
                cache_mode=cache_mode,
                budget_usd=budget_usd,
                ledger_hits=ledger_hits,
            )
        )
        # Before any replay: an unknown tier, a missing key or an upstream that does not answer stops here.
        gateway.preflight(["agent", *(s.tier for s in gate.tiers)], named_by=config_file)
        judges = {step.tier: gateway.model(step.tier, f"judge-{step.tier}") for step in gate.tiers}
        search: FactSearch | None = None
        if gate.drift.enabled:
            # Fixtures come from the base state, so an edit cannot ship the "evidence" for its own drift.
            search = make_search("tavily" if live_tavily else gate.drift.search, base_tree / gate.drift.fixtures)
        base_skills, head_skills = load_skills(base_tree / paths.skills), load_skills(head_tree / paths.skills)
        selected: list[str] = []
        if shard is not None:
            selected = [
                item.task.id
                for item in affected_goldens(
                    tasks,
                    goldens,
                    changed,
                    head_skills,
                    routing="model" if project.config.routes_by_model else "lexical",
                    base_skills=base_skills,
                    neighbours=project.config.routing_neighbours,
                )
            ]
        evaluation = evaluate_edit(
            project=project,
            changed=changed,
            base_skills=base_skills,
            head_skills=head_skills,
            tasks=tasks,
            goldens=goldens if shard is None else {tid: goldens[tid] for tid in shard_task_ids(selected, shard.shard)},
            tree=head_tree,
            agent=gateway.model("agent", "replay"),
            judges=judges,
            config=gate,
            search=search,
            on_error=on_error,
            base=base_sha,
            head=head_rev,
            clock=clock,
            started=started,
            changed_files=_files_by_skill(changes, paths.skills, folders),
            pool=stack.enter_context(_pool(concurrency)) if concurrency > 1 else None,
            noise=noise,
            unchecked_at_cap=True,
            diffs=edit_diff,
        )
        verdict = with_static(
            _relabel_verdict(evaluation.verdict, exported), edit_diff.skills, policy=project.config.static
        )
        if shard is not None:
            replay_unseen = unseen_notes(
                changed=changed,
                base_skills=base_skills,
                head_skills=head_skills,
                tasks=tasks,
                goldens=goldens,
                changed_files=_files_by_skill(changes, paths.skills, folders),
                simulated=project.config.upstream == "sim",
                tools=offered_tool_names(project, head_tree) if project.config.upstream == "sim" else frozenset(),
            )
            return _shard_of(
                shard,
                verdict,
                gate,
                selected=selected,
                goldens_total=len(goldens),
                replay_unseen=replay_unseen,
                unchecked=unchecked,
                static=project.config.static,
            )
    return unchecked.named(verdict)


def _pool(concurrency: int) -> WorkPool:
    # Imported here: threads (concurrent.futures) are for --concurrency > 1, not every check.
    from ratchet.pool import WorkPool

    return WorkPool(concurrency)


# -- a shard: its pairs and the whole run's frame (ratchet.gate.shard) ---------------------------------


def _shard_of(
    job: ShardJob,
    verdict: Verdict,
    gate: GateConfig,
    *,
    selected: list[str],
    goldens_total: int,
    replay_unseen: list[Unseen],
    unchecked: Unchecked,
    static: StaticPolicy,
) -> Verdict:
    """The shard's partial verdict; its file's content into `job.result`.

    evaluate_edit saw only this shard's goldens, so the frame takes the whole run's golden count,
    and the unseen notes were computed over all goldens, as the unsharded check computes them.
    """
    mine = shard_task_ids(selected, job.shard)
    if [pair.task_id for pair in verdict.pairs] != mine:
        raise InfraError(
            f"shard {job.shard.label} selected {[p.task_id for p in verdict.pairs]}, not its share "
            f"{mine} of the run's selection: a bug in Ratchet, please report it"
        )
    frame = verdict.model_copy(
        update={
            "pairs": [],
            "decision": "PASS",
            "summary": "",
            "cost_usd": 0.0,
            "wall_ms": 0.0,
            "unseen": [],
            "goldens_total": goldens_total,
            "settings_changed": [],
            "submodules_changed": [],
        }
    )
    return _shard_result(
        job, frame, gate, verdict, selected=selected, replay_unseen=replay_unseen, unchecked=unchecked, static=static
    )


def _shard_of_no_change(
    job: ShardJob, verdict: Verdict, gate: GateConfig, unchecked: Unchecked, *, static: StaticPolicy
) -> Verdict:
    """An edit that changes no skill, or none the model reads (static.proved_cosmetic), has no pairs to split:
    every shard holds the same verdict."""
    frame = verdict.model_copy(update={"wall_ms": 0.0})
    return _shard_result(job, frame, gate, verdict, selected=[], replay_unseen=[], unchecked=unchecked, static=static)


def _shard_result(
    job: ShardJob,
    frame: Verdict,
    gate: GateConfig,
    verdict: Verdict,
    *,
    selected: list[str],
    replay_unseen: list[Unseen],
    unchecked: Unchecked,
    static: StaticPolicy,
) -> Verdict:
    run = ShardRun(
        base=frame.base,
        head=frame.head,
        gate_config=frame.gate_config,
        on_error=frame.on_error,
        block_confidence=gate.block_confidence,
        shards=job.shard.count,
        selected=selected,
        frame=frame,
        replay_unseen=replay_unseen,
        unchecked=unchecked,
        static=static,
    )
    job.result = ShardResult(shard=job.shard.index, run=run, pairs=verdict.pairs, wall_ms=verdict.wall_ms)
    return partial_verdict(job.result)


# -- the base's settings ---------------------------------------------------------------------------


def _label(rev: str) -> str:
    """How a message names a revision: a short sha, or <index>."""
    return rev if rev == INDEX else rev[:10]


def _base_is_blessed(repo: git.Repo, rev: str, project: Project, source: str | None, *, head: str) -> bool:
    """Whether the base holds a project to compare against; an error when a path setting points at nothing.

    False only when the base has none of skills, tasks and goldens and ratchet.yaml sets no path
    there (the first commit, or the commit before Ratchet was adopted): nothing was ever blessed.
    `source` names the base's ratchet.yaml in errors (None when the base has none). The world is
    the head's (every replay runs over it): a set paths.world must name something there, as record's must.
    """
    paths, label = project.config.paths, _label(rev)
    if paths.world != Paths.model_fields["world"].default and not path_exists_at(repo, head, paths.world):
        raise ConfigError(world_at_nothing(f"{paths.world}@{_label(head)}"), path=source)
    where = {name: str(getattr(paths, name)) for name in ("skills", "tasks", "goldens")}
    # A path set to something other than its default is a choice that can be a typo; the default is not.
    configured = {name for name, value in where.items() if value != Paths.model_fields[name].default}
    exists = {name: path_exists_at(repo, rev, value) for name, value in where.items()}
    if not any(exists.values()) and not configured:
        return False
    if not exists["goldens"]:
        missing = f"no goldens at {where['goldens']}@{label}"
        if "goldens" in configured:
            raise ConfigError(
                f"paths.goldens: {missing}: fix the path, or run ratchet record && ratchet bless", path=source
            )
        raise GoldenError(f"{missing}: run ratchet record && ratchet bless")
    for name in ("skills", "tasks"):
        if not exists[name]:
            raise ConfigError(
                f"paths.{name}: no {name} at {where[name]}@{label}: fix the path in {CONFIG_FILE}", path=source
            )
    return True


def _unread_at_head(paths: Paths) -> tuple[str, ...]:
    """Folders of the head state no reader opens: its goldens (what was blessed is the base's, docs/adr/0007),
    unless the goldens folder holds or sits inside a path the replay reads (skills, tasks, world, workspaces).

    At 10,000 goldens, not exporting them halves a check's export and its cleanup.
    """
    goldens = posixpath.normpath(paths.goldens)
    read = [posixpath.normpath(getattr(paths, name)) for name in ("skills", "tasks", "world", "workspaces")]
    if goldens in (".", "") or any(_nested(goldens, other) or _nested(other, goldens) for other in read):
        return ()
    return (goldens,)


def _unread_at_base(paths: Paths) -> tuple[str, ...]:
    """Folders of the base state no reader opens: its world and workspaces (every replay runs over the
    head's), unless one holds or sits inside a path the base is read for (skills, tasks, goldens, configs/).

    A gate that keeps its drift fixtures or judge prompt there has them exported after all (check_edit).
    """
    read = [posixpath.normpath(getattr(paths, name)) for name in ("skills", "tasks", "goldens")] + [PROJECT_CONFIGS_DIR]
    unread = [posixpath.normpath(getattr(paths, name)) for name in ("world", "workspaces")]
    return tuple(
        dict.fromkeys(
            folder
            for folder in unread
            if folder not in (".", "") and not any(_nested(folder, other) or _nested(other, folder) for other in read)
        )
    )


def _is_inside(path: Path, tree: Path) -> bool:
    return Path(os.path.normpath(path.resolve())).is_relative_to(tree.resolve())


def _nested(inner: str, outer: str) -> bool:
    return outer == "." or inner == outer or inner.startswith(outer + "/")


def _goldens_from_git(repo: git.Repo, rev: str, paths: Paths) -> dict[str, bytes] | None:
    """The base's goldens as bytes by repo path, read from git so they are never written out (at 10,000
    goldens, writing and removing them was most of a check); None when they must be exported after all.

    None when the goldens folder holds or sits inside anything else the base is read for (skills, tasks,
    world, workspaces, configs/), holds a submodule, or has a folder named *.json: there the files on
    disk and the bytes could answer differently.
    """
    if not _unread_at_head(paths) or _nested(PROJECT_CONFIGS_DIR, posixpath.normpath(paths.goldens)):
        return None
    folder = posixpath.normpath(paths.goldens)
    files = files_at(repo, rev, folder)
    depth = len(PurePosixPath(folder).parts)
    if files is None or any(part.endswith(".json") for path in files for part in PurePosixPath(path).parts[depth:-1]):
        return None
    return files


def _reads_inside(gate: GateConfig, base_tree: Path, folder: str) -> bool:
    """Whether the gate reads its drift fixtures or judge prompt from inside `folder` of the base."""
    inside = (base_tree / folder).resolve()
    wanted = [base_tree / gate.drift.fixtures] + ([gate.prompt_path()] if gate.judge_prompt is not None else [])
    return any(
        Path(os.path.normpath(path.resolve())).is_relative_to(inside) or inside.is_relative_to(path.resolve())
        for path in wanted
    )


def _blessed_state(
    base_tree: Path, project: Project, golden_bytes: dict[str, bytes] | None
) -> tuple[list[Task], dict[str, Trace], dict[str, NoiseRecord]]:
    """The tasks, goldens and goldens' noise records the team approved: all from the base (docs/adr/0007;
    an edit cannot declare its own replays noisy); the goldens from `golden_bytes` (_goldens_from_git)
    when given, named by where their export would be."""
    paths = project.config.paths
    tasks = load_tasks(base_tree / paths.tasks)
    goldens_dir, depth = base_tree / paths.goldens, len(PurePosixPath(posixpath.normpath(paths.goldens)).parts)
    contents = (
        None
        if golden_bytes is None
        else {goldens_dir.joinpath(*PurePosixPath(path).parts[depth:]): data for path, data in golden_bytes.items()}
    )
    files = load_golden_files(goldens_dir, contents)
    known = {task.id for task in tasks}
    for file, golden in files.items():
        if golden.task_id not in known:
            # Named by its scratch path, which _errors_name_revisions turns into goldens/<skill>/<task>.json@rev.
            raise GoldenError(f"golden for task {golden.task_id!r}, which is not in {paths.tasks}", path=file)
    goldens = {golden.task_id: golden for golden in files.values()}
    return tasks, goldens, share_within_skills(load_noise_records(files, contents), goldens)


def _goldens_count(golden_bytes: dict[str, bytes] | None, goldens_dir: Path) -> int:
    """How many goldens the base holds, counted without reading them (a cosmetic edit replays none)."""
    names = golden_bytes.keys() if golden_bytes is not None else (p.name for p in goldens_dir.rglob("*.json"))
    return sum(1 for name in names if name.endswith(".json") and not name.endswith(NOISE_SUFFIX))


def _files_by_skill(changes: Sequence[ChangedPath], skills_dir: str, folders: set[str]) -> dict[str, list[str]]:
    """Changed skill name -> the repo paths changed in its folder, by the same ownership rule as skills_touched."""
    files: dict[str, list[str]] = {}
    for change in changes:
        if not change.is_gitlink:  # a moved submodule is named on its own (submodules_under)
            for name in skills_touched([change], skills_dir, folders):
                files.setdefault(name, []).append(change.path)
    return files


def _unowned(changes: Sequence[ChangedPath], skills_dir: str, folders: set[str]) -> list[Unseen]:
    """Changed files under the skills folder that belong to no skill (a category's README, a shared
    script): no replay loads them, and a harness that does would not be checked, so each is named."""
    prefix = PurePosixPath(skills_dir.strip("/")).parts
    return [
        Unseen(
            kind="unsent",
            skill=change.path,
            level="warn",
            detail=(
                f"{change.path} changed under the skills folder but belongs to no skill: not replayed; "
                "review it, or move it into the skill folder that uses it"
            ),
        )
        for change in changes
        if not change.is_gitlink
        and PurePosixPath(change.path).parts[: len(prefix)] == prefix
        and not skills_touched([change], skills_dir, folders)
    ]


def _config_at_base(repo: git.Repo, rev: str, config: GateConfig | str, root: Path) -> str | None:
    """The repo path of a config given as a path inside the repository, which is read at the base like
    one given by name (docs/adr/0011); a ConfigError when the base does not have it. None otherwise."""
    at = config_repo_path(config, root) if isinstance(config, str) else None
    if at is not None and not path_exists_at(repo, rev, at):
        raise ConfigError(
            f"gate config {config}: not in the base revision ({at}@{_label(rev)}); the gate is read from "
            "the base, so a config this change adds takes effect once it is merged: check with a config "
            "the base has"
        )
    return at


def _settings_changed(
    changes: Sequence[ChangedPath], gate: GateConfig, base_tree: Path, config_at: str | None, paths: Paths
) -> list[str]:
    """Repo paths of the gate's own settings the edit changes: the config given by path (named first),
    ratchet.yaml, configs/, what the config reads from the base (its judge prompt, its drift fixtures),
    and the world's tool declarations (<world>/tools/).

    The declarations are read from the head, like the rest of the world, so that a new skill can bring
    its tools; but their `effect` is what Level 0's hard fail reads, so an edit that relabels a write as
    a read would otherwise turn its own new side effect into a PASS: it is named and gated instead."""
    read = ([gate.prompt_path()] if gate.judge_prompt is not None else []) + (
        [base_tree / gate.drift.fixtures] if gate.drift.enabled else []
    )
    base = base_tree.resolve()
    inside = [Path(os.path.normpath(path.resolve())) for path in read]
    tools = posixpath.join(posixpath.normpath(paths.world), _TOOLS_FOLDER)
    owned = [
        CONFIG_FILE,
        PROJECT_CONFIGS_DIR,
        tools,
        *([config_at] if config_at else []),
        *(path.relative_to(base).as_posix() for path in inside if path != base and path.is_relative_to(base)),
    ]
    changed = [c.path for c in changes if any(c.path == own or c.path.startswith(own + "/") for own in owned)]
    return sorted(changed, key=lambda path: path != config_at)


# -- errors that name what the user can open --------------------------------------------------------


@contextmanager
def _errors_name_revisions(exported: dict[Path, str]) -> Iterator[None]:
    """Re-raise a RatchetError about an exported file as the same error about `<repo path>@<revision>`."""
    try:
        yield
    except RatchetError as exc:
        renamed = _renamed(exc, exported)
        if renamed is None:
            raise
        raise renamed.with_traceback(exc.__traceback__) from None


def _roots(exported: dict[Path, str]) -> list[tuple[str, str]]:
    return [
        (root, label) for tree, label in exported.items() for root in dict.fromkeys((str(tree), str(tree.resolve())))
    ]


def relabel(text: str, exported: dict[Path, str]) -> str:
    """`text` with every path under an exported scratch folder written as `<repo path>@<revision>`."""
    for root, label in _roots(exported):
        text = re.sub(re.escape(root + os.sep) + r"([^\s'\":,]+)", rf"\1@{label}", text)
    return text


def _relabel_verdict(verdict: Verdict, exported: dict[Path, str]) -> Verdict:
    """A verdict whose evidence (a pair's reason or error, say a tool that read a workspace file)
    names what the user can open, not the scratch folders, which are gone once check returns."""
    pairs = [
        pair.model_copy(
            update={
                "reason": relabel(pair.reason, exported),
                "error": relabel(pair.error, exported) if pair.error is not None else None,
            }
        )
        for pair in verdict.pairs
    ]
    return verdict.model_copy(update={"pairs": pairs, "summary": relabel(verdict.summary, exported)})


def _renamed(exc: RatchetError, exported: dict[Path, str]) -> RatchetError | None:
    path, message = exc.path, relabel(exc.message, exported)
    for root, label in _roots(exported):
        if path is not None and (path == root or path.startswith(root + os.sep)):
            relative = Path(path).relative_to(root).as_posix()
            path = f"{relative}@{label}"
    if (path, message) == (exc.path, exc.message):
        return None
    renamed = copy.copy(exc)
    renamed.path, renamed.message = path, message
    renamed.args = (renamed.one_line(),)
    return renamed
