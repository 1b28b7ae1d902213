"""Comment stripping (ratchet.skills.skill.substance_of) on a 78 KiB SKILL.md: the old regex vs the linear pass.

The old stripper, kept here verbatim, rescanned to the end of the text for every `<!--` without
a `-->`: quadratic, about 17 s for a 78 KiB SKILL.md, paid once per parse (once per replay).
Both run in this one process on the same inputs, so the ratio does not depend on the machine:
a hostile file (`<!--` repeated) and an ordinary one (a real skill repeated, comments and fences
included). Run: .venv/bin/python benchmarks/comment_strip.py
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.core.markup import drop_comments_outside_fences as _drop_comments

SIZE = 78 * 1024
_OLD_FENCE_OR_COMMENT = re.compile(r"(^[ \t]*(```|~~~).*?^[ \t]*\2[^\n]*$)|<!--.*?-->", re.S | re.M)


def old_drop_comments(text: str) -> str:
    return _OLD_FENCE_OR_COMMENT.sub(lambda m: m.group(1) or "", text)


def _seconds(fn: Callable[[str], str], text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ordinary = "# Skill\n\n<!-- a note -->\nRun `x` and read it.\n\n```sh\n<!-- not a comment -->\nls\n```\n\n"
    inputs = {"repeated <!--": ("<!--" * SIZE)[:SIZE], "ordinary skill": (ordinary * SIZE)[:SIZE]}
    for name, text in inputs.items():
        assert _drop_comments(text) == old_drop_comments(text)
        old = _seconds(old_drop_comments, text, repeat=1)
        new = _seconds(_drop_comments, text, repeat=5)
        print(
            f"{name:>15} ({len(text) // 1024} KiB): old {old * 1000:9.1f} ms, new {new * 1000:7.2f} ms, "
            f"old/new {old / new:8.1f}x"
        )


if __name__ == "__main__":
    main()
