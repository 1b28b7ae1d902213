"""Traces and goldens: what one run of one task did, as reviewable JSON.

A golden is a trace that a human blessed; it lives in goldens/<skill>/<task>.json
(skill-free canaries under goldens/_none/).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StrictInt, ValidationError, field_validator

from ratchet.config.env import utc_instant
from ratchet.config.project import ToolProtocol
from ratchet.core.chat import USD, Usage
from ratchet.core.errors import GoldenError, validation_summary
from ratchet.core.gcpause import gc_paused
from ratchet.core.jsonio import (
    atomic_write_text,
    canonical_dumps,
    decode_utf8,
    load_json_text,
    read_utf8,
)
from ratchet.core.labels import __version__
from ratchet.goldens.faults import FaultKind, FaultSpec
from ratchet.goldens.final_state import FinalState as FinalState  # its model lives beside its computation
from ratchet.goldens.final_state import final_state_of

TRACE_SCHEMA_VERSION = 1
NO_SKILL_DIR = "_none"
NOISE_SUFFIX = ".noise.json"
"""A golden's noise record sits beside it as <task>.noise.json (ratchet.goldens.noise); it is not a golden."""
SCORE_SUFFIX = ".score.json"
"""A skill's mutation score sits beside its goldens as mutation.score.json (ratchet.goldens.mutation); not a golden."""
NOT_GOLDEN_SUFFIXES = (NOISE_SUFFIX, SCORE_SUFFIX)
"""What a .json beside the goldens that is no golden ends in (a task id holds no dot, so no golden does)."""

Effect = Literal["read", "write", "send", "spend", "destroy"]
SIDE_EFFECTS: frozenset[str] = frozenset({"write", "send", "spend", "destroy"})

Cost = Annotated[USD, Field(ge=0, allow_inf_nan=False)]
"""Money a trace records: finite and never negative (JSON's NaN and -Infinity are refused)."""
Millis = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class SkillRef(BaseModel):
    """A skill that fired, pinned by its hashes."""

    name: str
    content_hash: str
    substance_hash: str


class StateChange(BaseModel):
    """One change a mocked tool made to the world (nothing real happens)."""

    path: str = Field(description="Dotted path in the world, e.g. github.issues.acme/widgets#42.labels")
    before: Any = None
    after: Any = None


class ToolCall(BaseModel):
    """One mocked tool call with its arguments, declared effect and result."""

    index: int
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    effect: Effect
    result: Any = None
    error: str | None = None
    state_changes: list[StateChange] = Field(default_factory=list)
    fault: FaultKind | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The seeded fault this call met (ratchet.goldens.faults); after a timeout_after_commit the "
        "state changes happened and `result` is what the agent never saw. Left out of the JSON when none.",
    )


class ModelCall(BaseModel):
    """One model call made while running the task."""

    index: int
    tier: str
    model: str
    purpose: str
    request_digest: str
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    cost_usd: Cost = 0.0
    latency_ms: Millis = 0.0
    cache_hit: bool = False
    finish_reason: str = "stop"

    @property
    def usage(self) -> Usage:
        return Usage(
            tokens_in=self.tokens_in, tokens_out=self.tokens_out, tokens_cached=self.tokens_cached, usd=self.cost_usd
        )

    @classmethod
    def of(cls, *, usage: Usage, **fields: Any) -> ModelCall:
        """A model call record with its usage spread into the trace's flat fields."""
        return cls(
            tokens_in=usage.tokens_in,
            tokens_out=usage.tokens_out,
            tokens_cached=usage.tokens_cached,
            cost_usd=usage.usd,
            **fields,
        )


class HarnessRef(BaseModel):
    """The real agent harness a trace was run through (absent: Ratchet's minimal runner)."""

    name: str = Field(description="claude-code, codex or command")
    version: str = Field(default="", description="What the binary printed for --version.")
    sandbox: str = Field(
        default="",
        exclude_if=lambda value: not value,
        description='How the replay was confined: "bubblewrap", or "none" (process group only; why is the '
        'machine\'s, said by the run, never stored); "" before it was recorded.',
    )


class VolatileRead(BaseModel):
    """A volatile world fact (FX rate, latest version ...) read during the run, with its value."""

    key: str
    value: Any
    tool_call_index: int


class Trace(BaseModel):
    """One run of one task: routing, model calls, tool calls, output and cost."""

    schema_version: StrictInt = TRACE_SCHEMA_VERSION
    task_id: str
    prompt: str
    expected_skill: str | None = None
    skills_fired: list[SkillRef] = Field(default_factory=list)
    upstream: Literal["sim", "live"] = "sim"
    simulated: bool = True
    models: dict[str, str] = Field(default_factory=dict, description="tier -> model id")
    seed: int
    frozen_time: str = Field(description="ISO-8601 UTC time the clock was frozen at.")
    world_digest: str = ""
    model_calls: list[ModelCall] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    volatile_reads: list[VolatileRead] = Field(default_factory=list)
    final_output: str = ""
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    harness: HarnessRef | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Set when a real harness ran the task (left out of the JSON for the minimal runner).",
    )
    tool_protocol: ToolProtocol | Literal[""] = Field(
        default="",
        exclude_if=lambda value: not value,
        description="The agent tier's tool_protocol (native or text) the run used; empty (left out of the JSON) "
        "in traces recorded before it was kept, so their files stay byte-identical.",
    )
    ratchet_version: str = Field(
        default="",
        exclude_if=lambda value: not value,
        description="The Ratchet version that recorded or replayed it; empty (left out of the JSON) in older traces.",
    )
    tokens_in: int = Field(default=0, description="Totals over model_calls (see with_totals).")
    tokens_out: int = 0
    cost_usd: Cost = 0.0
    faults: list[FaultSpec] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="The faults declared for this run (the task's, then the world's), drawn for `fault_run`: a "
        "replay of this golden meets the same ones. Empty (left out of the JSON) when none were declared.",
    )
    fault_run: int = Field(
        default=0, ge=0, exclude_if=lambda value: value == 0, description="The run faults were drawn for."
    )
    final_state: FinalState | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="What the run left changed in the world (ratchet.goldens.final_state); absent when it changed "
        "nothing, and in traces recorded before it was kept (Level 0 computes it from state_changes then).",
    )
    thin: list[str] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="Why this golden shows no sign of its skill at work, when it was blessed anyway with "
        "--accept-thin (ratchet.bless.evidence); every verdict that replays it names it. Empty (left out of "
        "the JSON) otherwise.",
    )

    @field_validator("frozen_time")
    @classmethod
    def _utc_instant(cls, value: str) -> str:
        # Checked here, not where the agent's prompt reads it: "yesterday" must name the trace file.
        return utc_instant(value)

    @property
    def usage(self) -> Usage:
        """What every model call of the run used, summed."""
        return Usage.total(call.usage for call in self.model_calls)

    def with_totals(self) -> Trace:
        """This trace with its total fields set from its model calls (the one place they are summed) and its
        final state from its tool calls' state changes: every runner ends here, so every new trace has it."""
        usage = self.usage
        return self.model_copy(
            update={
                "tokens_in": usage.tokens_in,
                "tokens_out": usage.tokens_out,
                "cost_usd": usage.usd,
                "final_state": self._computed_final_state(),
            }
        )

    def _computed_final_state(self) -> FinalState | None:
        return final_state_of(change for call in self.tool_calls for change in call.state_changes)

    def final_state_or_computed(self) -> FinalState | None:
        """The final state this trace records, or, for one recorded before it was kept, the one its calls left."""
        return self.final_state if self.final_state is not None else self._computed_final_state()

    def stamped(self, *, tool_protocol: ToolProtocol) -> Trace:
        """This trace with the provenance a check compares (ratchet.gate.provenance) that its runner cannot know:
        the agent tier's tool protocol and this Ratchet's version. Filled where a trace is recorded or replayed."""
        return self.model_copy(update={"tool_protocol": tool_protocol, "ratchet_version": __version__})

    @property
    def fired_skill(self) -> str | None:
        return self.skills_fired[0].name if self.skills_fired else None

    def to_json(self) -> str:
        return canonical_dumps(self.model_dump(mode="json"))


def golden_relpath(trace: Trace) -> Path:
    """Where a trace's golden lives, relative to the goldens folder."""
    return Path(trace.fired_skill or NO_SKILL_DIR) / f"{trace.task_id}.json"


def write_trace(path: Path, trace: Trace) -> None:
    atomic_write_text(path, trace.to_json())


def parse_trace(text: str, *, source: str) -> Trace:
    """Parse trace JSON, upgrading old shapes; one-line GoldenError on anything malformed."""
    raw: Any = load_json_text(text, source=source, error=GoldenError)
    if not isinstance(raw, dict):
        raise GoldenError("a trace must be a JSON object", path=source)
    version = raw.get("schema_version")
    if type(version) is not int or version != TRACE_SCHEMA_VERSION:  # `true == 1`, but true is no version
        raise GoldenError(
            f"unsupported schema_version {version!r} (this Ratchet reads {TRACE_SCHEMA_VERSION})",
            path=source,
        )
    try:
        return Trace.model_validate(raw)
    except ValidationError as exc:
        raise GoldenError(f"invalid trace: {validation_summary(exc)}", path=source) from None


def read_trace(path: Path) -> Trace:
    return parse_trace(read_utf8(path, error=GoldenError), source=str(path))


def load_goldens(goldens_dir: Path) -> dict[str, Trace]:
    """All goldens under a folder, by task id (see load_golden_files)."""
    return {trace.task_id: trace for trace in load_golden_files(goldens_dir).values()}


def load_golden_files(goldens_dir: Path, contents: Mapping[Path, bytes] | None = None) -> dict[Path, Trace]:
    """All goldens under a folder, by the file each was read from (for messages that name it).

    `contents` (the bytes of every file under the folder, by path: check reads its base's goldens from
    git without writing them out) stands in for the folder on disk, under the same rules.

    Every .json under the folder must sit at <skill>/<task>.json: one anywhere else (directly in
    the folder, or a level deeper) would be silently never replayed, so it is a GoldenError. A
    golden is a blessed run, so one with status error is a GoldenError too (a pending trace may
    be an error; bless refuses it). With the cyclic collector paused (ratchet.core.gcpause): 10,000 goldens
    make no cycles, only full passes over everything loaded so far.
    """
    with gc_paused():
        return _load_golden_files(goldens_dir, contents)


def _parts(path: Path) -> tuple[str, ...]:
    return path.parts


def _load_golden_files(goldens_dir: Path, contents: Mapping[Path, bytes] | None) -> dict[Path, Trace]:
    goldens: dict[Path, Trace] = {}
    if contents is None and not goldens_dir.is_dir():
        return goldens
    seen: set[str] = set()
    found = goldens_dir.rglob("*.json") if contents is None else (p for p in contents if p.name.endswith(".json"))
    top, depth = goldens_dir.parts, len(goldens_dir.parts)
    # Sorted by parts, which is how a POSIX path compares (a key, not 76,000 calls of Path.__lt__ at 10,000 goldens).
    for path in sorted((p for p in found if not p.name.endswith(NOT_GOLDEN_SUFFIXES)), key=_parts):
        inner = path.parts[depth:] if path.parts[:depth] == top else path.relative_to(goldens_dir).parts
        if len(inner) != 2:
            raise GoldenError(
                f"a golden must be {goldens_dir.name}/<skill>/<task>.json; move it there or delete it", path=path
            )
        trace = (
            read_trace(path)
            if contents is None
            else parse_trace(decode_utf8(contents[path], path=path, error=GoldenError), source=str(path))
        )
        if trace.status != "ok":
            raise GoldenError(
                f"a golden must be a run with status ok, not {trace.status!r}: re-record the task "
                "and bless a run that succeeded",
                path=path,
            )
        if trace.task_id in seen:
            raise GoldenError(f"second golden for task {trace.task_id!r}", path=path)
        seen.add(trace.task_id)
        goldens[path] = trace
    return goldens
