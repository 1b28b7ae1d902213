"""The check's trigger step: an edit that changes what the catalog shows runs the affected trigger queries at base
and at head, and an exact test per query decides (ratchet.triggers.compare, docs/adr/0025).

Why: a golden catches over-firing (R5) or under-firing (R6) only when its own prompt happens to route differently,
and no golden says "this request must not fire this skill". Trigger queries do (ratchet.goldens.triggers).

When: a changed skill whose catalog entry (its name, its description as the catalog prints it, whether a model may
load it) differs between base and head, or a skill added or removed. An edit proved cosmetic runs none (check_edit
decides it before this step); `triggers.repeats: 0` in the gate config turns the step off.

Which queries: those about the changed skills (a removed skill's own queries apart: it is gone on purpose, and the
goldens it leaves are named as evidence), those about their catalog neighbours (ratchet.gate.select, the project's
routing_neighbours), every canary, and under `routing: lexical` every query whose lexical routing moves (free: no
model call). They come from the BASE's tasks.yaml and triggers.yaml (docs/adr/0011): the edit cannot rewrite the
queries it is checked with; a triggers.yaml it changes is named at WARN, as changed evidence is.

Each query runs `repeats` times at the base (base skills) and at the head (head skills) with the same seeds, through
the check's agent model. Folded into the verdict first in its summary: a `worse` query BLOCKs naming the skill, the
query, the rates and the p-values; so does a `worse` family (a skill's should-fire queries, or its should-not-fire
ones, or the canaries, read together by a stratified exact test: an edit that breaks many queries at once BLOCKs
even when no one of them is significant after the correction); `unsettled` and `errors` are at least WARN with the
numbers.

A sharded check runs the step in shard 1 only (the queries are one family, tested together, so they are not split):
its shard file carries the TriggerCheck, and `ratchet merge` folds it into the merged verdict with `with_triggers`,
as one machine does (ratchet.gate.shard). The other shards run no trigger query.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from pathlib import Path

from ratchet.agent.catalog import model_invocable
from ratchet.agent.trigger import routing_index
from ratchet.config.gate import TriggersConfig
from ratchet.gate.evaluate import Evaluation
from ratchet.gate.models import Decision, Verdict
from ratchet.gate.replay import Replayer
from ratchet.gate.select import catalog_neighbours
from ratchet.goldens.tasks import Task
from ratchet.goldens.triggers import TRIGGERS_FILE, TriggerQuery, load_trigger_queries
from ratchet.repo.changes import ChangedPath
from ratchet.skills.names import optional_skill_key, skill_key
from ratchet.skills.skill import Skill
from ratchet.triggers.compare import FamilyChange, QueryChange, compare
from ratchet.triggers.models import QueryRuns
from ratchet.triggers.run import TriggersStopped, run_queries
from ratchet.triggers.verdict import TriggerCheck

__all__ = ["catalog_changed", "trigger_check", "trigger_summary", "with_trigger_check", "with_triggers"]

_RANK: dict[Decision, int] = {"PASS": 0, "WARN": 1, "BLOCK": 2}


def _entry(skill: Skill | None, invocable: Mapping[str, Skill]) -> tuple[str, str, bool] | None:
    """What the catalog shows of a skill: its name, its description as one line, whether a model may load it."""
    if skill is None:
        return None
    return skill.name, " ".join(skill.description.split()), skill.name in invocable


def catalog_changed(
    changed: Sequence[str], base_skills: Mapping[str, Skill], head_skills: Mapping[str, Skill]
) -> list[str]:
    """The changed skills (by key, as `changed` spells them) whose catalog entry differs, or that are added or
    removed."""
    base = {skill_key(s.name): s for s in base_skills.values()}
    head = {skill_key(s.name): s for s in head_skills.values()}
    shown_base, shown_head = model_invocable(base_skills), model_invocable(head_skills)
    return [
        name
        for name in changed
        if _entry(base.get(skill_key(name)), shown_base) != _entry(head.get(skill_key(name)), shown_head)
    ]


def _affected(
    queries: Sequence[TriggerQuery],
    skills: Sequence[str],
    base_skills: Mapping[str, Skill],
    replays: Replayer,
) -> tuple[list[TriggerQuery], list[str]]:
    """The queries to run and the catalog neighbours they include (see the module's docstring)."""
    config = replays.project.config
    head_skills = replays.head_skills
    near = sorted(catalog_neighbours(skills, head_skills, base_skills, config.routing_neighbours))
    removed = {skill_key(s) for s in skills} - {skill_key(s.name) for s in head_skills.values()}
    about = ({skill_key(s) for s in skills} - removed) | set(near)
    moved: set[str] = set()
    if not config.routes_by_model and config.harness.is_minimal:
        base_index, head_index = routing_index(base_skills), routing_index(head_skills)
        moved = {
            q.id
            for q in queries
            if optional_skill_key(base_index.fired(q.prompt)) != optional_skill_key(head_index.fired(q.prompt))
        }
    chosen = [
        q
        for q in queries
        if q.skill is None or skill_key(q.skill) in about or (q.id in moved and skill_key(q.skill) not in removed)
    ]
    return chosen, near


def trigger_check(
    replays: Replayer,
    *,
    config: TriggersConfig,
    base_tree: Path,
    tasks_file: str,
    tasks: Sequence[Task],
    changes: Sequence[ChangedPath],
    changed: Sequence[str],
) -> TriggerCheck | None:
    """The trigger queries the edit affects, run at base and head and compared; None when the edit changes no
    catalog entry or the step is off."""
    skills = catalog_changed(changed, replays.base_skills, replays.head_skills)
    if not skills or config.repeats == 0:
        return None
    queries = load_trigger_queries(base_tree / tasks_file, tasks)
    chosen, near = _affected(queries, skills, replays.base_skills, replays)
    trigger_file = posixpath.normpath(posixpath.join(posixpath.dirname(tasks_file), TRIGGERS_FILE))
    base_runs = _runs(chosen, replays.base_skills, replays, config.repeats)
    head_runs = _runs(chosen, replays.head_skills, replays, config.repeats)
    compared = compare(base_runs, head_runs, alpha=config.alpha)
    return TriggerCheck(
        skills=list(skills),
        neighbours=near,
        repeats=config.repeats,
        alpha=config.alpha,
        queries=compared.queries,
        families=compared.families,
        file_changed=trigger_file if any(change.path == trigger_file for change in changes) else None,
        cost_usd=sum(run.cost_usd for side in (base_runs, head_runs) for runs in side for run in runs.runs),
    )


def _runs(
    queries: Sequence[TriggerQuery], skills: Mapping[str, Skill], replays: Replayer, repeats: int
) -> list[QueryRuns]:
    """Each query's runs under `skills`; a query the budget stopped before it ran has none (an error, not a PASS)."""
    project = replays.project
    try:
        done = run_queries(queries, skills, project=project, model=replays.model, repeats=repeats)
    except TriggersStopped as stopped:
        done = stopped.done
    ran = {runs.query.id: runs for runs in done}
    return [ran.get(query.id, QueryRuns(query=query, runs=[])) for query in queries]


def _query_text(change: QueryChange) -> str:
    """`R5 github-triage should not fire on "…" (github-triage:not:1): fired 0/5 at base -> 5/5 at head`."""
    if change.skill is None:
        what = "no skill should fire"
    else:
        what = f"{change.skill} should {'fire' if change.should_fire else 'not fire'}"
    prompt = change.prompt if len(change.prompt) <= 60 else change.prompt[:57] + "..."
    return f'{what} on "{prompt}" ({change.query_id}): fired {change.base_fires}/{change.base_n} at base -> {change.head_fires}/{change.head_n} at head'


def _p_text(change: QueryChange) -> str:
    if change.p_value is None:
        return ""
    holm = f", Holm {change.adjusted_p:.3g}" if change.adjusted_p is not None else ""
    return f", p={change.p_value:.3g}{holm}"


def _family_text(family: FamilyChange) -> str:
    """`github-triage: its should-fire queries fired 0 of 65 at head against 65 of 65 at base (13 queries, ...)`."""
    if family.skill is None:
        what = "the canaries (no skill should fire) fired a skill"
    else:
        what = f"{family.skill}: its should-{'fire' if family.should_fire else 'not-fire'} queries fired"
    holm = f", Holm {family.adjusted_p:.3g}" if family.adjusted_p is not None else ""
    named = ", ".join(family.moved[:3]) + (", ..." if len(family.moved) > 3 else "")
    moved = f"; {len(family.moved)} moved the wrong way: {named}" if family.moved else ""
    return (
        f"{what} {family.head_fires} of {family.head_n} at head against {family.base_fires} of {family.base_n} at "
        f"base ({len(family.queries)} queries, stratified exact p {family.p_value:.3g}{holm}{moved})"
    )


def _family_notes(check: TriggerCheck, outcome: str) -> list[str]:
    families = check.families_of(outcome)
    if not families:
        return []
    first, count = families[0], f"{len(families)} trigger query {'family' if len(families) == 1 else 'families'}"
    if outcome == "worse":
        return [f"{count} worse at alpha {check.alpha:g}, first {first.regression} {_family_text(first)}"]
    return [
        f"{count} moved the wrong way but unsettled over {check.repeats} runs "
        f"(more repeats can settle it), first {_family_text(first)}"
    ]


def trigger_summary(check: TriggerCheck) -> list[str]:
    """The summary's trigger notes, worst first: what BLOCKs, then what WARNs."""
    notes: list[str] = []
    if check.file_changed:
        notes.append(
            f"trigger queries changed ({check.file_changed}): checked with the base's queries; review the change"
        )
    worse, unsettled, errors = check.of("worse"), check.of("unsettled"), check.of("errors")
    if worse:
        first = worse[0]
        notes.append(
            f"{len(worse)} trigger query(ies) worse at alpha {check.alpha:g}, first {first.regression} "
            f"{_query_text(first)}{_p_text(first)}"
        )
    notes += _family_notes(check, "worse")
    if unsettled:
        first = unsettled[0]
        notes.append(
            f"{len(unsettled)} trigger query(ies) moved the wrong way but unsettled over {check.repeats} runs "
            f"(more repeats can settle it), first {_query_text(first)}{_p_text(first)}"
        )
    notes += _family_notes(check, "unsettled")
    if errors:
        first = errors[0]
        notes.append(
            f"{len(errors)} trigger query(ies) not checked (a run errored or did not run), first {first.query_id}: "
            f"{first.base_errors} error(s) at base, {first.head_errors} at head"
        )
    return notes


def with_trigger_check(evaluation: Evaluation, check: TriggerCheck | None) -> Evaluation:
    """The evaluation whose verdict carries `check` (with_triggers)."""
    if check is None:
        return evaluation
    return evaluation.model_copy(update={"verdict": with_triggers(evaluation.verdict, check)})


def with_triggers(verdict: Verdict, check: TriggerCheck | None) -> Verdict:
    """`verdict` carrying `check`, its cost, and its notes first in the summary: a `worse` query or family BLOCKs;
    `unsettled`, `errors` or a changed triggers file are at least WARN. The check and a shard merge both fold it in
    with this, right after the pairs are decided and their unseen notes named."""
    if check is None:
        return verdict
    notes = trigger_summary(check)
    floor: Decision = "BLOCK" if check.of("worse") or check.families_of("worse") else ("WARN" if notes else "PASS")
    decision = verdict.decision if _RANK[verdict.decision] >= _RANK[floor] else floor
    update: dict[str, object] = {
        "triggers": check,
        "cost_usd": verdict.cost_usd + check.cost_usd,
        "decision": decision,
        "summary": "; ".join([*notes, verdict.summary]),
    }
    return verdict.model_copy(update=update)
