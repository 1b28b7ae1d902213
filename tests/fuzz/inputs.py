"""What the fuzz cases are made of: paths, commands, malformed content and the setups that plant it.

Every byte is a function of SEED and a key naming its use (never the clock, never the order
the cases run in).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from tests.fuzz.harness import Ctx

SEED = 13

SKILL = "skills/github-triage/SKILL.md"
TASKS = "tasks.yaml"
GOLDEN = "goldens/github-triage/github-triage-01.json"
WORLD = "world/github.yaml"
CONFIG = "ratchet.yaml"
BENCH_TASKS = "bench/tasks.yaml"
BENCH_WORLD = "bench/world/github.yaml"
LABELS = "labels/labels.json"
REVIEWS = "labels/reviews.json"
EDIT_ID = "github-triage.N0.1"
EDIT = f"bench/edits/{EDIT_ID}.json"
REVIEW_ID = "calendar-scheduler.N0.1"  # a label marked for review
STORE = "ratchet.sqlite"

CHECK = ["check", "--repo", "{repo}", "--base", "HEAD~1", "--level0-only"]
CHECK_STAGED = ["check", "--repo", "{repo}", "--base", "HEAD", "--staged", "--level0-only"]
RECORD = ["record", "--project", "{repo}"]
BLESS = ["bless", "--project", "{repo}"]
BENCH_VALIDATE = ["bench", "validate", "--no-audit", "--project", "{repo}", "--work", "{home}/bench"]
BENCH_STATUS = ["bench", "label", "--status", "--project", "{repo}"]
BENCH_AGREE = ["bench", "label", REVIEW_ID, "--agree", "--project", "{repo}"]
PROXY = ["proxy", "--port", "8799", "--project", "{repo}"]

Setup = Callable[[Ctx], None]


# -- content generators ----------------------------------------------------------------------


def _rng(key: str) -> random.Random:
    """A generator of its own per use, so a case's bytes do not depend on which cases ran before."""
    return random.Random(f"{SEED}:{key}")


def _garbage(size: int, key: str = "garbage") -> bytes:
    rng = _rng(f"{key}:{size}")
    return bytes(rng.randrange(256) for _ in range(size))


def _bad_utf8(text: str) -> bytes:
    """text with an invalid UTF-8 sequence at a seeded position after its first line."""
    rng = _rng(f"utf8:{len(text)}")
    data = text.encode("utf-8")
    start = data.find(b"\n") + 1
    at = rng.randrange(start, max(start + 1, len(data)))
    while at < len(data) and (data[at] & 0xC0) == 0x80:  # not inside a multi-byte character
        at += 1
    return data[:at] + rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80", b"\xfe\xfe"]) + data[at:]


def _alias_bomb(key: str, depth: int = 9, width: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, depth):
        refs = ",".join(f"*a{level - 1}" for _ in range(width))
        lines.append(f"a{level}: &a{level} [{refs}]")
    lines.append(f"{key}: *a{depth - 1}")
    return "\n".join(lines) + "\n"


def _deep_list(depth: int) -> str:
    return "[" * depth + "]" * depth


def _deep_map(depth: int) -> str:
    return "{a: " * depth + "1" + "}" * depth


HUGE_INT = "9" * 5000  # past Python's int-from-string limit (4300 digits): int() raises ValueError

LOOKALIKES = [
    ("cyrillic-i", "g\u0456thub-triage"),
    ("cyrillic-a", "github-tri\u0430ge"),
    ("greek-omicron", "github-tri\u03bfge"),
    ("zero-width", "github\u200b-triage"),
    ("rtl-override", "github-\u202etriage"),
    ("unicode-hyphen", "github\u2010triage"),
]


def _skill_text(ctx: Ctx) -> str:
    return ctx.read(SKILL)


def _frontmatter_parts(text: str) -> tuple[str, str]:
    head, _, body = text.partition("\n---\n")
    return head.removeprefix("---\n"), body


def _with_frontmatter(fm: str) -> Callable[[str], str | bytes]:
    def make(text: str) -> str:
        _, body = _frontmatter_parts(text)
        return f"---\n{fm}\n---\n{body}"

    return make


def _without_key(fm: str, key: str) -> list[str]:
    """Frontmatter lines without `key` and its indented continuation lines."""
    kept: list[str] = []
    skipping = False
    for line in fm.split("\n"):
        if line.startswith(f"{key}:"):
            skipping = True
            continue
        if skipping and line[:1] in (" ", "\t"):
            continue
        skipping = False
        kept.append(line)
    return kept


def _replace_key(key: str, value: str) -> Callable[[str], str | bytes]:
    def make(text: str) -> str:
        fm, body = _frontmatter_parts(text)
        return "---\n" + f"{key}: {value}\n" + "\n".join(_without_key(fm, key)) + "\n---\n" + body

    return make


def _drop_key(key: str) -> Callable[[str], str | bytes]:
    def make(text: str) -> str:
        fm, body = _frontmatter_parts(text)
        return "---\n" + "\n".join(_without_key(fm, key)) + "\n---\n" + body

    return make


# -- shared setups ---------------------------------------------------------------------------


def _benign_edit(ctx: Ctx) -> None:
    """A valid edit of the github-triage skill, so the gate has something to replay."""
    path = ctx.path(SKILL)
    path.write_text(path.read_text(encoding="utf-8") + "\nKeep the triage comment short.\n", encoding="utf-8")


def _corrupt_skill(mutation: Callable[[str], str | bytes]) -> Setup:
    def setup(ctx: Ctx) -> None:
        ctx.write(SKILL, mutation(_skill_text(ctx)))

    return setup


def _commit_head(corrupt: Setup) -> Setup:
    """The corruption is the edit under check (HEAD; base is HEAD~1)."""

    def setup(ctx: Ctx) -> None:
        corrupt(ctx)
        ctx.commit("fuzz: corrupt")

    return setup


def _stage(corrupt: Setup) -> Setup:
    def setup(ctx: Ctx) -> None:
        corrupt(ctx)
        ctx.git("add", "-A")

    return setup


def _commit_base(corrupt: Setup) -> Setup:
    """The corruption is in the base revision (HEAD~1); HEAD adds a valid skill edit on top."""

    def setup(ctx: Ctx) -> None:
        corrupt(ctx)
        ctx.commit("fuzz: corrupt the base")
        _benign_edit(ctx)
        ctx.commit("fuzz: a valid skill edit")

    return setup


def _write(rel: str, data: str | bytes | Callable[[Ctx], str | bytes]) -> Setup:
    def setup(ctx: Ctx) -> None:
        ctx.write(rel, data(ctx) if callable(data) else data)

    return setup


def _both(*setups: Setup) -> Setup:
    def setup(ctx: Ctx) -> None:
        for step in setups:
            step(ctx)

    return setup


def _dir_in_place(rel: str) -> Setup:
    """Replace a file by a folder of the same name (with a file in it, so git keeps it)."""

    def setup(ctx: Ctx) -> None:
        path = ctx.path(rel)
        if path.is_file():
            path.unlink()
        (path / "README").parent.mkdir(parents=True, exist_ok=True)
        (path / "README").write_text("not a file\n", encoding="utf-8")

    return setup


def _symlink(rel: str, target: str) -> Setup:
    def setup(ctx: Ctx) -> None:
        path = ctx.path(rel)
        path.unlink(missing_ok=True)
        path.symlink_to(target)

    return setup


def _golden(ctx: Ctx) -> dict[str, object]:
    return json.loads(ctx.read(GOLDEN))


def _golden_with(**changes: object) -> Callable[[Ctx], str]:
    def make(ctx: Ctx) -> str:
        data = _golden(ctx)
        for key, value in changes.items():
            if value is _DROP:
                data.pop(key, None)
            else:
                data[key] = value
        return json.dumps(data, indent=2)

    return make


_DROP = object()


def _golden_raw(key: str, raw: str) -> Callable[[Ctx], str]:
    """The golden with one top-level value replaced by raw JSON text (NaN, huge ints ...)."""

    def make(ctx: Ctx) -> str:
        data = _golden(ctx)
        data[key] = "__RAW__"
        return json.dumps(data, indent=2).replace('"__RAW__"', raw)

    return make
