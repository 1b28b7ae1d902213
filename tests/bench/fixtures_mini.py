"""A tiny SkillRegress-Bench dataset built from the two demo skills, so bench tests need no full build.

Seven tasks (three per skill and a canary), goldens recorded on the simulator, and six labeled
edits: two N0, one R1, one R3, one R4 and one D1 (a moved EUR rate with a search fixture).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import yaml

from ratchet.bench.data.models import Edit, Label, LabelsFile, Review, ReviewsFile, edit_hash
from ratchet.bench.run.run import RunOptions, RunSummary, run_config
from ratchet.bless.record import bless, record_tasks
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import load_project
from ratchet.core.jsonio import atomic_write_text, canonical_dumps
from ratchet.data import packaged_config
from ratchet.gate.context import CheckContext
from ratchet.gate.evaluate import evaluate_edit
from ratchet.gate.replay import Replayer
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import load_goldens
from ratchet.setup.demo import EDITS, _cosmetic
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import parse_skill_text

SOURCE = Path(__file__).resolve().parents[2]
SKILLS = ("github-triage", "fx-expense-converter")
TASKS = (
    "github-triage-01",
    "github-triage-02",
    "github-triage-03",
    "fx-expense-converter-01",
    "fx-expense-converter-02",
    "fx-expense-converter-03",
    "canary-01",
)


def _demo_apply(branch: str, text: str) -> str:
    return next(e for e in EDITS if e.branch == branch).apply(text)


def _copy(root: Path) -> None:
    for name in SKILLS:
        shutil.copytree(SOURCE / "skills" / name, root / "skills" / name)
    shutil.copytree(SOURCE / "bench" / "world", root / "world")
    shutil.copytree(SOURCE / "bench" / "workspaces", root / "workspaces")
    (root / "bench").mkdir()
    shutil.copytree(SOURCE / "bench" / "fixtures", root / "bench" / "fixtures")
    raw = yaml.safe_load((SOURCE / "bench" / "tasks.yaml").read_text(encoding="utf-8"))
    raw["tasks"] = [t for t in raw["tasks"] if t["id"] in TASKS]
    (root / "tasks.yaml").write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    (root / "ratchet.yaml").write_text(
        "schema_version: 1\nupstream: sim\npaths:\n  skills: skills\n  tasks: tasks.yaml\n"
        "  goldens: goldens\n  world: world\n  workspaces: workspaces\n",
        encoding="utf-8",
    )


def _d1_overlay(root: Path) -> tuple[dict[str, object], dict[str, object]]:
    world = yaml.safe_load((root / "world" / "fx.yaml").read_text(encoding="utf-8"))
    rates = {day: {"EUR": round(row["EUR"] + 0.0123, 4)} for day, row in world["fx"]["rates"].items()}
    facts = {f"fx.rates.{day}.EUR": {"value": row["EUR"], "source": "fixture: mini D1"} for day, row in rates.items()}
    return {"fx": {"rates": rates}}, {"schema_version": 1, "facts": facts}


def build_mini_dataset(root: Path) -> Path:
    """Write the mini dataset into `root` (new or empty); the simulator's work area is root/var/bench."""
    root.mkdir(parents=True, exist_ok=True)
    _copy(root)
    old = os.environ.get("RATCHET_UPSTREAM")
    os.environ["RATCHET_UPSTREAM"] = "sim"
    try:
        project = load_project(root, home=root / "var" / "bench")
        recorded = record_tasks(project)
        assert not recorded.errors, recorded.errors
        bless(project)
        texts = {s: (root / "skills" / s / "SKILL.md").read_text(encoding="utf-8") for s in SKILLS}
        overlay, fixtures = _d1_overlay(root)
        specs: list[tuple[str, str, str, str]] = [
            ("github-triage.N0.1", "github-triage", "N0", _cosmetic(texts["github-triage"])),
            ("fx-expense-converter.N0.1", "fx-expense-converter", "N0", _cosmetic(texts["fx-expense-converter"])),
            (
                "github-triage.R1.1",
                "github-triage",
                "R1",
                texts["github-triage"].replace(
                    '"priority/high" if any_of($text, ["crash", "data loss", "security"])',
                    '"priority/high" if any_of($text, ["data loss", "security"])',
                    1,
                ),
            ),
            ("github-triage.R3.1", "github-triage", "R3", _demo_apply("edit/changed-argument", texts["github-triage"])),
            (
                "fx-expense-converter.R4.1",
                "fx-expense-converter",
                "R4",
                _demo_apply("edit/new-side-effect", texts["fx-expense-converter"]),
            ),
            ("fx-expense-converter.D1.1", "fx-expense-converter", "D1", texts["fx-expense-converter"] + "\n"),
        ]
        tasks, goldens = load_tasks(root / "tasks.yaml"), load_goldens(root / "goldens")
        skills = load_skills(root / "skills")
        labels: list[Label] = []
        hashes: dict[str, str] = {}
        (root / "bench" / "edits").mkdir(parents=True)
        for edit_id, skill, kind, text in specs:
            assert text != texts[skill] or kind == "D1", edit_id
            edit = Edit(
                id=edit_id,
                skill=skill,
                type=kind,
                variant=1,
                description=f"mini {kind}",
                skill_md=text,  # type: ignore[arg-type]
                base_content_hash=skills[skill].content_hash,
                world_overlay=overlay if kind == "D1" else None,
                fixtures=fixtures if kind == "D1" else {},
                source="control" if kind in ("N0", "D1") else "template",
            )
            atomic_write_text(
                root / "bench" / "edits" / f"{edit_id}.json", canonical_dumps(edit.model_dump(mode="json"))
            )
            head = {**skills, skill: parse_skill_text(text, folder=root / "skills" / skill, source=edit_id)}
            overlays: tuple[Path, ...] = ()
            if kind == "D1":
                path = root / "var" / "label-overlay.yaml"
                path.write_text(yaml.safe_dump(overlay), encoding="utf-8")
                overlays = (path,)
            from ratchet.sim.models import sim_model_for

            replays = Replayer(
                project,
                tree=root,
                head_skills=head,
                base_skills=skills,
                agent=sim_model_for("agent"),
                overlays=overlays,
            )
            run = CheckContext(config=resolve_gate_config("level0_only"))
            found = evaluate_edit(run, replays, changed=[skill], tasks=tasks, goldens=goldens)
            differing = "drift" if kind == "D1" else "regression"
            pairs = {p.task_id: ("same" if p.outcome == "same" else differing) for p in found.verdict.pairs}
            if kind.startswith("R"):
                assert differing in pairs.values(), f"{edit_id} does not manifest"
            labels.append(
                Label(
                    edit_id=edit_id,
                    type=kind,
                    skill=skill,  # type: ignore[arg-type]
                    affected_goldens=sorted(t for t, o in pairs.items() if o != "same"),
                    expected_decision="BLOCK" if kind.startswith("R") else "PASS",
                    expected_pairs=pairs,
                    review_required=kind in ("N0", "D1") or edit_id.endswith("R3.1"),
                    edit_hash=edit_hash(edit),
                )
            )
            hashes[edit_id] = edit_hash(edit)
        (root / "labels").mkdir()
        atomic_write_text(
            root / "labels" / "labels.json", canonical_dumps(LabelsFile(labels=labels).model_dump(mode="json"))
        )
        reviews = ReviewsFile(
            reviews=[
                Review(
                    edit_id="github-triage.N0.1",
                    edit_hash=hashes["github-triage.N0.1"],
                    verdict="agree",
                    reviewer="mini",
                )
            ]
        )
        atomic_write_text(root / "labels" / "reviews.json", canonical_dumps(reviews.model_dump(mode="json")))
        shutil.rmtree(root / "var")
    finally:
        if old is None:
            os.environ.pop("RATCHET_UPSTREAM", None)
        else:
            os.environ["RATCHET_UPSTREAM"] = old
    return root


if __name__ == "__main__":
    import sys

    print(build_mini_dataset(Path(sys.argv[1])))


def mini_copy(template: Path, dest: Path) -> Path:
    """A fresh copy of a built mini dataset (building takes seconds; copying milliseconds)."""
    shutil.copytree(template, dest, symlinks=True)
    return dest


def run_packaged(root: Path, config: str, out: Path, **options: object) -> RunSummary:
    """`bench run --config <packaged config>` on `root` into `out`, with RunOptions fields as keywords."""
    opts = RunOptions(config_path=packaged_config(config), out=out, root=root, command=f"test {config}")
    for key, value in options.items():
        setattr(opts, key, value)
    return run_config(opts)
