"""What one instruction says, read without a model: its actions, rules, constants, conditions and output name.

Each reader is deliberately plain (word lists from ratchet.diff.lexicon, regular expressions for
values), so a finding can always be traced to the words it rests on.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ratchet.diff.effects import ToolCatalog
from ratchet.diff.instructions import Instruction
from ratchet.diff.lexicon.actions import COMMANDS, NOUN_AFTER, NOUN_BEFORE, VERBS, ActionEffect
from ratchet.diff.lexicon.conditions import CODE_OPERATORS, CONDITION_WORDS
from ratchet.diff.lexicon.rules import CONTRACTIONS, HEDGES, SOFT_RULES, STRONG_RULES, Family

_CODE_SPAN = re.compile(r"`+([^`]+?)`+")
_COMMENT_MARKS = re.compile(r"<!--|-->")
_WORD = re.compile(r"[A-Za-z][\w'\u2019-]*")
_CLAUSE_END = re.compile(r"[,;:.!?()]")
_NEGATORS = frozenset({"never", "not", "no", "without", "nor", "avoid", "refuse", "instead", "cannot"})

_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_URL = r"https?://[^\s)>\]`'\"]+"
_VALUES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("address", _EMAIL),
        ("url", _URL),
        ("date", r"\b\d{4}-\d{2}-\d{2}\b"),
        ("time", r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b"),
        (
            "path",
            r"(?<![\w@/])(?:~|\.{1,2})?/[\w.~-]+(?:/[\w.~-]*)*|\b[\w.-]+/[\w.-]+(?:/[\w.-]*)*/?"
            r"|\b[\w-]+\.(?:md|py|sh|json|ya?ml|csv|txt|xlsx|pdf|docx|html|js|ts|toml|log)\b",
        ),
        ("channel", r"(?<![\w&])#[A-Za-z][\w-]*"),
        ("handle", r"(?<![\w.])@[A-Za-z][\w-]*"),
        ("number", r"(?<![\w.])[$€£]?\d+(?:[.,]\d+)*%?(?![\w@])"),
        ("quoted", r"\"[^\"]{1,80}\"|\u201c[^\u201d]{1,80}\u201d|(?<!\w)'[^']{1,80}'(?!\w)"),
    )
)
_NUMBER_WORDS = frozenset(
    {
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "fifteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "hundred",
        "thousand",
        "million",
        "dozen",
        "half",
        "twice",
        "once",
        "daily",
        "weekly",
        "monthly",
        "yearly",
        "hourly",
    }
)
_NOT_PATHS = frozenset({"and/or", "either/or", "w/", "n/a", "on/off", "yes/no", "read/write", "input/output"})
_CODE_WORDS = frozenset({"and", "or", "not", "in", "is", "if", "else", "for", "None", "True", "False", "as"})
_STRING = re.compile(r"\"[^\"]*\"|'[^']*'")
_CODE_VALUES = re.compile(r"\"[^\"]*\"|'[^']*'|\$\w+(?:\.\w+)*|(?<![\w$.])\d+(?:\.\d+)?|[A-Za-z_][\w-]*")


@dataclass(frozen=True)
class Action:
    """Something the instruction makes the agent do that acts on the world."""

    name: str
    effect: ActionEffect
    via: str  # "verb", "tool" or "command"
    target: str | None = None


@dataclass(frozen=True)
class Rules:
    """The rule markers of an instruction, by family."""

    strong: dict[Family, str]
    soft: dict[Family, str]
    hedges: tuple[str, ...]

    @property
    def is_rule(self) -> bool:
        return bool(self.strong)


def split_code(instruction: Instruction) -> tuple[str, list[str]]:
    """(prose, code parts): a code block is all code; elsewhere code spans are code and the rest prose.
    HTML comment marks are dropped so a comment a harness sends is read as the words in it."""
    if instruction.kind == "code":
        return "", [instruction.text]
    text = _COMMENT_MARKS.sub(" ", instruction.text)
    return _CODE_SPAN.sub(" CODE ", text), [match.group(1) for match in _CODE_SPAN.finditer(text)]


# -- actions -------------------------------------------------------------------------------------


def actions(instruction: Instruction, catalog: ToolCatalog) -> list[Action]:
    """The side-effect actions an instruction asks for: named tools, commands, and lexicon verbs not under a negation."""
    prose, code = split_code(instruction)
    whole = instruction.text
    target = first_target(whole)
    found: dict[tuple[str, str], Action] = {}
    for name, effect in catalog.tools_in(whole):
        found.setdefault((effect, name), Action(name, effect, "tool", target))
    for part in [*code, prose] if instruction.kind != "code" else code:
        for pattern, name, effect in COMMANDS:
            if pattern.search(part) and (part is not prose or name not in ("rm", "mail")):
                found.setdefault((effect, name), Action(name, effect, "command", target))
    if prose:
        for verb, effect in _verbs(prose):
            found.setdefault((effect, verb), Action(verb, effect, "verb", target))
    return list(found.values())


def _verbs(prose: str) -> list[tuple[str, ActionEffect]]:
    words = [(match.start(), match.group(0)) for match in _WORD.finditer(prose)]
    found: list[tuple[str, ActionEffect]] = []
    for index, (start, word) in enumerate(words):
        lemma = lemma_of(word.lower().replace("\u2019", "'"))
        if lemma is None:
            continue
        before = words[index - 1][1].lower() if index else ""
        after = words[index + 1][1].lower() if index + 1 < len(words) else ""
        if (
            before in NOUN_BEFORE
            or before.endswith(("'s", "\u2019s"))
            or after in NOUN_AFTER
            or after in ("of", "is", "are")
        ):
            continue
        if _negated(prose, start):
            continue
        found.append((lemma, VERBS[lemma]))
    return found


def lemma_of(word: str) -> str | None:
    """The lexicon verb `word` is a form of (base, -s, -es, -ing), or None."""
    if word in VERBS:
        return word
    for suffix, restore in (("es", ""), ("s", ""), ("ing", ""), ("ing", "e")):
        if word.endswith(suffix):
            stem = word[: -len(suffix)] + restore
            if stem in VERBS:
                return stem
            if suffix == "ing" and len(stem) > 2 and stem[-1] == stem[-2] and stem[:-1] in VERBS:
                return stem[:-1]  # dropping -> drop
    return None


def _negated(prose: str, start: int) -> bool:
    """Whether a negation ("never", "do not", "without" ...) governs the word at `start` in its clause."""
    clause_start = max((m.end() for m in _CLAUSE_END.finditer(prose, 0, start)), default=0)
    before = expand_contractions(prose[clause_start:start].lower()).split()
    return any(word.strip("'\"*_") in _NEGATORS for word in before)


def first_target(text: str) -> str | None:
    """The first e-mail address, URL, channel or handle an instruction names."""
    match = re.search(rf"{_EMAIL}|{_URL}|(?<![\w&])#[A-Za-z][\w-]*|(?<![\w.])@[A-Za-z][\w-]*", text)
    return match.group(0).rstrip(".,;:") if match else None


# -- rules ---------------------------------------------------------------------------------------


def expand_contractions(text: str) -> str:
    text = text.replace("\u2019", "'")
    for short, long in CONTRACTIONS:
        text = text.replace(short, long)
    return text


def rules(instruction: Instruction) -> Rules:
    """The strong and soft rule markers and the hedges in an instruction's prose (longest phrases first)."""
    prose, _ = split_code(instruction)
    text = f" {' '.join(expand_contractions(prose.lower()).split())} "
    strong: dict[Family, str] = {}
    soft: dict[Family, str] = {}
    hedges = tuple(hedge for hedge in HEDGES if re.search(rf"\b{re.escape(hedge)}\b", text))
    for hedge in hedges:
        text = re.sub(rf"\b{re.escape(hedge)}\b", " ", text)
    table = sorted(
        [(phrase, family, True) for phrase, family in STRONG_RULES]
        + [(phrase, family, False) for phrase, family in SOFT_RULES],
        key=lambda item: -len(item[0]),
    )
    for phrase, family, is_strong in table:
        pattern = rf"\b{re.escape(phrase)}\b"
        if re.search(pattern, text):
            (strong if is_strong else soft).setdefault(family, phrase)
            text = re.sub(pattern, " ", text)
    return Rules(strong=strong, soft=soft, hedges=hedges)


# -- constants and conditions --------------------------------------------------------------------


def constants(instruction: Instruction) -> list[tuple[str, str]]:
    """(kind, value) of every value an instruction names, in order: addresses, URLs, dates, times, paths,
    channels, handles, numbers, quoted text, names (capitalised words not opening a sentence), and in
    code every literal, variable and identifier."""
    prose, code = split_code(instruction)
    found: list[tuple[str, str]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _VALUES:
        for match in pattern.finditer(prose):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            value = match.group(0).rstrip(".,;:")
            if kind == "path" and (value.lower() in _NOT_PATHS or len(value) < 4):
                continue
            taken.append((match.start(), match.end()))
            found.append((kind, value))
    found.extend(_names(prose, taken))
    for part in code:
        found.extend(("code", value) for value in _CODE_VALUES.findall(part) if value not in _CODE_WORDS)
    return found


def _names(prose: str, taken: list[tuple[int, int]]) -> list[tuple[str, str]]:
    names: list[tuple[str, str]] = []
    words = list(_WORD.finditer(prose))
    for index, match in enumerate(words):
        word = match.group(0)
        if any(start <= match.start() < end for start, end in taken) or word == "CODE":
            continue
        opening = index == 0 or prose[words[index - 1].end() : match.start()].strip()[-1:] in (".", ":", "!", "?", "(")
        if word.lower() in _NUMBER_WORDS:
            names.append(("number", word.lower()))
        elif (word[0].isupper() and not opening) or (len(word) > 1 and word.isupper()):
            names.append(("name", word))
    return names


def conditions(instruction: Instruction) -> Counter[str]:
    """The condition words of the prose and the comparison and boolean operators of the code."""
    prose, code = split_code(instruction)
    prose = prose.lower()
    for hedge in HEDGES:  # "when you have time" loosens a rule (rule_weakened); it states no condition
        prose = re.sub(rf"\b{re.escape(hedge)}\b", " ", prose)
    found: Counter[str] = Counter(word for word in _WORD.findall(prose) if word in CONDITION_WORDS)
    for part in code:
        bare = f" {_STRING.sub(' ', part)} "
        for operator in CODE_OPERATORS:
            count = bare.count(operator)
            if operator in (">", "<"):
                count -= bare.count(operator + "=") + bare.count("-" + operator) + bare.count("=" + operator)
            if count > 0:
                found[operator.strip()] += count
    return found


def output_name(instruction: Instruction) -> str | None:
    """The name of the output element an instruction opens (a field, a column, a section), if it is one."""
    if not (instruction.output and instruction.item_start and instruction.kind in ("item", "row", "heading")):
        return None
    text = instruction.text
    if instruction.kind == "row":
        return text.split(" | ", 1)[0].strip("`*_ ") or None
    if instruction.kind == "heading":
        return text
    lead = re.match(r"^(?:`([^`]+)`|\*\*([^*]+)\*\*|__([^_]+)__)", text)
    if lead:
        return next(group for group in lead.groups() if group is not None).strip()
    head, colon, _ = text.partition(":")
    return head.strip() if colon and len(head.split()) <= 5 else text


def words_of(text: str) -> set[str]:
    """Lower-case words of a description, for its scope."""
    return {word.lower().strip("'\u2019-") for word in _WORD.findall(text)}
