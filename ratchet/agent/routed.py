"""Where every task's prompt routes under a skill set, with what a fresh process can skip kept on disk.

Why: selection routes every prompt under the head's skills (match_skill), and at 10,000 tasks a
fresh process spent most of a check's first selection tokenizing prompts and scoring them. Two
facts make most of that reusable (ratchet.store.parsed keeps it by content, so nothing stale is
ever read):

- a prompt's tokens depend on its text and the tokenizer only;
- when an edit keeps the skill set's names and which skills may fire, only the words a changed
  skill gained or lost change their document frequency. A prompt that holds none of them weighs
  its words as before and covers the same words of every skill, changed or not, so every score is
  the same and it fires what it fired under the base.

So the answers of a skill set are stored under a digest of everything routing reads; an edit's
answers are its base's, with only the prompts holding a word the edit added or removed routed again. The answers are exactly match_skill's (tests/agent/test_routed_cache.py checks cold, warm
and damaged entries against it).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from ratchet.agent.trigger import MARGIN, THRESHOLD, TOKENIZER_DIGEST, routing_index, text_tokens, tokens, trigger_text
from ratchet.core.gcpause import gc_paused
from ratchet.skills.skill import Skill
from ratchet.store.parsed import ParsedCache

ROUTED_VERSION = 1
Postings = dict[str, str]
"""Raise when what routing answers changes other than through the tokenizer (THRESHOLD, MARGIN, scoring)."""
_TOKENIZER = TOKENIZER_DIGEST
_ROUTER = f"{TOKENIZER_DIGEST}:{THRESHOLD}:{MARGIN}"


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


def _routing_key(skills: Mapping[str, Skill]) -> list[tuple[str, str, str, bool]]:
    """Everything routing reads of a skill set (trigger.routing_index's key), in name order."""
    return [(name, s.name, s.description, s.model_invocable) for name, s in sorted(skills.items())]


def word_postings(prompts: Sequence[str], cache: ParsedCache, said: Sequence[Sequence[str]] | None = None) -> Postings:
    """Each word of the prompts (trigger.tokens) -> the indexes of the prompts holding it, from the cache when
    these prompts were tokenized before (`said`: their tokens, when the caller has them already).

    Kept inverted, the indexes as one string per word: finding the prompts an edit's words reach then
    reads a few thousand short strings, not a list of words per prompt.
    """
    key = f"{_TOKENIZER}:{_digest(list(prompts))}"
    stored = cache.get("prompt-words", ROUTED_VERSION, key)
    if isinstance(stored, dict) and all(isinstance(held, str) for held in stored.values()):
        return stored
    found: defaultdict[str, list[int]] = defaultdict(list)  # not setdefault: that makes a list per word per prompt
    for index, words in enumerate(said if said is not None else [tokens(prompt) for prompt in prompts]):
        for word in set(words):
            found[word].append(index)
    postings = {word: " ".join(map(str, held)) for word, held in found.items()}
    cache.put("prompt-words", ROUTED_VERSION, key, postings)
    return postings


def holding(postings: Postings, words: Iterable[str]) -> set[int]:
    """The indexes of the prompts holding any of `words` (ValueError from a damaged entry)."""
    return {int(index) for word in words for index in postings.get(word, "").split()}


def skill_words(cache: ParsedCache, key: str) -> dict[str, Sequence[str]]:
    """text_tokens of every skill's trigger text, by the text, from the cache when `key` (the skill set's
    digest) was stored before; the caller stores them with keep_skill_words."""
    stored = cache.get("skill-words", ROUTED_VERSION, f"{_TOKENIZER}:{key}")
    if isinstance(stored, dict) and all(isinstance(words, str) for words in stored.values()):
        return {text: words.split() for text, words in stored.items()}
    return {}


def keep_skill_words(skills: Mapping[str, Skill], cache: ParsedCache, key: str) -> None:
    texts = [trigger_text(skill) for skill in skills.values()]
    cache.put("skill-words", ROUTED_VERSION, f"{_TOKENIZER}:{key}", {t: " ".join(text_tokens(t)) for t in texts})


def _answers(cache: ParsedCache, skills_key: str, prompts_id: str, count: int) -> list[str | None] | None:
    stored = cache.get("routed", ROUTED_VERSION, f"{_ROUTER}:{skills_key}:{prompts_id}")
    if isinstance(stored, list) and len(stored) == count and all(a is None or isinstance(a, str) for a in stored):
        return stored
    return None


def _keep(cache: ParsedCache, skills_key: str, prompts_id: str, answers: list[str | None]) -> None:
    cache.put("routed", ROUTED_VERSION, f"{_ROUTER}:{skills_key}:{prompts_id}", answers)


def moved_words(base: Mapping[str, Skill], head: Mapping[str, Skill]) -> set[str] | None:
    """The words a changed skill gained or lost (in its base or its head text, not both); None when the skill
    set's names or which skills may fire differ (then every word's weight or every decision may move).

    A word a skill keeps keeps its document frequency, and a prompt holding none of the gained or lost
    words covers the same words of the changed skill as before: every score it gets is unchanged."""
    if base.keys() != head.keys() or any(base[n].model_invocable != head[n].model_invocable for n in head):
        return None
    moved: set[str] = set()
    for name in head:
        if (base[name].name, base[name].description) != (head[name].name, head[name].description):
            moved.update(set(text_tokens(trigger_text(base[name]))) ^ set(text_tokens(trigger_text(head[name]))))
    return moved


def fired_for(
    prompts: Sequence[str],
    skills: Mapping[str, Skill],
    *,
    cache: ParsedCache | None = None,
    base: Mapping[str, Skill] | None = None,
) -> list[str | None]:
    """match_skill(prompt, skills) for every prompt, in order.

    With a cache: a skill set routed before answers from disk; otherwise, when `base` was routed
    before and the edit keeps its names and who may fire, only the prompts holding a moved word are
    routed. The answers (and, when `base` is given, the base's) are stored for the next process.
    With the cyclic collector paused (ratchet.core.gcpause): at 10,000 prompts one full pass cost more than the rest.
    """
    with gc_paused():
        return _fired_for(prompts, skills, cache, base)


def _fired_for(
    prompts: Sequence[str], skills: Mapping[str, Skill], cache: ParsedCache | None, base: Mapping[str, Skill] | None
) -> list[str | None]:
    if cache is None:
        index = routing_index(skills)
        return [index.fired(prompt) for prompt in prompts]
    prompts_id, head_key = _digest(list(prompts)), _digest(_routing_key(skills))
    known = _answers(cache, head_key, prompts_id, len(prompts))
    if known is not None:
        return known
    moved = moved_words(base, skills) if base is not None else None
    base_key = _digest(_routing_key(base)) if base is not None and moved is not None else None
    answers = None if base_key is None else _from_base(prompts, skills, cache, base_key, prompts_id, moved or set())
    if answers is None:
        said = [tokens(prompt) for prompt in prompts]
        word_postings(prompts, cache, said)
        index = routing_index(skills)
        answers = [index.fired(prompt, words) for prompt, words in zip(prompts, said, strict=True)]
        if base is not None and base_key is not None and moved is not None:
            # The base's answers cost only the prompts holding a moved word: the rest fire the same (and
            # when none holds one, the base's index is not even built).
            reached = {i for i, words in enumerate(said) if moved.intersection(words)}
            old = routing_index(base) if reached else None
            at_base = [
                old.fired(prompts[i], said[i]) if old is not None and i in reached else now
                for i, now in enumerate(answers)
            ]
            _keep(cache, base_key, prompts_id, at_base)
            keep_skill_words(base, cache, base_key)
    _keep(cache, head_key, prompts_id, answers)
    return answers


def _from_base(
    prompts: Sequence[str],
    skills: Mapping[str, Skill],
    cache: ParsedCache,
    base_key: str,
    prompts_id: str,
    moved: set[str],
) -> list[str | None] | None:
    """The base's stored answers with the prompts holding a moved word routed again; None when not stored."""
    before = _answers(cache, base_key, prompts_id, len(prompts))
    if before is None:
        return None
    try:
        reached = holding(word_postings(prompts, cache), moved)
    except ValueError:
        return None  # a damaged entry: every prompt is routed instead
    if not reached:
        return before
    index = routing_index(skills, skill_words(cache, base_key))
    return [index.fired(prompts[i]) if i in reached else was for i, was in enumerate(before)]
