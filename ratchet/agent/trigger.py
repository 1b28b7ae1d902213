"""The lexical trigger matcher: which skill (if any) should take a prompt.

Each skill is a bag of stemmed words from its name and description. A prompt's score for a
skill is the idf-weighted share of the prompt's words that the skill's words cover; idf is
computed over the skill set, so words every skill uses count for little. The best skill fires
when it clears THRESHOLD and beats the runner-up by MARGIN; otherwise nothing fires.
Deterministic, and deliberately sensitive to description wording (R5/R6 edits move it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from pydantic import BaseModel, Field

from ratchet.skills import Skill

THRESHOLD = 0.2
MARGIN = 0.05

_WORD = re.compile(r"[a-z][a-z0-9]*")
_STOPWORDS_TEXT = (
    """a about above after again all also am an and any are as at be because been before being below
    between both but by can could did do does doing done down during each either else etc every few for
    from further get gets had has have having he her here hers him his how i if in into is it its itself
    just let me more most much my need needs no nor not now of off on once one only or other our ours out
    over own please same she should so some such than that the their theirs them then there these they
    this those through to too under until up us use used uses using very via want was we were what when
    where which while who whom why will with would you your yours e g eg ie i.e like make sure"""
)
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def stem(word: str) -> str:
    """Light suffix stripping: enough to match issue/issues, convert/converting/converted."""
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("s", ""), ("ly", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)] + repl
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def tokens(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]


def _skill_terms(skill: Skill) -> set[str]:
    return set(tokens(skill.name.replace("-", " ") + " " + skill.description))


def route_scores(prompt: str, skills: Mapping[str, Skill]) -> dict[str, float]:
    """Score in [0, 1] per skill name: the idf-weighted share of the prompt the skill covers."""
    terms = {name: _skill_terms(skill) for name, skill in skills.items()}
    count = len(terms)
    words = set(tokens(prompt))
    if not words or not count:
        return {name: 0.0 for name in sorted(skills)}

    def idf(word: str) -> float:
        df = sum(1 for t in terms.values() if word in t)
        return math.log(1.0 + (count + 1) / (df + 1))

    weights = {w: idf(w) for w in words}
    total = sum(weights.values())
    return {name: round(sum(weights[w] for w in words & terms[name]) / total, 6) for name in sorted(terms)}


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


def ranked_scores(prompt: str, skills: Mapping[str, Skill]) -> Ranking:
    """route_scores ranked, with the margin over the runner-up and the skill that fires.

    A skill the model may not pick itself (Skill.model_invocable False) never fires: it is left
    out after scoring, so every other skill's score stays what it was.
    """
    ranked = sorted(route_scores(prompt, skills).items(), key=lambda item: (-item[1], item[0]))
    eligible = [(name, score) for name, score in ranked if skills[name].model_invocable]
    if not eligible:
        return Ranking(ranked=ranked, best=None, score=0.0, margin=0.0, fired=None)
    best, score = eligible[0]
    margin = round(score - eligible[1][1], 6) if len(eligible) > 1 else score
    # The comparisons use the unrounded difference, exactly as match_skill always has.
    clears = score >= THRESHOLD and (len(eligible) == 1 or score - eligible[1][1] >= MARGIN)
    return Ranking(ranked=ranked, best=best, score=score, margin=margin, fired=best if clears else None)


def match_skill(prompt: str, skills: Mapping[str, Skill]) -> str | None:
    """The skill that should take the prompt, or None (a valid answer: no skill applies)."""
    return ranked_scores(prompt, skills).fired
