"""The dataset a bench run reads: project, tasks, goldens, skills, edits and effective labels.

Split out of ratchet.bench.run.run (`ratchet bench run`); ratchet.bench.data.dataset is the build side that writes these files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ratchet.bench.build.labels import current_review, effective_labels
from ratchet.bench.data.dataset import DEFAULT_WORK, BenchPaths, read_edits, read_labels, read_reviews
from ratchet.bench.data.digest import dataset_digest
from ratchet.bench.data.models import Edit, Label
from ratchet.bench.data.results import DatasetInfo
from ratchet.config.project import Project, RatchetConfig
from ratchet.core.errors import InputError
from ratchet.goldens.tasks import Task, load_tasks
from ratchet.goldens.trace import Trace, load_goldens
from ratchet.llm.pricing import tier_price
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill

DATED_DIR = re.compile(r"^\d{4}-\d{2}-\d{2}")  # a results directory named for its date (live runs)


@dataclass
class BenchData:
    """The dataset a run reads: the project (skills, tasks, goldens, world), edits and effective labels."""

    project: Project
    tasks: list[Task]
    goldens: dict[str, Trace]
    base_skills: dict[str, Skill]
    skill_texts: dict[str, str]
    edits: dict[str, Edit]
    labels: dict[str, Label]
    digest: str
    info: DatasetInfo


def _git_sha(root: Path) -> str:
    try:
        import git

        return str(git.Repo(root, search_parent_directories=True).head.commit.hexsha)
    except Exception:  # not a repository, no commit yet: the header says so
        return "unknown"


def load_bench_data(root: Path, *, home: Path | None = None, results_dir: Path | None = None) -> BenchData:
    """Read the dataset under `root` (its ratchet.yaml; bench edits in bench/edits/, labels in labels/)."""
    paths = BenchPaths.at(root, home=home or root / DEFAULT_WORK)
    project = paths.project
    labels_file = read_labels(paths.labels)
    if labels_file is None:
        raise InputError("no labels: run `ratchet bench build` (or `ratchet bench smoke`) first", path=paths.labels)
    reviews = read_reviews(paths.reviews)
    edits = read_edits(paths.edits)
    labels = {k: v for k, v in effective_labels(labels_file.labels, reviews.reviews).items() if k in edits}
    skills = load_skills(project.path("skills"))
    texts = {name: (Path(s.folder) / "SKILL.md").read_text(encoding="utf-8") for name, s in skills.items()}
    counts: dict[str, int] = {}
    for label in labels.values():
        counts[label.type] = counts.get(label.type, 0) + 1
    required = {label.edit_id for label in labels.values() if label.review_required}
    by_edit = {review.edit_id: review for review in reviews.reviews}
    reviewed = {i for i in required if current_review(labels[i], by_edit) is not None}
    folder = results_dir.resolve().name if results_dir is not None else ""
    info = DatasetInfo(
        harness=f"MinimalRunner (ratchet.agent.runner), mocked tools, clock frozen at {project.config.clock}",
        git_sha=_git_sha(project.root),
        date=folder[:10] if DATED_DIR.match(folder) else project.config.clock[:10],
        labels_file=paths.rel(paths.labels),
        label_counts=dict(sorted(counts.items())),
        reviews_required=len(required),
        reviews_done=len(reviewed),
        prices={tier: _price_pair(project.config, tier) for tier in sorted(project.config.tiers)},
    )
    digest = dataset_digest(paths)
    return BenchData(
        project=project,
        tasks=load_tasks(project.path("tasks")),
        goldens=load_goldens(project.path("goldens")),
        base_skills=dict(skills),
        skill_texts=texts,
        edits=edits,
        labels=labels,
        digest=digest,
        info=info,
    )


def _price_pair(config: RatchetConfig, tier: str) -> list[float]:
    """[input, output] USD per token of a tier (catalog), [0, 0] when unpriced: the report header."""
    price = tier_price(config, tier)
    return [price.input, price.output] if price is not None else [0.0, 0.0]
