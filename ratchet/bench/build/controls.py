"""The controls: N0 cosmetic edits (must PASS), F0 fault-handling refactors (must PASS) and D1 world-drift
edits (must be drift, PASS).

N0 never touches the frontmatter and changes only what the convention ignores: blank lines,
trailing whitespace, Markdown comments and prose outside backticks. D1 gives the skill one blank
line (the commit that makes the gate look) while one volatile world fact moves in an overlay;
the edit's fixtures report the new value so the drift check can confirm it. F0 (for skills that handle
a failed call, the ones R7 breaks) renames the failed call's result variable or rewords the handling
step's prose (ratchet.sim.mutate_faults): the retry and the check stay, so every golden must replay unchanged.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ratchet.sim.injector import ToolInfo, sections, split_skill
from ratchet.sim.mutate_faults import f0_candidates, fault_steps

WORLD_DEPENDENT_SKILLS: tuple[str, ...] = ("weekly-research-brief", "fx-expense-converter", "dependency-updater")
N0_VARIANTS = 2
D1_VARIANTS = 2

# Stock phrases a tidy-up rewords; applied only to prose lines (never list items or headings).
STOCK_PHRASES: tuple[tuple[str, str], ...] = (
    ("Never ", "Do not ever "),
    ("never ", "do not ever "),
    ("Do not ", "Don't "),
    (" do not ", " don't "),
    ("for example", "e.g."),
    (" the way ", " just as "),
    ("Use this ", "Use the following "),
    (" so that ", " so "),
    (" every ", " each "),
    (" and ", " as well as "),
)
_COMMENT_TEXT = "<!-- reviewed for wording and layout; no change in behaviour -->"
_LIST = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+")


def _prose_lines(body: Sequence[str]) -> list[int]:
    """Plain paragraph lines: not headings, list items, fences, tables or comments."""
    indices: list[int] = []
    fenced = False
    for index, line in enumerate(body):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
            continue
        if fenced or not stripped or stripped.startswith(("#", "|", "<!--", ">")) or _LIST.match(line):
            continue
        if line[:1].isspace():
            continue  # a continuation of a list item
        if "`" in line:
            continue  # keep spans (and the text around them) exactly as they are
        indices.append(index)
    return indices


def _comment_and_whitespace(text: str) -> tuple[str, str] | None:
    frontmatter, body_text = split_skill(text)
    body = body_text.split("\n")
    heading = next((i for i, line in enumerate(body) if line.startswith("# ")), None)
    at = heading + 1 if heading is not None else 0
    body = [*body[:at], "", _COMMENT_TEXT, *body[at:]]
    body = [line.rstrip() for line in body]
    edited = frontmatter + "\n".join(body).rstrip("\n") + "\n\n"
    return edited, "adds a review comment under the title, strips trailing spaces and adds a trailing blank line"


def _stock_rewording(text: str) -> tuple[str, str] | None:
    frontmatter, body_text = split_skill(text)
    body = body_text.split("\n")
    used: list[str] = []
    for index in _prose_lines(body):
        for old, new in STOCK_PHRASES:
            if old != new and old in body[index] and len(used) < 2:
                body[index] = body[index].replace(old, new, 1)
                used.append(f"{old.strip()!r} -> {new.strip()!r}")
    if not used:
        prose = _prose_lines(body)
        if not prose:
            return None
        body[prose[0]] = "In short: " + body[prose[0]][:1].lower() + body[prose[0]][1:]
        used.append("'In short:' lead-in")
    return frontmatter + "\n".join(body), "rewords stock phrases in the prose: " + ", ".join(used)


def _reflow(text: str) -> tuple[str, str] | None:
    frontmatter, body_text = split_skill(text)
    body = body_text.split("\n")
    prose = _prose_lines(body)
    pair = next((i for i in prose if i + 1 in prose), None)
    if pair is None:
        return None
    body[pair : pair + 2] = [body[pair].rstrip() + " " + body[pair + 1].lstrip()]
    return frontmatter + "\n".join(body), "reflows two prose lines into one"


N0_OPERATORS: tuple[Callable[[str], tuple[str, str] | None], ...] = (_comment_and_whitespace, _stock_rewording, _reflow)


def n0_candidates(text: str, variant: int) -> list[tuple[str, str]]:
    """Cosmetic edits for a variant, best first: variant 1 starts with the comment, 2 with rewording."""
    order = list(N0_OPERATORS)
    order = order[variant - 1 :] + order[: variant - 1]
    found: list[tuple[str, str]] = []
    for operator in order:
        result = operator(text)
        if result is not None and result[0] != text:
            found.append(result)
    return found


F0_VARIANTS = 2


def f0_candidates_for(text: str, tools: Sequence[ToolInfo], variant: int) -> list[tuple[str, str]]:
    """F0 edits for a variant, best first: variant 1 starts with the rename, 2 with the rewording."""
    found = f0_candidates(text, tools)
    return found[variant - 1 :] + found[: variant - 1]


def has_fault_handling(text: str, tools: Sequence[ToolInfo]) -> bool:
    """Whether R7 and F0 apply to a skill: it has a step handling a failed side-effecting call."""
    return bool(fault_steps(text, tools))


def with_blank_line(text: str, variant: int) -> str:
    """The skill with one more blank line: under the title (variant 1) or before Output (2)."""
    frontmatter, body_text = split_skill(text)
    body = body_text.split("\n")
    secs = sections(body)
    target = None
    if variant % 2 == 0 and "output" in secs:
        target = secs["output"][0] - 1
    if target is None:
        target = next((i + 1 for i, line in enumerate(body) if line.startswith("# ")), 0)
    body.insert(target, "")
    return frontmatter + "\n".join(body)


# --- D1: moving a volatile fact ----------------------------------------------------------------


def resolve_key(data: Mapping[str, Any], key: str) -> list[str] | None:
    """The path of mapping keys a dotted fact key names (keys may themselves contain dots)."""
    if not key:
        return []
    for cut in range(len(key), 0, -1):
        head = key[:cut]
        if head in data and (cut == len(key) or key[cut] == "."):
            value = data[head]
            if cut == len(key):
                return [head]
            if isinstance(value, Mapping):
                rest = resolve_key(value, key[cut + 1 :])
                if rest is not None:
                    return [head, *rest]
    return None


def value_at(data: Mapping[str, Any], path: Sequence[str]) -> Any:
    node: Any = data
    for part in path:
        node = node[part]
    return node


def overlay_for(path: Sequence[str], value: Any) -> dict[str, Any]:
    """A world overlay that sets one fact (deep-merged over the world)."""
    overlay: Any = copy.deepcopy(value)
    for part in reversed(path):
        overlay = {part: overlay}
    result: dict[str, Any] = overlay
    return result


def moved_value(value: Any) -> Any:
    """A plausible new value for a volatile fact, or None when we cannot move it sensibly."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        text = repr(value)
        decimals = len(text.split(".")[1]) if "." in text else 2
        moved = round(value * 1.0125, decimals)
        return moved if moved != value else round(value + 10**-decimals, decimals)
    if isinstance(value, str):
        version = re.fullmatch(r"(v?)(\d+)\.(\d+)\.(\d+)", value)
        if version:
            return f"{version.group(1)}{version.group(2)}.{version.group(3)}.{int(version.group(4)) + 1}"
        number = re.search(r"\d+(?!.*\d)", value)
        if number:
            return value[: number.start()] + str(int(number.group(0)) + 1) + value[number.end() :]
    return None
