"""A paragraph split into sentences, the way the model reads them (a comment is a sentence of its own)."""

from __future__ import annotations

_ABBREVIATIONS = frozenset(
    {"e.g.", "i.e.", "etc.", "vs.", "cf.", "mr.", "mrs.", "ms.", "dr.", "st.", "no.", "approx.", "incl.", "fig.", "al."}
)
_SENTENCE_STARTS = "`*_\"'([<\u201c\u2018#$@"


def split_sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) of each sentence of a paragraph: split after . ! ? followed by a space and a
    capital, digit or opening mark, never inside a code span or an HTML comment, nor after an abbreviation;
    an HTML comment is a sentence of its own."""
    text = " ".join(text.split())
    found: list[tuple[int, str]] = []
    start = 0
    in_code = False
    index = 0
    while index < len(text):
        char = text[index]
        if char == "`":
            in_code = not in_code
        elif text.startswith("<!--", index) and not in_code:
            close = text.find("-->", index + 4)
            if close >= 0:
                # A comment is a unit of its own: what a harness that sends it shows the model as one note.
                if text[start:index].strip():
                    found.append((start, text[start:index].strip()))
                found.append((index, text[index : close + 3]))
                start = index = close + 3
                while start < len(text) and text[start] == " ":
                    start += 1
                continue
        elif char in ".!?" and not in_code and _ends_sentence(text, start, index):
            end = index + 1
            while end < len(text) and text[end] in "\"')]\u201d\u2019*_":
                end += 1
            found.append((start, text[start:end].strip()))
            start = end + 1
            index = end
            continue
        index += 1
    if text[start:].strip():
        found.append((start, text[start:].strip()))
    return [(offset, sentence) for offset, sentence in found if sentence]


def _ends_sentence(text: str, start: int, index: int) -> bool:
    after = index + 1
    while after < len(text) and text[after] in "\"')]\u201d\u2019*_":
        after += 1
    if after + 1 >= len(text) or text[after] != " ":
        return False
    following = text[after + 1]
    if not (following.isupper() or following.isdigit() or following in _SENTENCE_STARTS):
        return False
    word = text[start : index + 1].rsplit(" ", 1)[-1].lower()
    return word not in _ABBREVIATIONS and not (len(word) == 2 and word[0].isalpha())  # an initial: "J. Smith"
