"""The `--record` and `--volatile` files: one JSON object per line, flushed per call.

`--record` holds one ToolCall (ratchet/goldens/trace.py's own model) per line, `--volatile` one
VolatileRead per volatile world fact a call read: together they are what the minimal runner
puts in a trace's `tool_calls` and `volatile_reads`, so a harness adapter builds the same Trace.

Why per call: the harness owns the server's lifetime and may kill it at any moment (a timeout, a
crash); a call it was already answered must be on disk by then, so the lines are written and
flushed before the answer goes back. The files are truncated when the server starts: one server
process is one replay, and its indices start at 0 like a trace's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from pydantic import BaseModel, TypeAdapter

from ratchet.core.errors import InputError
from ratchet.core.jsonio import canonical_dumps
from ratchet.goldens.trace import ToolCall, VolatileRead

_CALLS = TypeAdapter(ToolCall)
_READS = TypeAdapter(VolatileRead)


class LineRecorder:
    """Appends pydantic models to an open JSONL file, one flushed line each; `None` path records nothing.

    `what` names the file in the error when it cannot be opened ("record", "volatile").
    """

    def __init__(self, path: Path | None, *, what: str = "record") -> None:
        self._handle: TextIO | None = None
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._handle = path.open("w", encoding="utf-8", newline="\n")
            except OSError as exc:
                raise InputError(f"cannot write the {what} file: {exc.strerror}", path=path) from None

    def write(self, item: BaseModel) -> None:
        if self._handle is not None:
            self._handle.write(canonical_dumps(item.model_dump(mode="json"), indent=None) + "\n")
            self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


class CallRecorder(LineRecorder):
    """The `--record` file: one ToolCall per line."""

    def __init__(self, path: Path | None) -> None:
        super().__init__(path, what="record")


class VolatileRecorder(LineRecorder):
    """The `--volatile` file: one VolatileRead per line, in the order the world saw them."""

    def __init__(self, path: Path | None) -> None:
        super().__init__(path, what="volatile")


def read_record(path: Path) -> list[ToolCall]:
    """The ToolCalls of a record file, in order (how a harness adapter reads them back)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [_CALLS.validate_json(line) for line in lines if line.strip()]


def read_volatile(path: Path) -> list[VolatileRead]:
    """The VolatileReads of a volatile file, in order (a trace's `volatile_reads`)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [_READS.validate_json(line) for line in lines if line.strip()]
