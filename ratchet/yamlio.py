"""YAML reading with one-line errors that name the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ratchet.errors import InputError


def load_yaml_text(text: str, *, source: str, error: type[InputError] = InputError) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line = mark.line + 1 if mark is not None else None
        raise error(f"not valid YAML: {problem}", path=source, line=line) from None


def load_yaml_file(path: Path, *, error: type[InputError] = InputError) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error("file not found", path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read: {exc}", path=path) from None
    return load_yaml_text(text, source=str(path), error=error)


def item_lines(text: str, list_key: str) -> list[int]:
    """1-based line of each item of the top-level list `list_key` (for error messages)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value == list_key and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []
