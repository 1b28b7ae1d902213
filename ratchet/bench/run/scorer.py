"""One item of a bench run scored: an edit through the check's pipeline, or (E6) a golden replayed unchanged.

The Scorer is shared by the run's worker threads (run.py's run_config builds it, schedule.py calls it).
A recording configuration stores each edit's replays; a re-judging one reads the RECORDING_CONFIG
run's instead and makes no agent call. Each edit's judges get its behavioural diff (ratchet.bench.report.diffs), and
every verdict is kept at catalog prices (ratchet.bench.data.costs), so results.json is byte-stable.
"""

from __future__ import annotations

import copy
import difflib
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import yaml

from ratchet.bench.build.benchdata import BenchData
from ratchet.bench.data.costs import stable_pair, stable_replays, stable_verdict, usage_of
from ratchet.bench.data.models import Edit
from ratchet.bench.data.results import NoiseGolden, ScoredEdit, read_replays, replays_path, write_replays
from ratchet.bench.data.triggers import EditTriggers, edit_triggers
from ratchet.bench.report.diffs import edit_labels
from ratchet.bench.run.plan import Mode, head_skills_for
from ratchet.bench.run.sampling import derived_seed
from ratchet.config.gate import GateConfig
from ratchet.core.chat import ChatModel
from ratchet.core.clock import frozen_clock
from ratchet.core.pool import WorkPool
from ratchet.diff.models import EditDiff
from ratchet.gate.context import CheckContext
from ratchet.gate.decide import decide_edit
from ratchet.gate.drift import FactSearch, FixtureSearch, make_search
from ratchet.gate.evaluate import evaluate_edit, offered_tool_names
from ratchet.gate.models import Decision, EditReplays, Selected
from ratchet.gate.repeats import gate_repeated
from ratchet.gate.replay import Replayer
from ratchet.gate.triggers import trigger_check
from ratchet.goldens.noise import NoiseRecord
from ratchet.llm.gateway import Gateway

RECORDING_CONFIG = "cascade"


def edit_diff(data: BenchData, edit: Edit) -> str:
    before = data.skill_texts.get(edit.skill, "")
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        edit.skill_md.splitlines(keepends=True),
        fromfile=f"a/{edit.skill}/SKILL.md",
        tofile=f"b/{edit.skill}/SKILL.md",
        n=1,
    )
    return "".join(lines)


def _overlay_file(home: Path, edit: Edit) -> tuple[Path, ...]:
    if not edit.world_overlay:
        return ()
    from ratchet.core.jsonio import atomic_write_text

    path = home / "bench-overlays" / f"{edit.id}.yaml"
    atomic_write_text(path, yaml.safe_dump(edit.world_overlay, sort_keys=True, allow_unicode=True))
    return (path,)


def _search_for(data: BenchData, config: GateConfig, edit: Edit | None, live_tavily: bool) -> FactSearch:
    search = make_search("tavily" if live_tavily else config.drift.search, data.project.root / config.drift.fixtures)
    if isinstance(search, FixtureSearch) and edit is not None:
        return _with_edit_facts(search, edit)
    return search


def _with_edit_facts(search: FixtureSearch, edit: Edit) -> FixtureSearch:
    """`search` with the facts a D1 control ships (the stand-in for the web), in its own facts dict."""
    search.facts = dict(search.facts)
    facts = edit.fixtures.get("facts", edit.fixtures) if isinstance(edit.fixtures.get("facts"), dict) else edit.fixtures
    for key, entry in facts.items():
        if isinstance(entry, dict) and "value" in entry:
            search.facts[str(key)] = (entry["value"], str(entry.get("source") or f"edit {edit.id} fixture"))
        else:
            search.facts[str(key)] = (entry, f"edit {edit.id} fixture")
    return search


class Scorer:
    """One configuration's work, shared by the worker threads."""

    def __init__(
        self,
        data: BenchData,
        config: GateConfig,
        live_tavily: bool,
        gateway: Gateway,
        home: Path,
        pool: WorkPool,
        dest: Path,
        mode: Mode,
        records: Mapping[str, NoiseRecord],
        diffs: Mapping[str, EditDiff],
        recorded_triggers: Mapping[str, EditTriggers] | None = None,
        stored: dict[Path, EditReplays] | None = None,
    ) -> None:
        self.data = data
        # Replays files already read by this process's earlier runs (run.SharedInputs), by path: the re-judging
        # runs read the recording run's replays once, not once each. A file this Scorer writes is dropped from it.
        self.stored = stored
        # A re-judging run makes no agent call, so it keeps the recording run's trigger step as it keeps its replays.
        self.recorded_triggers = dict(recorded_triggers or {})
        self.diffs = diffs  # each labeled edit's behavioural diff: the judges' skill_diff context, as in a check
        self.dest = dest  # where replays go: the run's --out, or the shard's folder
        self.config = config
        self.live_tavily = live_tavily
        self.gateway = gateway
        self.home = home
        self.pool = pool
        self.mode = mode
        self.records = records
        # Start-up work done once per run, not once per edit: the offered tools over the world
        # without an overlay (most edits), and the search fixtures each edit's search starts from.
        self._offered: frozenset[str] | None = None
        self._search: FactSearch | None = None
        self._once = threading.Lock()

    def offered(self, overlays: tuple[Path, ...]) -> frozenset[str] | None:
        """The tools offered over the world, computed once for the no-overlay world (None: let evaluate do it)."""
        if overlays or self.data.project.config.upstream != "sim":
            return None
        with self._once:
            if self._offered is None:
                self._offered = offered_tool_names(self.data.project, self.data.project.root)
            return self._offered

    def search_for(self, edit: Edit) -> FactSearch:
        """The edit's search: the run's fixtures (parsed once) plus what the edit ships."""
        if self.live_tavily or self.config.drift.search == "tavily":
            return _search_for(self.data, self.config, edit, self.live_tavily)
        with self._once:
            if self._search is None:
                self._search = _search_for(self.data, self.config, None, False)
            base = self._search
        assert isinstance(base, FixtureSearch)
        return _with_edit_facts(copy.copy(base), edit)

    def _read_stored(self, path: Path) -> EditReplays:
        if self.stored is None:
            return read_replays(path)
        with self._once:
            found = self.stored.get(path)
        if found is None:
            found = read_replays(path)
            with self._once:
                self.stored[path] = found
        return found

    def _judges(self) -> dict[str, ChatModel]:
        return {step.tier: self.gateway.model(step.tier, f"judge-{step.tier}") for step in self.config.tiers}

    def score_edit(self, edit_id: str) -> tuple[ScoredEdit, float]:
        data, project = self.data, self.data.project
        edit, label = data.edits[edit_id], data.labels[edit_id]
        started = time.perf_counter()
        stored = None
        agent: ChatModel | None = None
        if self.mode == "rejudge":
            stored = self._read_stored(replays_path(self.dest, RECORDING_CONFIG, edit_id))
        else:
            agent = self.gateway.model("agent", "replay")
        overlays = _overlay_file(self.home, edit)
        base, head = edit_labels(edit)
        head_skills = head_skills_for(data, edit)
        diff = self.diffs.get(edit_id)
        context = CheckContext(  # the edit's check: gated as `ratchet check` gates it
            config=self.config,
            judges=self._judges(),
            search=self.search_for(edit),
            noise=self.records,
            diffs=diff.skills if diff is not None else (),
            clock=frozen_clock,  # results.json is byte-stable; timings.json has the wall time
            pool=self.pool,
            record_base=self.mode == "record",
            base=base,
            head=head,
        )
        replayer = Replayer(
            project,
            tree=project.root,
            head_skills=head_skills,
            base_skills=data.base_skills,
            agent=agent,
            stored=stored,
            overlays=overlays,
            clock=frozen_clock,
        )
        evaluation = evaluate_edit(
            context,
            replayer,
            changed=[edit.skill],
            tasks=data.tasks,
            goldens=data.goldens,
            offered=self.offered(overlays),
        )
        replays = stable_replays(evaluation.replays, project.config)
        verdict = stable_verdict(evaluation.verdict, replays, project.config)
        replays_rel: str | None = None
        if self.mode == "record":
            path = replays_path(self.dest, self.config.name, edit_id)
            if self.stored is not None:
                with self._once:
                    self.stored.pop(path, None)
            write_replays(path, replays)
            replays_rel = path.relative_to(self.dest).as_posix()
        elif self.mode == "rejudge":
            replays_rel = replays_path(self.dest, RECORDING_CONFIG, edit_id).relative_to(self.dest).as_posix()
        scored = ScoredEdit(
            edit_id=edit_id,
            type=edit.type,
            skill=edit.skill,
            verdict=verdict,
            expected_decision=label.expected_decision,
            affected_goldens=sorted(label.affected_goldens),
            expected_pairs=dict(sorted(label.expected_pairs.items())),
            replays_dir=replays_rel,
            usage=usage_of(replays, verdict.pairs, project.config),
            diff=edit_diff(data, edit),
            triggers=self.triggers_for(edit, replayer),
        )
        return scored, round((time.perf_counter() - started) * 1000, 3)

    def triggers_for(self, edit: Edit, replayer: Replayer) -> EditTriggers | None:
        """The check's trigger step on the edit, kept beside its verdict (which stays the decision without it).

        The same step `ratchet check` runs (ratchet.gate.triggers.trigger_check): when the edit changes a catalog
        entry, the affected queries of the project's triggers.yaml and tasks.yaml run at base and head through the
        run's agent model, `triggers.repeats` times each, and an exact test per query decides. None when the edit
        changes no catalog entry (every N0 and D1 edit: they never touch the frontmatter). A sharded bench run splits
        edits over shards, never one edit's queries.
        """
        if self.mode == "rejudge":
            return self.recorded_triggers.get(edit.id)
        project = self.data.project
        check = trigger_check(
            replayer,
            config=self.config.triggers,
            base_tree=project.root,
            tasks_file=project.config.paths.tasks,
            tasks=self.data.tasks,
            changes=(),
            changed=[edit.skill],
        )
        return edit_triggers(check) if check is not None else None

    def score_golden(self, task_id: str) -> tuple[NoiseGolden, float]:
        """E6: the unchanged skills replayed `replays_per_golden` times, each run through the pair pipeline.

        Each run's golden is reseeded per (task, run), so a live model is asked afresh and the
        simulator's noise knob rolls anew; the seed is not something Level 0 or a judge compares.
        Drift is off here (no search), so no base replay is asked for. With noise records each run is an
        A/A check through the repeats stage: what the gate would decide about an unchanged skill.
        """
        data, project = self.data, self.data.project
        golden = data.goldens[task_id]
        task = next(t for t in data.tasks if t.id == task_id)
        started = time.perf_counter()
        replayer = Replayer(
            project,
            tree=project.root,
            head_skills=data.base_skills,
            base_skills=data.base_skills,
            agent=self.gateway.model("agent", "replay"),
            clock=frozen_clock,
        )
        context = CheckContext(config=self.config, judges=self._judges(), noise=self.records, clock=frozen_clock)
        outcomes = []
        decisions: list[Decision] = []
        replays = EditReplays()
        for run in range(self.config.replays_per_golden):
            reseeded = golden.model_copy(update={"seed": derived_seed("noise", task_id, run)})
            replayer.recorded.replays.clear()
            item = Selected(task=task, golden=reseeded, because="routed")
            pair = gate_repeated(item, replayer, context, pair_id=f"{task_id}#{run}")
            one = stable_replays(EditReplays(replays=dict(replayer.recorded.replays)), project.config)
            decisions.append(decide_edit([pair], block_confidence=self.config.block_confidence)[0])
            outcomes.append(stable_pair(pair, one, project.config))
            for key, trace in one.replays.items():  # a repeat <task>#<k> of A/A check <run> is kept as <task>#<run>.<k>
                replays.replays[f"{task_id}#{run}" + (f".{key.partition('#')[2]}" if key != task_id else "")] = trace
        usage = usage_of(replays, outcomes, project.config)
        noise = NoiseGolden(
            task_id=task_id, skill=golden.fired_skill, outcomes=outcomes, usage=usage, decisions=decisions
        )
        return noise, round((time.perf_counter() - started) * 1000, 3)
