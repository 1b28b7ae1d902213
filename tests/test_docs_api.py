"""docs/api.md's example runs as printed and prints what the page says it prints.

Why: the example is what a team copies to script against the public API, so it must not drift from
`check_edit`'s signature, the models or the demo's verdicts (as docs/quickstart.md cannot:
tests/test_docs_quickstart.py). The ```python block runs in a fresh interpreter (so `import ratchet`
alone is what it starts from) with Ratchet's work area in a temporary folder and no RATCHET_* setting
from the shell; its stdout must equal the ```text block after it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

API = Path(__file__).resolve().parents[1] / "docs" / "api.md"
_BLOCK = re.compile(r"^```(python|text)\n(.*?)^```$", re.S | re.M)


def example_and_output(text: str) -> tuple[str, str]:
    """The page's one ```python block and the ```text block that follows it."""
    blocks = _BLOCK.findall(text)
    assert [kind for kind, _ in blocks] == ["python", "text"], "docs/api.md: one python block, then its output"
    return blocks[0][1], blocks[1][1]


def test_the_api_example_prints_what_the_page_says(tmp_path: Path) -> None:
    code, printed = example_and_output(API.read_text(encoding="utf-8"))
    # The shell's environment, as a reader's would be, without what would steer Ratchet or git elsewhere.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RATCHET_", "GIT_")) and k != "CI"}
    env["RATCHET_HOME"] = str(tmp_path / "home")
    ran = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout == printed


def test_the_example_uses_only_the_public_api() -> None:
    import ratchet

    code, _ = example_and_output(API.read_text(encoding="utf-8"))
    used = set(re.findall(r"\bratchet\.(\w+)", code))
    assert used and used <= set(ratchet.__all__), used - set(ratchet.__all__)
    assert not re.search(r"^\s*from ratchet\.|^\s*import ratchet\.", code, re.M)


def test_every_public_name_is_documented() -> None:
    import ratchet

    text = API.read_text(encoding="utf-8")
    missing = [name for name in ratchet.__all__ if f"`{name}" not in text]
    assert not missing, f"docs/api.md does not list: {missing}"
