"""A SKILL.md's frontmatter: split off the body, then read as YAML into entries by key, each with its line.

Scalars are read as text, never as a value constructed from a tag (ratchet/skills/skill.py says why).
"""

from __future__ import annotations

from typing import Any

import yaml

from ratchet.core.yamlio import YamlLimitError, compose_yaml
from ratchet.skills.problems import Report


class Entry:
    """One frontmatter entry: its text-valued data, its YAML node and its 1-based line."""

    def __init__(self, value: Any, node: yaml.Node, line: int) -> None:
        self.value = value
        self.node = node
        self.line = line


def _plain(node: yaml.Node, active: set[int]) -> Any:
    """Node -> str | list | dict, scalars as their text (never a tag-constructed value)."""
    if isinstance(node, yaml.ScalarNode):
        return str(node.value)
    if id(node) in active:
        raise ValueError("recursive YAML alias")
    active.add(id(node))
    try:
        if isinstance(node, yaml.SequenceNode):
            return [_plain(item, active) for item in node.value]
        if isinstance(node, yaml.MappingNode):
            return {
                _plain(k, active) if isinstance(k, yaml.ScalarNode) else repr(_plain(k, active)): _plain(v, active)
                for k, v in node.value
            }
        raise ValueError(f"unsupported YAML node {type(node).__name__}")
    finally:
        active.discard(id(node))


def split_frontmatter(text: str, report: Report) -> tuple[str, int, int] | None:
    """(frontmatter YAML, index of the closing line, body start offset) or None after an error."""
    lines = text.split("\n")
    if lines[0].startswith("\ufeff"):
        report.error("SKILL.md starts with a byte-order mark: save it as UTF-8 without BOM", 1)
        return None
    if lines[0].rstrip() != "---":
        report.error("frontmatter missing: SKILL.md must start with a '---' line, then YAML, then '---'", 1)
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return "\n".join(lines[1:i]), i, sum(len(x) + 1 for x in lines[: i + 1])
    report.error("frontmatter not terminated: add a '---' line after the YAML", 1)
    return None


def read_frontmatter(yaml_text: str, report: Report) -> dict[str, Entry] | None:
    """Frontmatter entries by key, or None after an error. YAML line 1 is SKILL.md line 2."""
    try:
        # Recursion passes here so _plain can name the key it is under; depth and alias bombs do not.
        root = compose_yaml(yaml_text, allow_recursion=True)
    except YamlLimitError as exc:
        report.error(f"frontmatter {exc.message}", exc.line + 1)
        return None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        report.error(f"frontmatter is not valid YAML: {problem}", mark.line + 2 if mark is not None else 1)
        return None
    if not isinstance(root, yaml.MappingNode):
        kind = "empty" if root is None else f"a {type(root).__name__.removesuffix('Node').lower()}"
        report.error(f"frontmatter must be a YAML mapping (name: ..., description: ...), not {kind}", 2)
        return None
    fields: dict[str, Entry] = {}
    for key, value in root.value:
        line = key.start_mark.line + 2
        if not isinstance(key, yaml.ScalarNode):
            report.error("frontmatter keys must be plain strings", line)
            continue
        if key.value in fields:
            report.error(f"duplicate frontmatter key '{key.value}' (first on line {fields[key.value].line})", line)
            continue
        try:
            fields[key.value] = Entry(_plain(value, set()), value, line)
        except ValueError as exc:
            report.error(f"frontmatter key '{key.value}': {exc}", line)
    return None if report.has_error else fields


def entry_text(fields: dict[str, Entry], key: str, report: Report) -> str | None:
    """The key's string value, or None (absent, or not a string: reported)."""
    field = fields.get(key)
    if field is None:
        return None
    if not isinstance(field.node, yaml.ScalarNode):
        report.error(
            f"'{key}' must be a string, not a YAML {type(field.node).__name__.removesuffix('Node').lower()}", field.line
        )
        return None
    return str(field.value)
