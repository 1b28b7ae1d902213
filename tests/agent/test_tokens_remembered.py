"""trigger.tokens remembers each word's token, and answers exactly what tokenizing every word afresh answers.

Why: a cold selection at 10,000 prompts stemmed ~90,000 words one by one, nearly all of them seen before.
The reference below is the tokenizer as it was before it remembered anything.
"""

from __future__ import annotations

import random
import string

from ratchet.agent import trigger
from ratchet.agent.trigger import STOPWORDS, stem, tokens
from tests.helpers.routing_oracle import random_text


def _afresh(text: str) -> list[str]:
    return [stem(w) for w in trigger._WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]


def _texts(rng: random.Random) -> list[str]:
    alphabet = string.ascii_letters + string.digits + " -.,'éİ\u212a"  # İ and the Kelvin sign lower() to ASCII
    made = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(300)]
    suffixed = [
        f"{w}{s}"
        for w in ("stud", "cla", "xx", "bo", "pass", "fil")
        for s in ("ies", "ing", "ed", "s", "ly", "e", "ss", "")
    ]
    return made + [random_text(rng, 0, 30) for _ in range(300)] + suffixed + sorted(STOPWORDS) + ["", "I", "A1 b2 c"]


def test_every_text_tokenizes_as_afresh_seen_once_or_again() -> None:
    texts = _texts(random.Random(29))
    for _ in range(2):  # the second round reads remembered words only
        for text in texts:
            assert tokens(text) == _afresh(text), text
    assert tokens(" ".join(texts)) == _afresh(" ".join(texts))


def test_the_memory_is_bounded() -> None:
    for n in range(trigger._REMEMBERED_WORDS + 10):
        tokens(f"w{n}")
    assert len(trigger._token_of) <= trigger._REMEMBERED_WORDS
    assert tokens("issues converting") == _afresh("issues converting") == ["issu", "convert"]
