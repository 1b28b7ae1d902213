"""The behavioural diff of each bench edit (ratchet.diff), and its classifier measured on the dataset.

Each bench edit replaces one SKILL.md. Its diff is read as `ratchet check` reads a changed skill
folder (the project's harness; the shipped tools and the world's declared ones for effects) and goes
to evaluate_edit, so the judges of a bench run get the `skill_diff` section a check's judges get.

The same diffs, and the free-form corpus (bench/diff-corpus under the project root), are
scored by ratchet.diff.measure and kept in results.json (`diff_classifier`) for the report: a
deterministic reader's agreement with the edits' labels and the corpus's expected findings. No model
is involved, so the figures are the same on the simulator and live.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from ratchet.bench.build.benchdata import BenchData
from ratchet.bench.data.models import Edit
from ratchet.bench.data.results import DiffClassifierRun
from ratchet.diff.effects import ToolCatalog, tool_catalog
from ratchet.diff.folder import diff_skill_folder
from ratchet.diff.measure import LabelledEdit, Outcome, read_corpus
from ratchet.diff.models import EditDiff
from ratchet.diff.scripts import Analysers
from ratchet.repo.scratch import scratch_folder
from ratchet.skills.discovery import SKILL_FILE
from ratchet.world.tools.declared import load_declared_tools

CORPUS_DIR = "bench/diff-corpus"
"""The free-form corpus, relative to the bench's project root (Ratchet's own repository)."""


def edit_labels(edit: Edit) -> tuple[str, str]:
    """The base and head names a bench verdict carries (and so the edit's EditDiff)."""
    return f"{edit.skill}@{edit.base_content_hash[:12]}", edit.id


def _catalog(data: BenchData) -> ToolCatalog:
    return tool_catalog(load_declared_tools(data.project.path("world")))


def _edit_diff(data: BenchData, edit: Edit, catalog: ToolCatalog, analysers: Analysers, scratch: Path) -> EditDiff:
    config = data.project.config
    folder = posixpath.join(posixpath.normpath(config.paths.skills), edit.skill)
    path = f"{folder}/{SKILL_FILE}"
    skill = diff_skill_folder(
        skill=edit.skill,
        folder=folder,
        base={path: data.skill_texts.get(edit.skill, "").encode()},
        head={path: edit.skill_md.encode()},
        harness=config.harness.name,
        catalog=catalog,
        analysers=analysers,
        scratch=scratch / edit.id,
    )
    base, head = edit_labels(edit)
    return EditDiff(base=base, head=head, harness=config.harness.name, skills=[skill])


def bench_diffs(data: BenchData) -> tuple[dict[str, EditDiff], DiffClassifierRun]:
    """Every labeled edit's EditDiff (by edit id), and the classifier scored on them and on the corpus.

    Deterministic: the same dataset, corpus, Ratchet and analysers give the same diffs and outcomes.
    """
    catalog, analysers = _catalog(data), Analysers.installed()
    ids = sorted(edit_id for edit_id in data.edits if edit_id in data.labels)
    corpus_dir = data.project.root / CORPUS_DIR
    with scratch_folder(data.project.home) as scratch:
        diffs = {edit_id: _edit_diff(data, data.edits[edit_id], catalog, analysers, scratch) for edit_id in ids}
        corpus = read_corpus(corpus_dir) if corpus_dir.is_dir() else []
        corpus_outcomes = [
            Outcome.of(edit, edit.diff(catalog=catalog, analysers=analysers, scratch=scratch / edit.id))
            for edit in corpus
        ]
    bench = [_bench_outcome(data, edit_id, diffs[edit_id]) for edit_id in ids]
    return diffs, DiffClassifierRun(
        corpus_dir=CORPUS_DIR if corpus_dir.is_dir() else "",
        analysers=_analyser_names(analysers),
        corpus=corpus_outcomes,
        bench=bench,
    )


def _bench_outcome(data: BenchData, edit_id: str, diff: EditDiff) -> Outcome:
    """What the classifier said of one bench edit, scored by its (effective) label's type."""
    edit = data.edits[edit_id]
    labelled = LabelledEdit(
        id=edit_id,
        group=data.labels[edit_id].type,
        base={SKILL_FILE: data.skill_texts.get(edit.skill, "")},
        head={SKILL_FILE: edit.skill_md},
        expected=[],
    )
    return Outcome.of(labelled, diff.skills[0])


def _analyser_names(analysers: Analysers) -> list[str]:
    """The analysers that read the corpus's scripts (a missing one makes its findings analyser_unavailable)."""
    return [name for name, found in (("bandit", analysers.bandit), ("shellcheck", analysers.shellcheck)) if found]
