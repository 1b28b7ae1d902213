"""Ctrl-C (SIGINT) ends any command with one line on stderr and exit code 130, never a traceback.

Two phases, because the console entry point imports the whole CLI before `main()` runs:

- start-up: importing `ratchet.cli` first imports this module (`while_starting`), so a SIGINT
  while typer and the command modules load writes the line and exits at once. Nothing has been
  written yet, so there is nothing to clean up; the previous handler is back when the import ends
  (`started`), so a program or test that imports the CLI keeps its own Ctrl-C.
- running: `main()` runs the command under `raising`, where a SIGINT raises `Interrupted`. It is
  not a KeyboardInterrupt, which click turns into "Aborted!" and exit 1; like one, it unwinds
  through every `finally` (scratch folders, the store, ledger reservations) before `main()`
  prints the line and exits 130.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, NoReturn

EXIT_INTERRUPTED = 130  # 128 + SIGINT: what a shell reports for a command stopped by Ctrl-C
MESSAGE = "interrupted"

_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


class Interrupted(BaseException):
    """Raised by SIGINT while a command runs; `main()` turns it into one line and exit 130."""


def _exit_at_once(signum: int, frame: FrameType | None) -> NoReturn:
    os.write(2, f"{MESSAGE}\n".encode())
    os._exit(EXIT_INTERRUPTED)


def _raise_interrupted(signum: int, frame: FrameType | None) -> NoReturn:
    raise Interrupted


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()  # only it may set signal handlers


def while_starting() -> _Handler:
    """Exit at once on SIGINT until `started`; the handler it replaced (None: left as it was).

    Only Python's own default handler is replaced: a host that set its own keeps it.
    """
    if not _in_main_thread() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return None
    return signal.signal(signal.SIGINT, _exit_at_once)


def started() -> None:
    """Start-up is over: the handler `while_starting` replaced on import is back."""
    if _START_UP is not None and signal.getsignal(signal.SIGINT) is _exit_at_once:
        signal.signal(signal.SIGINT, _START_UP)


@contextmanager
def raising() -> Iterator[None]:
    """SIGINT raises Interrupted for the block's duration (in the main thread), then the old handler is back."""
    if not _in_main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _raise_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


_START_UP = while_starting()  # on import: ratchet/cli/__init__.py imports this module before anything heavy
