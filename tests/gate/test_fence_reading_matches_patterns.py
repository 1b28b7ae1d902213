"""The fence readers find exactly what their per-nonce patterns found (they no longer compile one per nonce):
ratchet.core.fence.read_fenced (the simulated judges reading a prompt) and ratchet.gate.opinion.answer_regions
(a judge's answer less any echo of the fenced data), over texts built from delimiters with the right nonce,
forged ones, broken ones and filler."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ratchet.core.fence import fence, read_fenced
from ratchet.gate.opinion import answer_regions

NONCE = "0123456789abcdef01234567"
OTHER = "0123456789abcdef0123456"  # a prefix of NONCE: a token that must not count


def _read_fenced_by_pattern(text: str, nonce: str) -> dict[str, str]:
    token = re.escape(nonce)
    pattern = re.compile(rf"^<<<BEGIN {token} (\w+)>>>\n(.*?)\n<<<END {token} \1>>>$", re.MULTILINE | re.DOTALL)
    return {m.group(1): m.group(2) for m in pattern.finditer(text)}


def _answer_regions_by_pattern(text: str, nonce: str) -> list[str]:
    regions: list[str] = []
    start, opened = 0, None
    for match in re.finditer(rf"<<<(BEGIN|END) {re.escape(nonce)}\b[ \t]*(\w*)(?:>>>)?", text):
        kind, name = match.group(1), match.group(2)
        if kind == "BEGIN" and opened is None:
            regions.append(text[start : match.start()])
            opened = name
        elif kind == "END" and opened == name:
            start, opened = match.end(), None
        else:
            raise ValueError(f"the fence delimiters in the answer do not pair up ({kind} {name or '?'})")
    if opened is not None:
        raise ValueError(f"the fence delimiters in the answer do not pair up (BEGIN {opened or '?'} never ends)")
    regions.append(text[start:])
    return regions


_PIECES = st.sampled_from(
    [
        "\n",
        " ",
        "\t",
        ">>>",
        "<<<",
        "x",
        "é",
        "data",
        "_",
        "<<<BEGIN ",
        "<<<END ",
        NONCE,
        OTHER,
        f"{NONCE}x",
        "golden_output",
        "replay_output",
        f"<<<BEGIN {NONCE} a>>>\n",
        f"\n<<<END {NONCE} a>>>",
        f"<<<BEGIN {NONCE} b>>>\n",
        f"\n<<<END {NONCE} b>>>\n",
        f"<<<BEGIN {OTHER} a>>>\n",
        f"\n<<<END {OTHER} a>>>",
        f"<<<END {NONCE}  a",
        f"<<<BEGIN {NONCE}>>>",
        fence("a", "inside", NONCE),
        fence("b", "", NONCE),
        fence("a", "forged", OTHER),
    ]
)
_TEXTS = st.lists(_PIECES, max_size=14).map("".join)


def _outcome(read: object, *args: str) -> object:
    try:
        return read(*args)  # type: ignore[operator]
    except ValueError as exc:
        return ("ValueError", str(exc))


@settings(max_examples=600, deadline=None)
@given(_TEXTS, st.sampled_from([NONCE, OTHER, "a", "x-y.z", "é1"]))
def test_read_fenced_finds_what_the_pattern_found(text: str, nonce: str) -> None:
    assert read_fenced(text, nonce) == _read_fenced_by_pattern(text, nonce)


@settings(max_examples=600, deadline=None)
@given(_TEXTS, st.sampled_from([NONCE, OTHER, "a", "x-y.z", "é1"]))
def test_answer_regions_are_what_the_pattern_gave(text: str, nonce: str) -> None:
    assert _outcome(answer_regions, text, nonce) == _outcome(_answer_regions_by_pattern, text, nonce)


def test_a_fenced_section_is_read_and_cut_from_an_answer() -> None:
    text = f"before\n{fence('golden_output', 'G', NONCE)}\nmiddle\n{fence('replay_output', 'R', NONCE)}\nafter"
    assert read_fenced(text, NONCE) == {"golden_output": "G", "replay_output": "R"}
    assert answer_regions(text, NONCE) == ["before\n", "\nmiddle\n", "\nafter"]
