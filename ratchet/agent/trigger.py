"""The lexical trigger matcher: which skill (if any) should take a prompt.

Each skill is a bag of stemmed words from its name and description. A prompt's score for a
skill is the idf-weighted share of the prompt's words that the skill's words cover; idf is
computed over the skill set, so words every skill uses count for little. The best skill fires
when it clears THRESHOLD and beats the runner-up by MARGIN; otherwise nothing fires.
Deterministic, and deliberately sensitive to description wording (R5/R6 edits move it).

A skill set is tokenized and counted once, into a RoutingIndex that routing_index() shares by
content; route_scores, ranked_scores and match_skill read it, so routing a prompt no longer
costs every description again.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, Field

from ratchet.skills.skill import Skill

THRESHOLD = 0.2
MARGIN = 0.05

_WORD = re.compile(r"[a-z][a-z0-9]*")
_STOPWORDS_TEXT = """a about above after again all also am an and any are as at be because been before being below
    between both but by can could did do does doing done down during each either else etc every few for
    from further get gets had has have having he her here hers him his how i if in into is it its itself
    just let me more most much my need needs no nor not now of off on once one only or other our ours out
    over own please same she should so some such than that the their theirs them then there these they
    this those through to too under until up us use used uses using very via want was we were what when
    where which while who whom why will with would you your yours e g eg ie i.e like make sure"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def stem(word: str) -> str:
    """Light suffix stripping: enough to match issue/issues, convert/converting/converted."""
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("s", ""), ("ly", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)] + repl
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def _token(word: str) -> str:
    """A word's token: its stem, or "" for a stopword or a single letter (a stem is never empty)."""
    return stem(word) if word not in STOPWORDS and len(word) > 1 else ""


_REMEMBERED_WORDS = 1 << 16
_token_of: dict[str, str] = {}
"""Word -> _token(word), for tokens(): 10,000 prompts hold ~90,000 words but few distinct ones. Bounded:
cleared when full (a long `ratchet watch` may read unbounded text); a lost entry is only computed again."""


def _remember(word: str) -> str:
    if len(_token_of) >= _REMEMBERED_WORDS:
        _token_of.clear()
    token = _token_of[word] = _token(word)
    return token


def tokens(text: str) -> list[str]:
    """The stems of the words that count, in order (stopwords and single letters dropped)."""
    words = _WORD.findall(text.lower())
    try:
        return [token for word in words if (token := _token_of[word])]
    except KeyError:  # a word not seen before (or forgotten)
        return [token for word in words if (token := _token_of[word] if word in _token_of else _remember(word))]


TOKENIZER_DIGEST = hashlib.sha256(
    repr(
        (
            _WORD.pattern,
            sorted(STOPWORDS),
            stem.__code__.co_code,
            stem.__code__.co_consts,
            _token.__code__.co_code,
            tokens.__code__.co_code,
        )
    ).encode()
).hexdigest()
"""Names the tokenizer by its code, so tokens kept on disk (ratchet.agent.routed) by an older stemmer are never read."""


class Ranking(BaseModel):
    """Every skill's score for one prompt, best first, and what the matcher makes of it.

    Why: match_skill answers only the winner, so a task that fired the wrong skill (or none)
    gave the user nothing to fix it with; the score and the margin say how near it came.
    """

    ranked: list[tuple[str, float]] = Field(description="(skill, score) for every skill, best first; ties by name.")
    best: str | None = Field(description="The top-ranked skill the model may pick, whether or not it fired.")
    score: float = Field(description="The best's score (0.0 with no such skill).")
    margin: float = Field(description="The best's score minus the runner-up's (the best's score when alone).")
    fired: str | None = Field(description="What match_skill answers: best, if it clears THRESHOLD and MARGIN.")


def trigger_text(skill: Skill) -> str:
    """What a skill is matched on: its name (hyphens as spaces) and its description."""
    return skill.name.replace("-", " ") + " " + skill.description


@functools.lru_cache(maxsize=1 << 14)
def text_tokens(text: str) -> tuple[str, ...]:
    """tokens(text), remembered: a skill set's descriptions are tokenized once, not once per prompt or per edit."""
    return tuple(tokens(text))


class RoutingIndex:
    """One skill set, tokenized and counted once, so routing a prompt costs its words, not the skill count.

    Why: route_scores used to re-tokenize every description and recount every document frequency
    for every prompt (51 ms per task at 1,000 skills). The index holds each skill's term set and
    each term's document frequency. A rare term (in at most `rare_df` skills: max(16, sqrt of the
    skill count)) keeps its postings: a skill holding a rare word of the prompt is scored on its
    own, by the very expression route_scores always used. The other skills are grouped at build
    time by the common terms they hold; a group's members hold the same prompt words, so the group
    is scored once. That sum adds the same weights in another order than each member's own sum,
    which can move the last bits of the share but not its 6-decimal rounding, unless the share lies
    within 1e-9 of a rounding midpoint (the order changes it by < 1e-11 for under 10,000 words):
    then every member is scored on its own. So every score and every decision is the same to the
    last bit (tests/agent/test_routing_index.py keeps the old code as its oracle), and a prompt
    costs its rare postings plus one intersection per group (1 group for the benchmark's 1,000
    skills, one per skill at worst). In memory only: routing_index() shares one per skill set
    between selection, the runner and the bench. Not a pydantic model: it never crosses a process.

    `rare_df` and `midpoint_slack` exist for the tests, to force every path (all grouped, all on
    their own, every group near a midpoint).
    """

    __slots__ = (
        "_by_words",
        "_count",
        "_df",
        "_eligible",
        "_fired",
        "_groups",
        "_invocable",
        "_rare",
        "_slack",
        "_terms",
        "_unknown",
        "_weight",
        "names",
    )

    def __init__(
        self,
        skills: Mapping[str, Skill],
        *,
        rare_df: int | None = None,
        midpoint_slack: float = 1e-9,
        said: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        """`said`: text_tokens of trigger texts the caller has already (ratchet.agent.routed keeps them on disk)."""
        self.names: tuple[str, ...] = tuple(sorted(skills))
        known = said or {}
        self._terms: dict[str, set[str]] = {}
        for name, skill in skills.items():
            text = trigger_text(skill)
            self._terms[name] = set(known[text] if text in known else text_tokens(text))
        self._count = len(self._terms)
        postings: dict[str, list[str]] = {}
        for name in self.names:
            for term in self._terms[name]:
                postings.setdefault(term, []).append(name)
        self._df: dict[str, int] = {term: len(names) for term, names in postings.items()}
        # Each term's idf, once per index rather than once per prompt word: the same expression, the same float.
        count = self._count
        self._weight: dict[str, float] = {t: math.log(1.0 + (count + 1) / (df + 1)) for t, df in self._df.items()}
        self._unknown = math.log(1.0 + (count + 1) / (0 + 1))  # a word no skill holds
        limit = max(16, math.isqrt(self._count)) if rare_df is None else rare_df
        self._rare: dict[str, tuple[str, ...]] = {t: tuple(n) for t, n in postings.items() if len(n) <= limit}
        self._invocable: dict[str, bool] = {name: skills[name].model_invocable for name in self.names}
        self._eligible: tuple[str, ...] = tuple(name for name in self.names if self._invocable[name])
        grouped: dict[frozenset[str], list[str]] = {}
        for name in self.names:
            grouped.setdefault(frozenset(t for t in self._terms[name] if t not in self._rare), []).append(name)
        # (common terms, members by name, the members that may fire)
        self._groups: list[tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]] = [
            (common, tuple(members), tuple(m for m in members if self._invocable[m]))
            for common, members in grouped.items()
        ]
        self._slack = midpoint_slack * 1e6
        self._fired: dict[str, str | None] = {}  # prompt -> fired: selection's answer is the runner's
        # The prompt's word set -> fired: scoring reads nothing else, and prompts that differ only in
        # numbers, stopwords or word order (a task file's templates) share one.
        self._by_words: dict[frozenset[str], str | None] = {}

    def _scored(
        self, prompt: str, said: Iterable[str] | None = None
    ) -> tuple[dict[str, float], list[tuple[float, tuple[str, ...], tuple[str, ...]]]]:
        """Scores of the skills scored on their own, and (score, members, eligible members) per group.

        A group member that is also scored on its own takes that score; every skill in neither scores 0.0.
        `said` is tokens(prompt) when the caller has it already (ratchet.agent.routed keeps them on disk).
        """
        words = set(tokens(prompt) if said is None else said)
        if not words or not self._count:
            return {}, []
        weight, unknown = self._weight, self._unknown
        weights = {w: weight.get(w, unknown) for w in words}
        total = sum(weights.values())

        def own(name: str) -> float:
            return round(sum(weights[w] for w in words & self._terms[name]) / total, 6)

        alone: dict[str, float] = {}
        for w in words:
            for name in self._rare.get(w, ()):
                if name not in alone:  # a skill holding two of the prompt's rare words is scored once
                    alone[name] = own(name)
        groups = []
        for common, members, eligible in self._groups:
            held = [w for w in words if w in common]
            if not held:
                continue
            share = sum(weights[w] for w in held) / total
            scaled = share * 1e6
            if len(held) >= 10_000 or abs(scaled - math.floor(scaled) - 0.5) < self._slack:
                alone.update((name, own(name)) for name in members if name not in alone)
                continue
            groups.append((round(share, 6), members, eligible))
        return alone, groups

    def scores(self, prompt: str) -> dict[str, float]:
        """route_scores: every skill's score, by name."""
        alone, groups = self._scored(prompt)
        scores = dict.fromkeys(self.names, 0.0)
        for score, members, _ in groups:
            scores.update(dict.fromkeys(members, score))
        scores.update(alone)
        return scores

    def ranking(self, prompt: str) -> Ranking:
        """ranked_scores: the scores best first (ties by name), the margin and the skill that fires."""
        scored = [(name, score) for name, score in self.scores(prompt).items() if score > 0.0]
        ahead = {name for name, _ in scored}
        ranked = sorted(scored, key=_best_first) + [(name, 0.0) for name in self.names if name not in ahead]
        eligible = [(name, score) for name, score in ranked if self._invocable[name]]
        return _ranking(ranked, eligible)

    def fired(self, prompt: str, said: Iterable[str] | None = None) -> str | None:
        """match_skill: ranking(prompt).fired, from the two best eligible skills only (`said`: see _scored)."""
        if prompt in self._fired:
            return self._fired[prompt]
        words = tokens(prompt) if said is None else said if isinstance(said, list | tuple) else list(said)
        key = frozenset(words)
        if key in self._by_words:
            fired = self._fired[prompt] = self._by_words[key]
            return fired
        alone, groups = self._scored(prompt, words)
        top = [(name, score) for name, score in alone.items() if score > 0.0 and self._invocable[name]]
        for score, _, eligible in groups:
            if score > 0.0:
                top += [(name, score) for name in _first_two(eligible, alone)]
        top = sorted(top, key=_best_first)[:2]
        ahead = {name for name, _ in top}
        for name in self._eligible:  # the zero-score runners-up, in name order, when fewer than two scored
            if len(top) >= 2:
                break
            if name not in ahead:
                top.append((name, 0.0))
        fired = _decide(top, len(self._eligible))[3]
        self._fired[prompt] = self._by_words[key] = fired
        return fired


def _first_two(names: tuple[str, ...], skip: Mapping[str, float]) -> list[str]:
    """The first two of `names` not in `skip` (those were scored on their own)."""
    found: list[str] = []
    for name in names:
        if name not in skip:
            found.append(name)
            if len(found) == 2:
                break
    return found


def _best_first(item: tuple[str, float]) -> tuple[float, str]:
    return (-item[1], item[0])


def _ranking(ranked: list[tuple[str, float]], eligible: list[tuple[str, float]]) -> Ranking:
    best, score, margin, fired = _decide(eligible, len(eligible))
    # Built from values of the right types already: validating one tuple per skill per prompt was most of its cost.
    return Ranking.model_construct(ranked=ranked, best=best, score=score, margin=margin, fired=fired)


def _decide(eligible: list[tuple[str, float]], eligible_count: int) -> tuple[str | None, float, float, str | None]:
    """(best, score, margin, fired) over the eligible skills best first (`eligible` may be cut to its first two)."""
    if not eligible:
        return None, 0.0, 0.0, None
    best, score = eligible[0]
    alone = eligible_count == 1
    margin = score if alone else round(score - eligible[1][1], 6)
    # The comparisons use the unrounded difference, exactly as match_skill always has.
    clears = score >= THRESHOLD and (alone or score - eligible[1][1] >= MARGIN)
    return best, score, margin, best if clears else None


_RoutingKey = tuple[tuple[str, str, str, bool], ...]
_CACHE_SKILLS = 20_000  # skills held across cached indexes: 20 sets of 1,000, or 2,000 of 10
_cache: OrderedDict[_RoutingKey, RoutingIndex] = OrderedDict()
_cache_lock = threading.Lock()


def routing_index(skills: Mapping[str, Skill], said: Mapping[str, Sequence[str]] | None = None) -> RoutingIndex:
    """The index of this skill set, built once per content and shared (least recently used dropped first).

    The key is everything routing reads (each name, the skill's name, description and whether it
    may fire) and nothing else, so a body-only edit reuses its base's index; equal content gives
    the same index however the mapping was assembled. `said`: see RoutingIndex.
    """
    key: _RoutingKey = tuple((name, s.name, s.description, s.model_invocable) for name, s in skills.items())
    with _cache_lock:
        index = _cache.get(key)
        if index is not None:
            _cache.move_to_end(key)
            return index
    index = RoutingIndex(skills, said=said)
    with _cache_lock:
        _cache[key] = index
        held = sum(len(k) for k in _cache)
        while len(_cache) > 1 and held > _CACHE_SKILLS:
            dropped, _ = _cache.popitem(last=False)
            held -= len(dropped)
    return index


def route_scores(prompt: str, skills: Mapping[str, Skill]) -> dict[str, float]:
    """Score in [0, 1] per skill name: the idf-weighted share of the prompt the skill covers."""
    return routing_index(skills).scores(prompt)


def ranked_scores(prompt: str, skills: Mapping[str, Skill]) -> Ranking:
    """route_scores ranked, with the margin over the runner-up and the skill that fires.

    A skill the model may not pick itself (Skill.model_invocable False) never fires: it is left
    out after scoring, so every other skill's score stays what it was.
    """
    return routing_index(skills).ranking(prompt)


def match_skill(prompt: str, skills: Mapping[str, Skill]) -> str | None:
    """The skill that should take the prompt, or None (a valid answer: no skill applies)."""
    return routing_index(skills).fired(prompt)
