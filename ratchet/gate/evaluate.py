"""Evaluate: the git-free core of the gate. Skill sets, tasks and goldens in; a Verdict and its replays out.

`check_edit` reads two git states and calls this; the bench calls it with an edited SKILL.md
and a world overlay, and stores the replays it returns so other configurations can re-judge
them without a second round of agent calls (`stored=`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ratchet.config import Project
from ratchet.errors import InputError
from ratchet.gate.cascade import gate_pair
from ratchet.gate.decide import decide_edit, level0_outcome
from ratchet.gate.drift import FactSearch, moved_facts
from ratchet.gate.gate_config import GateConfig
from ratchet.gate.level0 import level0_findings
from ratchet.gate.replay import replay_task
from ratchet.gate.select import Selected, affected_goldens
from ratchet.gate.verdict import PairOutcome, Verdict
from ratchet.llm.types import ChatModel
from ratchet.skills import Skill
from ratchet.tasks import Task
from ratchet.trace import Trace

OnError = Literal["warn", "block"]
REPLAYS_SCHEMA_VERSION = 1


class EditReplays(BaseModel):
    """The agent replays one evaluation made: under the edited skills, and of the unchanged skills for drift."""

    schema_version: int = REPLAYS_SCHEMA_VERSION
    replays: dict[str, Trace] = Field(default_factory=dict, description="task id -> replay under the edited skills.")
    base_replays: dict[str, Trace] = Field(
        default_factory=dict, description="task id -> replay of the unchanged skills on the current world (drift)."
    )


class Evaluation(BaseModel):
    """A verdict and the replays behind it."""

    verdict: Verdict
    replays: EditReplays


class Replayer:
    """Where replays come from: the agent model (recording them), or stored replays (no agent call)."""

    def __init__(
        self,
        project: Project,
        tree: Path,
        overlays: tuple[Path, ...],
        agent: ChatModel | None,
        stored: EditReplays | None,
    ) -> None:
        if agent is None and stored is None:
            raise ValueError("a Replayer needs an agent model or stored replays")
        self.project = project
        self.tree = tree
        self.overlays = overlays
        self.agent = agent
        self.stored = stored
        self.recorded = EditReplays()

    def _run(self, item: Selected, skills: Mapping[str, Skill]) -> Trace:
        assert self.agent is not None
        return replay_task(
            item.task, item.golden, skills, self.agent, project=self.project, tree=self.tree, overlays=self.overlays
        )

    def replay(self, item: Selected, skills: Mapping[str, Skill]) -> Trace:
        task_id = item.task.id
        if self.stored is not None:
            trace = self.stored.replays.get(task_id)
            if trace is None:
                raise InputError(f"no stored replay for task {task_id!r}: re-run the configuration that recorded them")
        else:
            trace = self._run(item, skills)
        self.recorded.replays[task_id] = trace
        return trace

    def replay_base(self, item: Selected, skills: Mapping[str, Skill]) -> Trace:
        task_id = item.task.id
        known = self.recorded.base_replays.get(task_id)
        if known is not None:
            return known
        if self.stored is not None:
            trace = self.stored.base_replays.get(task_id)
            if trace is None:
                # drift_check turns this into "could not replay the base skill": never a silent pass.
                raise InputError(f"no stored base replay for task {task_id!r}")
        else:
            trace = self._run(item, skills)
        self.recorded.base_replays[task_id] = trace
        return trace


def _level0_pair(item: Selected, replay: Trace, started: float) -> PairOutcome:
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


def _cascade_pair(
    item: Selected,
    replay: Trace,
    started: float,
    *,
    replayer: Replayer,
    base_skills: Mapping[str, Skill],
    config: GateConfig,
    judges: Mapping[str, ChatModel],
    search: FactSearch | None,
    keep_base_replays: bool,
) -> PairOutcome:
    findings = level0_findings(item.golden, replay)
    if keep_base_replays and replay.status == "ok" and moved_facts(item.golden, replay):
        # Recorded even when this configuration does not need it, so a re-judging one
        # (drift or Level 0 switched) finds it without an agent call.
        replayer.replay_base(item, base_skills)
    result = gate_pair(
        item.golden, replay, findings, task=item.task, config=config, judges=judges,
        pair_id=item.task.id, replay_base=lambda: replayer.replay_base(item, base_skills), search=search,
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


def evaluate_edit(
    *,
    project: Project,
    changed: Sequence[str],
    base_skills: Mapping[str, Skill],
    head_skills: Mapping[str, Skill],
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    tree: Path,
    agent: ChatModel | None,
    judges: Mapping[str, ChatModel] | None = None,
    config: GateConfig | None = None,
    search: FactSearch | None = None,
    overlays: tuple[Path, ...] = (),
    stored: EditReplays | None = None,
    keep_base_replays: bool = False,
    on_error: OnError = "warn",
    base: str = "base",
    head: str = "head",
) -> Evaluation:
    """Gate one edit: select, replay (or reuse `stored` replays), Level 0, drift, cascade, decide.

    `tree` holds the world and workspaces (project paths); `overlays` are world files merged
    over it. Without a `config`, Level 0 alone decides and a pair that needs judging is
    `unsure` (WARN). With `stored`, no agent call is made: a missing replay is an InputError.
    """
    started = time.perf_counter()
    simulated = project.config.upstream == "sim"
    replayer = Replayer(project, tree, overlays, agent, stored)
    if not changed:
        verdict = Verdict(
            base=base, head=head, skills_changed=[], decision="PASS", summary="no skill changed",
            simulated=simulated, on_error=on_error, wall_ms=round((time.perf_counter() - started) * 1000, 3),
        )
        return Evaluation(verdict=verdict, replays=replayer.recorded)
    selected = affected_goldens(tasks, goldens, changed, head_skills)
    pairs: list[PairOutcome] = []
    for item in selected:
        pair_started = time.perf_counter()
        replay = replayer.replay(item, head_skills)
        if config is None:
            pairs.append(_level0_pair(item, replay, pair_started))
        else:
            pairs.append(
                _cascade_pair(
                    item, replay, pair_started, replayer=replayer, base_skills=base_skills, config=config,
                    judges=judges or {}, search=search, keep_base_replays=keep_base_replays,
                )
            )
    decision, summary = decide_edit(
        pairs, on_error=on_error, block_confidence=config.block_confidence if config is not None else 0.0
    )
    verdict = Verdict(
        base=base,
        head=head,
        skills_changed=list(changed),
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
    return Evaluation(verdict=verdict, replays=replayer.recorded)
