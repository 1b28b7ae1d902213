"""The N0, F0 and D1 control edits of a build, each kept only when its replays say it is what it claims.

An N0 (cosmetic) or F0 (fault handling refactored) edit is dropped when it changes a golden; a D1 (world drift) edit when no replay
reads the fact it moves. The candidate texts and overlays come from controls.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import yaml

from ratchet.bench.build.controls import (
    D1_VARIANTS,
    F0_VARIANTS,
    N0_VARIANTS,
    f0_candidates_for,
    moved_value,
    n0_candidates,
    overlay_for,
    resolve_key,
    value_at,
    with_blank_line,
)
from ratchet.bench.build.replays import PairCheck, ReplayEnv
from ratchet.bench.data.models import Dropped, Edit, EditType
from ratchet.core.jsonio import digest
from ratchet.gate.drift import FixtureSearch
from ratchet.world.state import load_world


def _skill_text(env: ReplayEnv, skill: str) -> str:
    return (env.project.path("skills") / skill / "SKILL.md").read_text(encoding="utf-8")


def build_n0(env: ReplayEnv, skill: str) -> tuple[list[tuple[Edit, list[PairCheck]]], list[Dropped]]:
    text = _skill_text(env, skill)
    return _build_keeping(env, skill, "N0", N0_VARIANTS, lambda variant: n0_candidates(text, variant))


def build_f0(env: ReplayEnv, skill: str) -> tuple[list[tuple[Edit, list[PairCheck]]], list[Dropped]]:
    """F0: the fault handling refactored (ratchet.sim.mutate_faults.f0_candidates), kept only if no golden moves."""
    text = _skill_text(env, skill)
    tools = env.inject_context(skill).tools
    return _build_keeping(env, skill, "F0", F0_VARIANTS, lambda variant: f0_candidates_for(text, tools, variant))


def _build_keeping(
    env: ReplayEnv, skill: str, edit_type: EditType, variants: int, candidates: Callable[[int], list[tuple[str, str]]]
) -> tuple[list[tuple[Edit, list[PairCheck]]], list[Dropped]]:
    """Controls that must leave every golden as it was: the first candidate per variant that moves none."""
    kept: list[tuple[Edit, list[PairCheck]]] = []
    dropped: list[Dropped] = []
    taken: set[str] = set()
    for variant in range(1, variants + 1):
        reasons: list[str] = []
        for attempt, (edited, why) in enumerate(candidates(variant), start=1):
            if edited in taken:
                continue
            checks = env.check(skill, edited)
            if any(c.moved for c in checks):
                reasons.append(f"{why}: changed a golden, so it is not cosmetic")
                continue
            taken.add(edited)
            edit = Edit(
                id=f"{skill}.{edit_type}.{variant}",
                skill=skill,
                type=edit_type,
                variant=variant,
                description=why,
                skill_md=edited,
                base_content_hash=env.skills[skill].content_hash,
                source="control",
                tries=attempt,
            )
            kept.append((edit, checks))
            break
        else:
            dropped.append(
                Dropped(
                    edit_id=f"{skill}.{edit_type}.{variant}",
                    skill=skill,
                    type=edit_type,
                    variant=variant,
                    reasons=reasons or ["no cosmetic edit applies"],
                )
            )
    return kept, dropped


def build_d1(
    env: ReplayEnv, skill: str, overlay_dir: Path, fixtures: FixtureSearch
) -> tuple[list[tuple[Edit, list[PairCheck]]], list[Dropped]]:
    text = _skill_text(env, skill)
    paths = env.project.config.paths
    world = load_world(
        env.tree / paths.world, workspaces_dir=None, workspace=None, frozen_time=env.project.config.clock
    )
    counts: dict[str, int] = {}
    for golden in env.goldens.values():
        if golden.fired_skill == skill:
            for read in golden.volatile_reads:
                counts[read.key] = counts.get(read.key, 0) + 1

    def has_fixture(key: str) -> bool:
        path = resolve_key(world.data, key)
        return key in fixtures.facts and path is not None and fixtures.facts[key][0] != value_at(world.data, path)

    keys = sorted(counts, key=lambda k: (not has_fixture(k), -counts[k], k))
    kept: list[tuple[Edit, list[PairCheck]]] = []
    dropped: list[Dropped] = []
    position = 0
    for variant in range(1, D1_VARIANTS + 1):
        reasons: list[str] = []
        edit_id = f"{skill}.D1.{variant}"
        while position < len(keys):
            key = keys[position]
            position += 1
            path = resolve_key(world.data, key)
            if path is None:
                reasons.append(f"{key}: not found in the world")
                continue
            old = value_at(world.data, path)
            if has_fixture(key):
                new, source = fixtures.facts[key]
            else:
                new, source = moved_value(old), f"fixture: {key} (simulated)"
            if new is None or new == old:
                reasons.append(f"{key}: cannot move a {type(old).__name__} value")
                continue
            overlay = overlay_for(path, new)
            overlay_path = overlay_dir / f"{edit_id}-{digest(overlay)[:12]}.yaml"
            overlay_path.parent.mkdir(parents=True, exist_ok=True)
            overlay_path.write_text(yaml.safe_dump(overlay, sort_keys=True), encoding="utf-8")
            edited = with_blank_line(text, variant)
            checks = env.check(skill, edited, overlays=(overlay_path,))
            if not any(c.moved for c in checks):
                reasons.append(f"{key}: no replay read the moved value")
                continue
            edit = Edit(
                id=edit_id,
                skill=skill,
                type="D1",
                variant=variant,
                description=f"one blank line; world fact {key} moves {old!r} -> {new!r}",
                skill_md=edited,
                base_content_hash=env.skills[skill].content_hash,
                world_overlay=overlay,
                fixtures={"schema_version": 1, "facts": {key: {"value": new, "source": source}}},
                source="control",
            )
            kept.append((edit, checks))
            break
        else:
            dropped.append(
                Dropped(
                    edit_id=edit_id,
                    skill=skill,
                    type="D1",
                    variant=variant,
                    reasons=reasons or ["no volatile fact read by this skill's goldens is left to move"],
                )
            )
    return kept, dropped
