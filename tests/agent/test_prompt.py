"""The system prompt's skill body: comments and blank runs normalized, byte-identical to the old regex."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

from ratchet.agent.prompt import normalize_body

# normalize_body as it was (a regex, quadratic on repeated unclosed `<!--`): every prompt, and so
# every golden's cache key, was built with it, so the linear one must give the same bytes.
_OLD_COMMENT = re.compile(r"<!--.*?-->", re.S)


def _old_normalize_body(body: str) -> str:
    text = _OLD_COMMENT.sub("", body)
    out: list[str] = []
    for line in (line.rstrip() for line in text.splitlines()):
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n")


_PIECES = ["<!--", "-->", "```", "~~~", "\n", "\r", " ", "\t", "a", "-", "<", "!", ">", "<!-->", "<!--->", "\n\n"]


def test_comments_and_blank_runs_are_dropped() -> None:
    body = "# Title  \n\n<!-- note -->\n\n\nStep <!-- a\nb --> one.\n```\n<!-- fenced -->\n```\n<!-- open"
    assert normalize_body(body) == "# Title\n\nStep  one.\n```\n\n```\n<!-- open"


def test_agrees_with_the_old_regex_on_generated_inputs() -> None:
    rng = random.Random(17)
    for _ in range(20_000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 14)))
        assert normalize_body(text) == _old_normalize_body(text), repr(text)


def test_agrees_with_the_old_regex_on_every_short_input() -> None:
    alphabet = ["<!--", "-->", "```", "\n", " ", "x", "<!-->"]
    texts = [""]
    for _ in range(5):
        texts = [t + piece for t in texts for piece in alphabet]
        for text in texts:
            assert normalize_body(text) == _old_normalize_body(text), repr(text)


def test_agrees_with_the_old_regex_on_every_markdown_file_here() -> None:
    root = Path(__file__).resolve().parents[2]
    texts = [
        p.read_bytes().decode("utf-8", "replace")
        for folder in ("skills", "ratchet/data", "tests/data", "docs")
        for p in sorted((root / folder).rglob("*.md"))
    ]
    assert len(texts) > 20
    for text in texts:
        assert normalize_body(text) == _old_normalize_body(text)


def test_repeated_unclosed_comments_normalize_in_linear_time() -> None:
    # 400 KiB of `<!--`: minutes for the quadratic regex, milliseconds for a linear pass.
    code = (
        "from ratchet.agent.prompt import normalize_body\n"
        "for text in ('<!--' * 102400, '<!-- -->' + '<!--\\n' * 102400):\n"
        "    normalize_body(text)\nprint('done')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert result.stdout == "done\n", result.stderr
