"""The benchmark's audit: replays that prove the data says what it claims.

1. The unchanged skills replay every task to its golden (a hand-edited or stale golden fails).
2. Every kept R edit manifests: a labeled affected golden diverges at Level 0.
3. Every N0 and F0 edit leaves every golden unchanged.
4. Every D1 edit moves at least one replay (its fact is read).
5. Generation is deterministic: template and control edits regenerate byte-identically.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import yaml

from ratchet.bench.build.controls import f0_candidates_for, n0_candidates, with_blank_line
from ratchet.bench.build.inject import MAX_TRIES, R_VARIANTS, TemplateProposer
from ratchet.bench.build.replays import ReplayEnv
from ratchet.bench.build.scratch_repo import scratch_repo
from ratchet.bench.data.dataset import DEFAULT_WORK, BenchPaths, read_edits, read_labels
from ratchet.bench.data.models import REGRESSION_TYPES, Edit
from ratchet.core.errors import GoldenError, InputError
from ratchet.gate.level0 import level0_findings
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import golden_relpath, load_goldens
from ratchet.llm.gateway import Gateway
from ratchet.llm.preflight import preflight_config
from ratchet.sim.models import SIMULATOR
from ratchet.skills.sets import load_skills
from ratchet.store.db import open_store

Report = Callable[[str], None]


def _check_goldens(env: ReplayEnv, paths: BenchPaths, report: Report) -> None:
    for task in env.tasks:
        golden = env.goldens.get(task.id)
        if golden is None:
            raise GoldenError(f"no golden for task {task.id}: run `ratchet bench build`", path=paths.rel(paths.goldens))
        where = f"{paths.rel(paths.goldens)}/{golden_relpath(golden).as_posix()}"
        if not (paths.goldens / golden_relpath(golden)).is_file():
            raise GoldenError(
                f"golden of {task.id} is filed under the wrong skill folder (it fired {golden.fired_skill or 'no skill'})",
                path=paths.rel(paths.goldens),
            )
        replay = env.replay(task, golden, env.skills)
        findings = level0_findings(golden, replay)
        if findings:
            raise GoldenError(
                f"golden does not match its replay under the unchanged skills ({findings[0].detail}); "
                "it was edited by hand or the data changed: rebuild with `ratchet bench build`",
                path=where,
            )
    known = {t.id for t in env.tasks}
    for task_id in env.goldens:
        if task_id not in known:
            raise GoldenError(
                f"golden for task {task_id!r}, which is not in {paths.rel(paths.tasks)}", path=paths.rel(paths.goldens)
            )
    report(f"audit: {len(env.tasks)} task(s) replay to their goldens under the unchanged skills")


def _regenerated(env: ReplayEnv, edits: dict[str, Edit]) -> list[str]:
    """Ids of template/control edits that do not regenerate byte-identically."""
    bad: list[str] = []
    proposer = TemplateProposer(env.inject_context)
    for skill in sorted(env.skills):
        text = (env.project.path("skills") / skill / "SKILL.md").read_text(encoding="utf-8")
        for edit_type in REGRESSION_TYPES:
            for variant in range(1, R_VARIANTS + 1):
                edit = edits.get(f"{skill}.{edit_type}.{variant}")
                tries = edit.tries if edit is not None and edit.source == "template" else MAX_TRIES
                last = None
                for attempt in range(1, tries + 1):
                    candidate = proposer(skill, text, edit_type, variant, attempt, "")
                    if candidate is None:
                        break
                    last = candidate
                if edit is not None and edit.source == "template" and (last is None or last.skill_md != edit.skill_md):
                    bad.append(edit.id)
    for edit in edits.values():
        if edit.type in ("N0", "F0"):
            text = (env.project.path("skills") / edit.skill / "SKILL.md").read_text(encoding="utf-8")
            found = (
                n0_candidates(text, edit.variant)
                if edit.type == "N0"
                else f0_candidates_for(text, env.inject_context(edit.skill).tools, edit.variant)
            )
            if edit.skill_md not in [c[0] for c in found]:
                bad.append(edit.id)
        elif edit.type == "D1":
            text = (env.project.path("skills") / edit.skill / "SKILL.md").read_text(encoding="utf-8")
            if edit.skill_md != with_blank_line(text, edit.variant):
                bad.append(edit.id)
    return bad


def audit_bench(paths: BenchPaths, *, work: Path | None = None, report: Report = lambda _l: None) -> None:
    """Run the audit over a scratch copy of the project; GoldenError/InputError on the first failure."""
    work = (work or paths.root / DEFAULT_WORK).resolve()
    preflight_config(paths.project.config, ["agent"])  # the audit replays goldens: its one tier, checked first
    project = scratch_repo(paths, work / "audit-repo", work / "home", with_goldens=True)
    edits = read_edits(paths.edits)
    with (
        closing(open_store(project.home)) as store,
        Gateway(
            project, store, simulator=SIMULATOR, run_id=f"bench-audit-{uuid.uuid4().hex[:12]}", cache_mode="once"
        ) as gateway,
    ):
        env = ReplayEnv(
            project,
            load_tasks(project.path("tasks")),
            load_goldens(project.path("goldens")),
            load_skills(project.path("skills")),
            gateway.model("agent", "replay"),
        )
        if not env.goldens:
            report("audit: no goldens yet (run `ratchet bench build`); replay audit skipped")
            return
        _check_goldens(env, paths, report)
        labels_file = read_labels(paths.labels)
        labels = {lb.edit_id: lb for lb in labels_file.labels} if labels_file is not None else {}
        counts = {"R": 0, "N0": 0, "F0": 0, "D1": 0}
        overlay_dir = work / "overlays"
        for edit in edits.values():
            where = f"{paths.rel(paths.edits)}/{edit.id}.json"
            if edit.type in REGRESSION_TYPES:
                label = labels.get(edit.id)
                only = label.affected_goldens[:1] if label is not None and label.affected_goldens else None
                checks = env.check(edit.skill, edit.skill_md, only=only)
                if not any(c.diverged for c in checks):
                    raise InputError("kept regression does not manifest: no affected golden diverges", path=where)
                counts["R"] += 1
            elif edit.type in ("N0", "F0"):
                checks = env.check(edit.skill, edit.skill_md)
                moved = [c for c in checks if c.moved]
                if moved:
                    raise InputError(f"cosmetic edit changes golden {moved[0].task_id} ({moved[0].detail})", path=where)
                counts[edit.type] += 1
            elif edit.type == "D1" and edit.world_overlay is not None:
                overlay = overlay_dir / f"audit-{edit.id}.yaml"
                overlay.parent.mkdir(parents=True, exist_ok=True)
                overlay.write_text(yaml.safe_dump(edit.world_overlay, sort_keys=True), encoding="utf-8")
                env._worlds.clear()  # the overlay file is rewritten per edit
                checks = env.check(edit.skill, edit.skill_md, overlays=(overlay,))
                if not any(c.moved for c in checks):
                    raise InputError("drift control moves no replay: its fact is not read", path=where)
                counts["D1"] += 1
        report(
            f"audit: {counts['R']} R edit(s) manifest, {counts['N0']} N0 leave every golden unchanged (so do "
            f"{counts['F0']} F0), {counts['D1']} D1 move a replay"
        )
        bad = _regenerated(env, edits)
        if bad:
            raise InputError(
                f"generation is not deterministic: {', '.join(bad[:5])} regenerate differently",
                path=paths.rel(paths.edits),
            )
        report(f"audit: {len(edits)} edit(s) regenerate identically")
