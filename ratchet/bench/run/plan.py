"""What a bench run will do, before it does it: its mode, the items it may score, its sample, its calls.

Split from run.py so the scheduling there reads on its own; `bench run` and the shard code ask these.
"""

from __future__ import annotations

from typing import Literal

from ratchet.bench.build.benchdata import BenchData
from ratchet.bench.data.models import CONTROL_TYPES, REGRESSION_TYPES, Edit
from ratchet.bench.run.noisy import NoiseSettings
from ratchet.bench.run.sampling import stratified_sample
from ratchet.config.gate import GateConfig
from ratchet.core.errors import InputError
from ratchet.gate.select import affected_goldens
from ratchet.skills.skill import Skill, parse_skill_text

Mode = Literal["record", "rejudge", "noise"]
REJUDGE_CONFIGS: frozenset[str] = frozenset(
    {"nano_only", "super_only", "ultra_only", "drift_off", "level0_off", "state_diff_off"}
)


def run_mode(config: GateConfig, *, repeats: bool = False) -> Mode:
    """What a configuration does with replays: record its own, re-judge cascade's, or measure noise.

    With noise records (`repeats`), a re-judging configuration records its own replays: its judges
    decide how many repeats a pair needs, and cascade's stored ones may not be enough.
    """
    if config.replays_per_golden > 1:
        return "noise"
    return "rejudge" if config.name in REJUDGE_CONFIGS and not repeats else "record"


def head_skills_for(data: BenchData, edit: Edit) -> dict[str, Skill]:
    """The dataset's skills with one SKILL.md replaced by the edit's."""
    folder = data.project.path("skills") / edit.skill
    skill = parse_skill_text(edit.skill_md, folder=folder, source=f"edit {edit.id}")
    return {**data.base_skills, edit.skill: skill}


def candidate_ids(data: BenchData, config: GateConfig) -> list[str]:
    """Every item a configuration could run, whatever --limit and --types say: what shards partition."""
    if run_mode(config) == "noise":
        return sorted(data.goldens)
    return sorted(eid for eid in data.edits if eid in data.labels)


def sample_ids(data: BenchData, config: GateConfig, limit: int | None, types: tuple[str, ...], seed: int) -> list[str]:
    """The edits (or, for E6, goldens) this configuration runs: the same seed gives the same subset everywhere."""
    if run_mode(config) == "noise":
        items = [(tid, g.fired_skill or "_none") for tid, g in data.goldens.items()]
        return stratified_sample(items, limit, seed)
    wanted = set(types)
    unknown = wanted - {*REGRESSION_TYPES, *CONTROL_TYPES}
    if unknown:
        raise InputError(f"unknown edit type(s) in --types: {', '.join(sorted(unknown))} (R1-R7, N0, D1, F0)")
    items = [(eid, e.type) for eid, e in data.edits.items() if eid in data.labels and (not wanted or e.type in wanted)]
    return stratified_sample(items, limit, seed)


def plan_calls(
    data: BenchData, config: GateConfig, ids: list[str], noise: NoiseSettings | None = None
) -> dict[str, int]:
    """An upper bound on calls by kind: every affected pair replayed and judged by every tier (with noise
    records: each golden's bless repeats, and every pair up to max_replays times)."""
    repeats = noise is not None and noise.measures
    mode = run_mode(config, repeats=repeats)
    if mode == "noise":
        pairs = len(ids) * config.replays_per_golden
        replays = pairs
    else:
        pairs = 0
        for edit_id in ids:
            edit = data.edits[edit_id]
            pairs += len(affected_goldens(data.tasks, data.goldens, [edit.skill], head_skills_for(data, edit)))
        replays = 0 if mode == "rejudge" else pairs
    if repeats and noise is not None:
        pairs *= config.max_replays
        replays = replays * config.max_replays + len(data.goldens) * noise.bless_repeats
    calls = {"replay": replays} if replays else {}
    for step in config.tiers:
        calls[f"judge-{step.tier}"] = pairs
    return calls
