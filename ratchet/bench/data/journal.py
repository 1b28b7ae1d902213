"""The bench journal: each scored item written durably as it finishes, the record a killed run resumes from.

`<out>/.journal/<config>/` holds the configuration's header (`.run.json`) and one file per item;
`merge_journal` folds them into results (ratchet.bench.data.results), which is written once, at the end
of a run, or on demand by `bench report`. Split from results.py, which keeps the file models.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from ratchet.bench.data.models import BENCH_SCHEMA_VERSION
from ratchet.bench.data.results import (
    BenchConfigRun,
    BenchResults,
    DatasetInfo,
    DiffClassifierRun,
    NoiseGolden,
    ScoredEdit,
    Timings,
)
from ratchet.core.errors import InputError
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, load_json_file

JOURNAL_DIR = ".journal"
JOURNAL_RUN = ".run.json"
"""A configuration's journaled header: a dot name, so no item id can be it."""


class JournalRun(BaseModel):
    """What a configuration's journal holds besides its items: enough to rebuild its results without
    results.json (the run's header with no items, and the dataset it ran on)."""

    schema_version: int = BENCH_SCHEMA_VERSION
    kind: Literal["run"] = "run"
    dataset_digest: str
    dataset: DatasetInfo
    diff_classifier: DiffClassifierRun | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The behavioural diff's classifier measured as the run started (ratchet.bench.report.diffs).",
    )
    run: BenchConfigRun = Field(description="The configuration's run as it started, its edits and noise left out.")


def journal_run(out: Path, results: BenchResults, run: BenchConfigRun) -> None:
    """The run's header, journaled as the run starts: the journal alone then rebuilds what finished."""
    header = JournalRun(
        dataset_digest=results.dataset_digest,
        dataset=results.dataset,
        diff_classifier=results.diff_classifier,
        run=run.model_copy(update={"edits": {}, "noise": {}}),
    )
    atomic_write_text(out / JOURNAL_DIR / run.config / JOURNAL_RUN, canonical_dumps(header.model_dump(mode="json")))


def journal_item(out: Path, config: str, item: ScoredEdit | NoiseGolden, wall_ms: float | None = None) -> None:
    """One finished edit (or E6 golden) and its wall time, durable on its own: the run's record until
    results.json is written at its end."""
    item_id = item.edit_id if isinstance(item, ScoredEdit) else item.task_id
    kind = "edit" if isinstance(item, ScoredEdit) else "noise"
    path = out / JOURNAL_DIR / config / f"{item_id}.json"
    record: dict[str, object] = {"kind": kind, "item": item.model_dump(mode="json")}
    if wall_ms is not None:
        record["wall_ms"] = wall_ms
    # Compact: only json's C encoder writes without indentation, and nobody reads a journal but merge_journal.
    atomic_write_text(path, canonical_dumps(record, indent=None))


def has_journal(out: Path) -> bool:
    """Whether `out` holds journaled items or headers that results.json may not have yet."""
    root = out / JOURNAL_DIR
    return root.is_dir() and any(folder.is_dir() and any(folder.iterdir()) for folder in root.iterdir())


def _journal_header(config_dir: Path, results: BenchResults) -> BenchConfigRun | None:
    """A run missing from results rebuilt from its journaled header (None when there is no good one)."""
    try:
        header = JournalRun.model_validate(load_json_file(config_dir / JOURNAL_RUN, error=InputError))
    except (InputError, ValidationError):
        return None
    if header.run.config != config_dir.name or header.schema_version != BENCH_SCHEMA_VERSION:
        return None
    if not results.dataset_digest:
        results.dataset_digest, results.dataset = header.dataset_digest, header.dataset
    if results.diff_classifier is None:
        results.diff_classifier = header.diff_classifier
    return header.run


def merge_journal(out: Path, results: BenchResults, timings: Timings | None = None) -> int:
    """Fold journaled items that results.json does not hold yet into results (and their wall times into
    `timings`, where it has none); how many were folded. A run that results.json lacks altogether
    comes back from its journaled header."""
    folded = 0
    root = out / JOURNAL_DIR
    for config_dir in sorted(root.iterdir()) if root.is_dir() else []:
        run = results.runs.get(config_dir.name)
        if run is None and (run := _journal_header(config_dir, results)) is not None:
            results.runs[config_dir.name] = run
        if run is None:
            continue
        for path in sorted(config_dir.glob("*.json")):
            if path.name == JOURNAL_RUN:
                continue
            try:
                raw = load_json_file(path, error=InputError)
                if raw["kind"] == "edit":
                    edit = ScoredEdit.model_validate(raw["item"])
                    folded += edit.edit_id not in run.edits
                    run.edits[edit.edit_id] = edit
                    item_id = edit.edit_id
                else:
                    golden = NoiseGolden.model_validate(raw["item"])
                    folded += golden.task_id not in run.noise
                    run.noise[golden.task_id] = golden
                    item_id = golden.task_id
            except (InputError, ValueError, KeyError, TypeError):
                continue  # a torn or malformed journal entry is redone, never trusted
            if timings is not None and isinstance(raw.get("wall_ms"), int | float):
                timings.wall_ms.setdefault(run.config, {}).setdefault(item_id, float(raw["wall_ms"]))
    return folded


def clear_journal(out: Path, config: str) -> None:
    """Drop a configuration's journal once results.json holds everything in it."""
    folder = out / JOURNAL_DIR / config
    for path in folder.glob("*") if folder.is_dir() else []:
        path.unlink(missing_ok=True)
    if folder.is_dir():
        folder.rmdir()
