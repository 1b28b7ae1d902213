"""The dataset digest: one sha256 over the shipped skills, tasks, trigger queries, world, workspaces, fixtures and
labels.

Labels pin every edit by its hash, so the digest covers the edits too. Each release records
its digest in bench/DIGESTS.json, so `ratchet==X.Y.Z` names exact data.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, Field

from ratchet.bench.data.dataset import BenchPaths
from ratchet.core.errors import InputError
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, digest
from ratchet.core.labels import __version__
from ratchet.goldens.trace import NOT_GOLDEN_SUFFIXES
from ratchet.goldens.triggers import TRIGGERS_FILE

DIGESTS_SCHEMA_VERSION = 1


def _files(base: Path) -> list[Path]:
    if base.is_file():
        return [base]
    if not base.is_dir():
        return []
    return sorted(
        p
        for p in base.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(base).parts)
    )


def digest_parts(paths: BenchPaths) -> dict[str, str]:
    """sha256 of each file that makes up the dataset, by its path relative to the project root."""
    parts: dict[str, str] = {}
    triggers = paths.tasks.parent / TRIGGERS_FILE  # the bench's trigger queries decide R5/R6 edits too
    for base in (paths.skills, paths.tasks, triggers, paths.world, paths.workspaces, paths.fixtures, paths.labels):
        for file in _files(base):
            parts[paths.rel(file)] = hashlib.sha256(file.read_bytes()).hexdigest()
    return parts


def dataset_digest(paths: BenchPaths) -> str:
    return digest(digest_parts(paths))


def state_hash(paths: BenchPaths) -> str:
    """sha256 over every generated edit and the labels: equal builds give equal state hashes."""
    parts = {paths.rel(f): hashlib.sha256(f.read_bytes()).hexdigest() for f in _files(paths.edits)}
    parts.update({paths.rel(f): hashlib.sha256(f.read_bytes()).hexdigest() for f in _files(paths.labels)})
    return digest(parts)


class Release(BaseModel):
    digest: str
    edits: int = 0
    goldens: int = 0


class DigestsFile(BaseModel):
    schema_version: int = DIGESTS_SCHEMA_VERSION
    releases: dict[str, Release] = Field(default_factory=dict)


def read_digests(path: Path) -> DigestsFile:
    if not path.exists():
        return DigestsFile()
    try:
        return DigestsFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, ValueError) as exc:
        raise InputError(f"not a digests file: {str(exc).splitlines()[0]}", path=path) from None


def record_digest(paths: BenchPaths, *, version: str = __version__) -> Release:
    """Record this release's digest in bench/DIGESTS.json (replacing the entry of the same version)."""
    record = read_digests(paths.digests)
    edits = len(_files(paths.edits))
    found = paths.goldens.glob("*/*.json") if paths.goldens.is_dir() else ()
    goldens = sum(1 for path in found if not path.name.endswith(NOT_GOLDEN_SUFFIXES))  # no noise record or score
    release = Release(digest=dataset_digest(paths), edits=edits, goldens=goldens)
    record.releases[version] = release
    atomic_write_text(paths.digests, canonical_dumps(record.model_dump(mode="json")))
    return release
