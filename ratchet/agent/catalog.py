"""The skill catalog, for `routing: model`: the model routes by reading it and calling load_skill.

Real harnesses (Claude Code, Codex) do not put a skill in the prompt up front: they list every
skill's name and description and let the model load one by a tool call. Under `routing: model`
the MinimalRunner does the same, so what Ratchet gates is the routing a model does.

The system prompt is prompt.system_prompt with no skill, then a blank line and the catalog:

    Skills you can load: ...(CATALOG_HEADER)
    <available_skills>
    - <name>: <description, whitespace collapsed to single spaces>
    </available_skills>

one line per model-invocable skill (frontmatter `disable-model-invocation` not true), sorted by
name. The catalog is last, after the fixed preamble and date: a description edit changes only the tail
(ADR 0022). A description is one line, so it cannot close the list nor form a `<skill name=...>` block,
which needs line breaks. load_skill answers with the skill's block exactly as the lexical path puts
it in the system prompt (cut from prompt.system_prompt, so its escaping applies), or a tool error.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ratchet.agent.prompt import system_prompt
from ratchet.agent.trigger import text_tokens, trigger_text
from ratchet.core.chat import ToolSpec
from ratchet.core.jsonio import canonical_dumps
from ratchet.skills.names import skill_key
from ratchet.skills.skill import Skill

LOAD_SKILL = "load_skill"
CATALOG_HEADER = (
    "Skills you can load: when one fits the request, call load_skill with its name and follow the "
    "instructions it returns; when none fits, do the work without one."
)
CATALOG_OPEN = "<available_skills>"
CATALOG_CLOSE = "</available_skills>"
_BLOCK_OPEN = '<skill name="'


def model_invocable(skills: Mapping[str, Skill]) -> dict[str, Skill]:
    """The skills a model may load, by name in name order: a skill only an explicit mention runs (Skill.model_invocable:
    `disable-model-invocation: true`, or Codex's `policy.allow_implicit_invocation: false`) is left out, as the
    trigger matcher leaves it out."""
    shown = [s for s in skills.values() if s.model_invocable]
    return {s.name: s for s in sorted(shown, key=lambda s: s.name)}


def render_catalog(skills: Mapping[str, Skill]) -> str:
    lines = [f"- {s.name}: {' '.join(s.description.split())}" for s in model_invocable(skills).values()]
    return "\n".join([CATALOG_HEADER, CATALOG_OPEN, *lines, CATALOG_CLOSE])


def catalog_system_prompt(frozen_time: str, skills: Mapping[str, Skill]) -> str:
    return system_prompt(frozen_time, None) + "\n\n" + render_catalog(skills)


def read_catalog(system: str) -> dict[str, str] | None:
    """Name -> description as a model reads them off a system prompt; None when it has no catalog."""
    lines = system.split("\n")
    if CATALOG_OPEN not in lines:
        return None
    entries: dict[str, str] = {}
    for line in lines[lines.index(CATALOG_OPEN) + 1 :]:
        if line == CATALOG_CLOSE:
            break
        name, sep, description = line.removeprefix("- ").partition(": ")
        if line.startswith("- ") and sep:
            entries[name] = description
    return entries


def load_skill_spec() -> ToolSpec:
    """The tool the model loads a skill with; its effect is `read` (it touches no world)."""
    return ToolSpec(
        name=LOAD_SKILL,
        description="[read] Load a skill from the catalog in the system prompt by its name. The result holds "
        "the skill's instructions: follow them.",
        parameters={
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The skill's name, as the catalog lists it."}},
            "required": ["name"],
        },
    )


def skill_block(skill: Skill, frozen_time: str) -> str:
    """The `<skill name=...>` block of the lexical path's system prompt, byte for byte."""
    prompt = system_prompt(frozen_time, skill)
    return prompt[prompt.index(_BLOCK_OPEN) :]


def answer_load(
    skills: Mapping[str, Skill], arguments: Mapping[str, Any], frozen_time: str
) -> tuple[Skill | None, str]:
    """What a load_skill call gets: (the skill, its block), or (None, a tool error as the runner writes one)."""
    shown = model_invocable(skills)
    listed = f"the catalog lists: {', '.join(shown)}"
    name = arguments.get("name")
    if not isinstance(name, str):
        return None, canonical_dumps(
            {"error": f"load_skill needs `name`, a skill name from the catalog; {listed}"}, indent=None
        )
    by_key = {skill_key(s.name): s for s in shown.values()}
    found = by_key.get(skill_key(name))
    if found is None:
        return None, canonical_dumps({"error": f"unknown skill {name!r}; {listed}"}, indent=None)
    return found, skill_block(found, frozen_time)


def nearest_skills(edited: Sequence[Skill], candidates: Mapping[str, Skill], k: int) -> list[str]:
    """The k candidate names nearest any of the `edited` skills (say its base and head versions), nearest first.

    Nearness is TF-IDF cosine of name + description over the trigger matcher's stemmed tokens (idf
    over the candidates and the edited); a candidate scores its best over `edited`; ties go by name. A
    model routes by meaning, so a zero score still counts: k are returned even when none shares a word.
    """
    names = sorted(candidates)
    if k <= 0 or not names or not edited:
        return []
    # Tokens come from text_tokens, which remembers each description's, so a check or a bench run
    # over many edits does not re-tokenize every candidate's description per edit.
    documents = [text_tokens(trigger_text(candidates[name])) for name in names] + [
        text_tokens(trigger_text(s)) for s in edited
    ]
    vectors = _tfidf(documents)
    if vectors is None:  # not one token anywhere (every word a stopword): nothing is nearer than anything else
        return names[:k]
    edited_vectors = vectors[len(names) :]
    best = {name: round(max(_dot(e, vectors[i]) for e in edited_vectors), 9) for i, name in enumerate(names)}
    return sorted(names, key=lambda name: (-best[name], name))[:k]


def _tfidf(documents: Sequence[Sequence[str]]) -> list[dict[str, float]] | None:
    """Each document's L2-normalized TF-IDF vector; None when no document has a token.

    The weighting is scikit-learn's TfidfVectorizer defaults (raw counts, smooth idf
    ln((1 + n) / (1 + df)) + 1, L2 norm), written out here so the gate does not need scikit-learn,
    which only the benchmark installs (`ratchet[bench]`); tests check it ranks as the vectorizer does.
    """
    counts = [Counter(document) for document in documents]
    frequency: Counter[str] = Counter(term for count in counts for term in count)
    if not frequency:
        return None
    n = len(documents)
    idf = {term: math.log((1 + n) / (1 + df)) + 1.0 for term, df in frequency.items()}
    vectors: list[dict[str, float]] = []
    for count in counts:
        weights = {term: tf * idf[term] for term, tf in sorted(count.items())}
        norm = math.sqrt(sum(w * w for w in weights.values()))
        vectors.append({term: w / norm for term, w in weights.items()} if norm else {})
    return vectors


def _dot(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return sum(weight * large[term] for term, weight in small.items() if term in large)
