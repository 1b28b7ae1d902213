"""How a check names what it read from a revision: `<repo path>@<revision>`, never the scratch folder.

Both states of an edit are exported into scratch folders (ratchet.repo.scratch), which are deleted
by the time anyone reads a message or a verdict. An error about an exported file, and a pair's reason
or error that quotes one, name the file as the user can open it instead.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ratchet.core.errors import RatchetError
from ratchet.gate.models import Verdict
from ratchet.repo.git import INDEX


def label(rev: str) -> str:
    """How a message names a revision: a short sha, or <index>."""
    return rev if rev == INDEX else rev[:10]


@contextmanager
def errors_name_revisions(exported: dict[Path, str]) -> Iterator[None]:
    """Re-raise a RatchetError about an exported file as the same error about `<repo path>@<revision>`."""
    try:
        yield
    except RatchetError as exc:
        renamed = _renamed(exc, exported)
        if renamed is None:
            raise
        raise renamed.with_traceback(exc.__traceback__) from None


def _roots(exported: dict[Path, str]) -> list[tuple[str, str]]:
    return [
        (root, label) for tree, label in exported.items() for root in dict.fromkeys((str(tree), str(tree.resolve())))
    ]


def relabel(text: str, exported: dict[Path, str]) -> str:
    """`text` with every path under an exported scratch folder written as `<repo path>@<revision>`."""
    for root, label in _roots(exported):
        text = re.sub(re.escape(root + os.sep) + r"([^\s'\":,]+)", rf"\1@{label}", text)
    return text


def relabel_verdict(verdict: Verdict, exported: dict[Path, str]) -> Verdict:
    """A verdict whose evidence (a pair's reason or error, say a tool that read a workspace file)
    names what the user can open, not the scratch folders, which are gone once check returns."""
    pairs = [
        pair.model_copy(
            update={
                "reason": relabel(pair.reason, exported),
                "error": relabel(pair.error, exported) if pair.error is not None else None,
            }
        )
        for pair in verdict.pairs
    ]
    return verdict.model_copy(update={"pairs": pairs, "summary": relabel(verdict.summary, exported)})


def _renamed(exc: RatchetError, exported: dict[Path, str]) -> RatchetError | None:
    path, message = exc.path, relabel(exc.message, exported)
    for root, label in _roots(exported):
        if path is not None and (path == root or path.startswith(root + os.sep)):
            relative = Path(path).relative_to(root).as_posix()
            path = f"{relative}@{label}"
    if (path, message) == (exc.path, exc.message):
        return None
    renamed = copy.copy(exc)
    renamed.path, renamed.message = path, message
    renamed.args = (renamed.one_line(),)
    return renamed
