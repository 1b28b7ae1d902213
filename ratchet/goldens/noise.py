"""Noise records: how a golden's own replays vary, measured once when it is blessed.

A golden is one run of a task; a real agent is not deterministic, so replaying the unchanged
skill does not always give the golden back. `ratchet bless --repeats N` (or `ratchet noise`)
replays each golden N times under its unchanged skill and keeps what varied, next to the
golden, in goldens/<skill>/<task>.noise.json: how many of the N differed at all (the golden's
flip rate) and, per part (an output line, an added line, a tool call, an argument, routing),
how many repeats it varied in. Level 0, the judges and the statistical BLOCK read it
(ratchet.gate.variation, ratchet.gate.repeats). The record is pinned to the golden it was
measured against: re-blessing the golden makes it stale, and a stale record is not used.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from ratchet.core.errors import GoldenError, validation_summary
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, decode_utf8, load_json_text
from ratchet.goldens.trace import NOISE_SUFFIX, Trace

NOISE_SCHEMA_VERSION = 1


class NoiseRecord(BaseModel):
    """What varied when one golden's unchanged skill was replayed `repeats` times."""

    schema_version: int = NOISE_SCHEMA_VERSION
    task_id: str
    golden_hash: str = Field(description="golden_hash() of the golden it was measured against.")
    agent: str = Field(description="The agent model the repeats ran on.")
    simulated: bool
    repeats: int = Field(ge=1, description="Repeats that ran to the end (failed ones are counted in `errors`).")
    differed: int = Field(ge=0, description="Repeats that differed from the golden in anything Level 0 compares.")
    errors: int = Field(default=0, ge=0, description="Repeats that failed and were left out.")
    varying: dict[str, int] = Field(
        default_factory=dict, description="Part that varied (ratchet.gate.variation keys) -> repeats it varied in."
    )
    runs: list[list[str]] = Field(default_factory=list, description="Per repeat, in seed order: the parts that varied.")
    seen_elsewhere: list[str] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="Never written by a measurement: filled when records are read for gating (share_within_skills) "
        "with parts that varied in other goldens of the same skill.",
    )

    @property
    def flip_rate(self) -> float:
        return self.differed / self.repeats

    @property
    def known_to_vary(self) -> bool:
        """Whether this golden, or another of its skill, was seen to vary at all."""
        return self.differed > 0 or bool(self.seen_elsewhere)

    def covers(self, parts: list[str]) -> bool:
        """Whether every one of `parts` is known to vary, here or in another golden of the skill (at least one part)."""
        known = set(self.varying) | set(self.seen_elsewhere)
        return bool(parts) and all(part in known for part in parts)

    def to_json(self) -> str:
        return canonical_dumps(self.model_dump(mode="json"))


def share_within_skills(records: Mapping[str, NoiseRecord], goldens: Mapping[str, Trace]) -> dict[str, NoiseRecord]:
    """Each record with what varied in the other goldens of its skill (`seen_elsewhere`).

    Noise comes from the agent running the skill, not from one task: a closing line the agent adds on
    one task of a skill it may add on another, and a skill's framing lines are the same in all its
    goldens. A part another golden of the skill saw vary counts as known here too; a golden's flip
    rate, what the exact test compares against, stays its own.
    """
    by_skill: dict[str | None, set[str]] = {}
    for task_id, record in records.items():
        golden = goldens.get(task_id)
        if golden is not None:
            by_skill.setdefault(golden.fired_skill, set()).update(record.varying)
    shared: dict[str, NoiseRecord] = {}
    for task_id, record in records.items():
        golden = goldens.get(task_id)
        others = by_skill.get(golden.fired_skill, set()) if golden is not None else set()
        elsewhere = sorted(others - set(record.varying))
        shared[task_id] = record.model_copy(update={"seen_elsewhere": elsewhere}) if elsewhere else record
    return shared


def golden_hash(golden: Trace) -> str:
    """sha256 of the golden's canonical JSON: what a noise record is pinned to."""
    return hashlib.sha256(canonical_dumps(golden.model_dump(mode="json"), indent=None).encode()).hexdigest()


def is_noise_file(path: Path) -> bool:
    return path.name.endswith(NOISE_SUFFIX)


def noise_path(golden_path: Path) -> Path:
    """goldens/<skill>/<task>.json -> goldens/<skill>/<task>.noise.json."""
    return golden_path.with_name(golden_path.name.removesuffix(".json") + NOISE_SUFFIX)


def parse_noise_record(text: str, *, source: str) -> NoiseRecord:
    raw = load_json_text(text, source=source, error=GoldenError)
    if not isinstance(raw, dict) or raw.get("schema_version") != NOISE_SCHEMA_VERSION:
        version = raw.get("schema_version") if isinstance(raw, dict) else None
        raise GoldenError(
            f"unsupported noise record schema_version {version!r} (this Ratchet reads {NOISE_SCHEMA_VERSION})",
            path=source,
        )
    try:
        record = NoiseRecord.model_validate(raw)
    except ValidationError as exc:
        raise GoldenError(validation_summary(exc), path=source) from None
    if record.differed > record.repeats or len(record.runs) not in (0, record.repeats):
        raise GoldenError(
            f"noise record counts disagree: {record.differed} differed of {record.repeats} repeats, "
            f"{len(record.runs)} runs listed",
            path=source,
        )
    return record


def write_noise_record(path: Path, record: NoiseRecord) -> None:
    atomic_write_text(path, record.to_json())


def load_noise_records(
    goldens: Mapping[Path, Trace], contents: Mapping[Path, bytes] | None = None
) -> dict[str, NoiseRecord]:
    """The current noise record of each golden, by task id; a missing or stale one is left out.

    `goldens` maps golden files to their traces (trace.load_golden_files); `contents` stands in for
    the disk as it does there (check reads the base's goldens from git).
    """
    records: dict[str, NoiseRecord] = {}
    for path, golden in goldens.items():
        where = noise_path(path)
        if contents is not None:
            data = contents.get(where)
            if data is None:
                continue
            text = decode_utf8(data, path=where, error=GoldenError)
        elif where.is_file():
            text = where.read_text(encoding="utf-8")
        else:
            continue
        record = parse_noise_record(text, source=str(where))
        if record.task_id == golden.task_id and record.golden_hash == golden_hash(golden):
            records[golden.task_id] = record
    return records
