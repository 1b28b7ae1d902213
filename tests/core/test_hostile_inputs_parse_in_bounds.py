"""Bounded parsing: no input file makes a parse hang, blow the stack or print a traceback.

Each hostile input (repeated `<!--`, a YAML alias bomb, deep nesting, a huge file or number,
bytes that are not UTF-8) ends in one line naming the file, or parses in linear time.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ratchet.bench.data.dataset import read_labels, read_reviews
from ratchet.core import yamlio
from ratchet.core.errors import ConfigError, GoldenError, InputError, TaskFileError
from ratchet.core.jsonio import MAX_JSON_DEPTH, load_json_file, load_json_text
from ratchet.core.markup import drop_comments_outside_fences as _drop_comments
from ratchet.core.yamlio import (
    MAX_ALIAS_NODES,
    MAX_YAML_DEPTH,
    item_lines,
    load_yaml_file,
    load_yaml_text,
)
from ratchet.goldens.trace import parse_trace, read_trace
from ratchet.skills.skill import validate_skill_folder

# A generous timeout for work that takes milliseconds when linear and minutes when it is not.
SUBPROCESS_TIMEOUT_S = 60

# The comment stripper as it was (a regex, quadratic on repeated unclosed `<!--`): the reference
# the linear one must agree with.
_OLD_FENCE_OR_COMMENT = re.compile(r"(^[ \t]*(```|~~~).*?^[ \t]*\2[^\n]*$)|<!--.*?-->", re.S | re.M)


def _old_drop_comments(text: str) -> str:
    return _OLD_FENCE_OR_COMMENT.sub(lambda m: m.group(1) or "", text)


def _run_python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run code in a fresh interpreter; a hang fails the test after the timeout instead of forever."""
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S, check=False
    )


def _bomb(levels: int = 9) -> str:
    """Billion laughs: each level is nine aliases of the one before (9**levels scalars expanded)."""
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def _write_skill(root: Path, name: str, text: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


# --- (a) comment stripping is linear and unchanged -------------------------------------------

_PIECES = ["<!--", "-->", "```", "~~~", "\n", "\r", " ", "\t", "a", "-", "<", "!", ">", "`", "~", "<!-->", "```py"]


def test_drop_comments_agrees_with_the_old_regex_on_generated_inputs() -> None:
    rng = random.Random(13)
    for _ in range(20_000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 14)))
        assert _drop_comments(text) == _old_drop_comments(text), repr(text)


def test_drop_comments_agrees_with_the_old_regex_on_every_short_input() -> None:
    alphabet = ["<!--", "-->", "```", "~~~", "\n", " ", "x"]
    texts = [""]
    for _ in range(5):
        texts = [t + piece for t in texts for piece in alphabet]
        for text in texts:
            assert _drop_comments(text) == _old_drop_comments(text), repr(text)


def test_drop_comments_agrees_with_the_old_regex_on_every_markdown_file_here() -> None:
    root = Path(__file__).resolve().parents[2]
    texts = [
        p.read_bytes().decode("utf-8", "replace")
        for folder in ("skills", "ratchet/data", "tests/data", "docs")
        for p in sorted((root / folder).rglob("*.md"))
    ]
    assert len(texts) > 20
    for text in texts:
        assert _drop_comments(text) == _old_drop_comments(text)


def test_repeated_unclosed_comments_strip_in_linear_time() -> None:
    # 400 KiB of `<!--`: minutes for the quadratic regex, milliseconds for a linear pass.
    code = (
        "import sys\nfrom ratchet.skills.skill import substance_of\n"
        "for text in ('<!--' * 102400, '<!--\\n```\\n' * 40960, '```\\n' + '<!--' * 102400):\n"
        "    substance_of(text)\nprint('done')\n"
    )
    assert _run_python(code).stdout == "done\n"


# --- (b) YAML: aliases, depth and size are bounded --------------------------------------------


def test_yaml_alias_bomb_is_refused_not_expanded() -> None:
    with pytest.raises(TaskFileError) as caught:
        load_yaml_text(_bomb(), source="tasks.yaml", error=TaskFileError)
    assert str(caught.value) == (
        f"tasks.yaml:6: refused: YAML aliases expand past {MAX_ALIAS_NODES} nodes (an alias bomb?)"
    )


def test_yaml_aliases_within_the_limit_still_load() -> None:
    text = "base: &b {model: m, retries: 2}\nnano: {<<: *b, model: n}\nsuper: *b\n"
    assert load_yaml_text(text, source="x.yaml") == {
        "base": {"model": "m", "retries": 2},
        "nano": {"model": "n", "retries": 2},
        "super": {"model": "m", "retries": 2},
    }


def test_yaml_recursive_alias_is_refused() -> None:
    with pytest.raises(InputError) as caught:
        load_yaml_text("a: &a\n  - *a\n", source="w.yaml")
    assert str(caught.value) == "w.yaml:2: refused: recursive YAML alias"


@pytest.mark.parametrize("text", ["[" * 1000 + "]" * 1000, "a:\n" + "".join(" " * i + "- \n" for i in range(1, 400))])
def test_deep_yaml_is_an_input_error_not_a_recursion_error(text: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_yaml_text(text, source="ratchet.yaml", error=ConfigError)
    assert re.fullmatch(
        rf"ratchet\.yaml:\d+: refused: YAML nested more than {MAX_YAML_DEPTH} levels deep", str(caught.value)
    )
    assert item_lines(text, "tasks") == []


def test_yaml_depth_limit_is_inclusive() -> None:
    depth = MAX_YAML_DEPTH
    assert load_yaml_text("[" * depth + "]" * depth, source="x.yaml") is not None
    with pytest.raises(InputError, match="nested more than"):
        load_yaml_text("[" * (depth + 1) + "]" * (depth + 1), source="x.yaml")


def test_yaml_size_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlio, "MAX_YAML_BYTES", 16)
    path = tmp_path / "world.yaml"
    path.write_text("a: 1\n# é-padded\n", encoding="utf-8")  # 17 bytes, 16 characters
    with pytest.raises(InputError) as caught:
        load_yaml_file(path)
    assert str(caught.value) == f"{path}: refused: 17 bytes; the limit for a YAML file is 16 bytes"
    with pytest.raises(InputError, match="the limit for a YAML file is 16 bytes"):
        load_yaml_text(path.read_text(encoding="utf-8"), source="world.yaml")
    path.write_text("a: 1\n# padded..\n", encoding="utf-8")  # 16 bytes: at the limit
    assert load_yaml_file(path) == {"a": 1}


def test_default_yaml_size_cap_is_two_mib() -> None:
    assert yamlio.MAX_YAML_BYTES == 2 * 1024 * 1024
    with pytest.raises(TaskFileError, match="the limit for a YAML file is 2097152 bytes"):
        load_yaml_text("tasks: []\n" + "#" * yamlio.MAX_YAML_BYTES, source="tasks.yaml", error=TaskFileError)


def test_non_utf8_yaml_file_is_one_line_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "tasks.yaml"
    path.write_bytes(b"tasks:\n  - id: caf\xe9\n")
    with pytest.raises(TaskFileError) as caught:
        load_yaml_file(path, error=TaskFileError)
    assert str(caught.value) == f"{path}:2: not UTF-8 text (byte 18): save the file as UTF-8"


def test_skill_frontmatter_alias_bomb_is_one_error(tmp_path: Path) -> None:
    folder = _write_skill(tmp_path, "bomb", "---\nname: bomb\ndescription: d\n" + _bomb(levels=6) + "---\nBody\n")
    assert [p.render() for p in validate_skill_folder(folder)] == [
        f"{folder}/SKILL.md:9: error: frontmatter refused: YAML aliases expand past {MAX_ALIAS_NODES} nodes "
        "(an alias bomb?)"
    ]


def test_skill_frontmatter_nesting_is_one_error(tmp_path: Path) -> None:
    folder = _write_skill(
        tmp_path, "deep", "---\nname: deep\ndescription: d\nmetadata: " + "[" * 500 + "]" * 500 + "\n---\n"
    )
    assert [p.render() for p in validate_skill_folder(folder)] == [
        f"{folder}/SKILL.md:4: error: frontmatter refused: YAML nested more than {MAX_YAML_DEPTH} levels deep"
    ]


def test_validate_cli_finishes_on_a_billion_laughs(tmp_path: Path) -> None:
    folder = _write_skill(tmp_path, "bomb", "---\nname: bomb\ndescription: d\n" + _bomb() + "---\nBody\n")
    result = _run_python("from ratchet.cli import main; main()", "validate", str(folder))
    assert (result.returncode, result.stderr) == (2, "")
    assert result.stdout == (
        f"{folder}/SKILL.md:9: error: frontmatter refused: YAML aliases expand past {MAX_ALIAS_NODES} nodes "
        "(an alias bomb?)\n1 skill checked: 1 error, 0 warnings\n"
    )


# --- (c) JSON: one reader, one line for every malformed file ---------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{\n  "a": [1,\n}', "g.json:3: not valid JSON: Expecting value"),
        ("[" * 100_000 + "]" * 100_000, f"g.json: refused: JSON nested more than {MAX_JSON_DEPTH} levels deep"),
        (
            "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1),
            f"g.json: refused: JSON nested more than {MAX_JSON_DEPTH} levels deep",
        ),
        ('{"cost": ' + "9" * 5000 + "}", "g.json: refused: a JSON number longer than 4300 digits"),
    ],
)
def test_load_json_text_refuses_with_one_line(text: str, message: str) -> None:
    with pytest.raises(GoldenError) as caught:
        load_json_text(text, source="g.json", error=GoldenError)
    assert str(caught.value) == message


def test_load_json_depth_limit_is_inclusive() -> None:
    depth = MAX_JSON_DEPTH
    assert load_json_text("[" * depth + "]" * depth, source="g.json", error=InputError) is not None
    assert load_json_text('{"a": 1e400, "b": 12}', source="g.json", error=InputError) == {"a": float("inf"), "b": 12}


def test_load_json_file_names_non_utf8_bytes_and_their_line(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_bytes(b'{\n  "output": "caf\xe9"\n}\n')
    with pytest.raises(GoldenError) as caught:
        load_json_file(path, error=GoldenError)
    assert str(caught.value) == f"{path}:2: not UTF-8 text (byte 18): save the file as UTF-8"
    with pytest.raises(GoldenError) as caught:
        load_json_file(tmp_path / "missing.json", error=GoldenError)
    assert str(caught.value) == f"{tmp_path / 'missing.json'}: cannot read: No such file or directory"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"schema_version": 1, "x": "\xff"}', ":1: not UTF-8 text (byte 28): save the file as UTF-8"),
        (b"[" * 50_000 + b"]" * 50_000, f": refused: JSON nested more than {MAX_JSON_DEPTH} levels deep"),
        (b'{"n": ' + b"1" * 10_000 + b"}", ": refused: a JSON number longer than 4300 digits"),
    ],
)
def test_read_trace_refuses_with_one_golden_error(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "golden.json"
    path.write_bytes(data)
    with pytest.raises(GoldenError) as caught:
        read_trace(path)
    assert str(caught.value) == f"{path}{message}"
    if data.isascii():
        with pytest.raises(GoldenError) as caught:
            parse_trace(data.decode(), source="HEAD:goldens/s/t.json")
        assert str(caught.value) == f"HEAD:goldens/s/t.json{message}"


@pytest.mark.parametrize("reader", [read_labels, read_reviews])
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"labels": "\xff"}', ":1: not UTF-8 text (byte 12): save the file as UTF-8"),
        (b"[" * 50_000 + b"]" * 50_000, f": refused: JSON nested more than {MAX_JSON_DEPTH} levels deep"),
        (b'{"n": ' + b"1" * 10_000 + b"}", ": refused: a JSON number longer than 4300 digits"),
        (b'{\n"a": }', ":2: not valid JSON: Expecting value"),
    ],
)
def test_labels_and_reviews_refuse_with_one_input_error(
    tmp_path: Path, reader: object, data: bytes, message: str
) -> None:
    path = tmp_path / "labels.json"
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        reader(path)  # type: ignore[operator]
    assert str(caught.value) == f"{path}{message}"
