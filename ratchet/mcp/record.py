"""The `--record` file: one ToolCall (ratchet/trace.py's own model) per JSONL line, flushed per call.

Why per call: the harness owns the server's lifetime and may kill it at any moment (a timeout, a
crash); a call it was already answered must be on disk by then, so the line is written and
flushed before the answer goes back. The file is truncated when the server starts: one server
process is one replay, and its indices start at 0 like a trace's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from pydantic import TypeAdapter

from ratchet.errors import InputError
from ratchet.jsonio import canonical_dumps
from ratchet.trace import ToolCall

_CALLS = TypeAdapter(ToolCall)


class CallRecorder:
    """Appends ToolCalls to an open JSONL file; `None` path records nothing."""

    def __init__(self, path: Path | None) -> None:
        self._handle: TextIO | None = None
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._handle = path.open("w", encoding="utf-8", newline="\n")
            except OSError as exc:
                raise InputError(f"cannot write the record file: {exc.strerror}", path=path) from None

    def write(self, call: ToolCall) -> None:
        if self._handle is not None:
            self._handle.write(canonical_dumps(call.model_dump(mode="json"), indent=None) + "\n")
            self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def read_record(path: Path) -> list[ToolCall]:
    """The ToolCalls of a record file, in order (how a harness adapter reads them back)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [_CALLS.validate_json(line) for line in lines if line.strip()]
