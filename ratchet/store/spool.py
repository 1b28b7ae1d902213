"""The spool: an append-only file of one Store's unmetered ledger rows, folded into the ledger in batches.

Why: a simulated call of a run without a budget (Gateway.metered) holds no money, yet a commit of its own
wrote ~6 pages to the WAL (the row, three indexes, two running totals): ~40,000 of them in a smoke. Its row is
instead one line appended to <home>/spool/<owner>.rows, a single write(2) with no fsync, and the rows join the
Store's next write transaction, at the latest once SPOOL_BATCH of them are waiting (ratchet.store.ledger).

What it keeps (docs/adr/0027-durability-per-call.md, "the spool"):
- kill -9: nothing is lost. A line written is in the page cache when the process dies; the next Store to open
  the ledger finds the file of an owner whose lock is unheld (ratchet.store.owners) and folds what it holds.
- no row twice: the transaction that folds rows also records how many bytes of the file are folded
  (`spools.folded`), so a fold interrupted after its commit is not folded again.
- a power cut may lose lines not yet folded, or leave a last line torn (then skipped): simulated dollars of a
  run no cap counts, as before.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

SPOOL_DIR = "spool"
SPOOL_SUFFIX = ".rows"
SPOOL_BATCH = 256
"""Rows waiting in a Store before they are folded on their own (each is already in the spool's file)."""

_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW


class SpoolFile:
    """One Store's spool file: appended whole lines, its size, and its removal once folded."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.size = 0
        self._fd: int | None = None
        self.used = False
        """The file was opened (and so may exist, and may have a mark in the ledger)."""
        self.broken = False
        """A write failed: the file holds only whole lines up to `size`, and no more is appended."""

    def append(self, line: bytes) -> bool:
        """Append one whole line; False when it cannot be (the caller writes the row to the ledger itself)."""
        if self.broken:
            return False
        try:
            if self._fd is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self.path, _FLAGS, 0o600)
                self.used = True
                self.size = os.fstat(self._fd).st_size
            written = os.write(self._fd, line)
        except OSError:
            written = -1
        if written == len(line):
            self.size += written
            return True
        self._give_up()
        return False

    def remove(self) -> None:
        """Close and unlink the file (every line in it folded)."""
        self.close()
        with suppress(OSError):
            self.path.unlink()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _give_up(self) -> None:
        """A short or failed write: cut the file back to its whole lines and append no more."""
        self.broken = True
        if self._fd is not None:
            with suppress(OSError):
                os.ftruncate(self._fd, self.size)


def spool_path(home: Path, owner: str) -> Path:
    return home / SPOOL_DIR / f"{owner}{SPOOL_SUFFIX}"


def spooled_owners(home: Path) -> list[str]:
    """The owners with a spool file under `home`, sorted."""
    try:
        names = os.listdir(home / SPOOL_DIR)
    except OSError:
        return []
    return sorted(name[: -len(SPOOL_SUFFIX)] for name in names if name.endswith(SPOOL_SUFFIX))


def whole_lines(path: Path, offset: int) -> tuple[list[bytes], int]:
    """The whole lines of `path` after byte `offset`, and the bytes they take (a torn last line is left)."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except OSError:
        return [], 0
    end = data.rfind(b"\n") + 1
    return data[:end].splitlines(), end
