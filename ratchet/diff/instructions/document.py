"""A whole SKILL.md (or a reference .md) read as instructions: its frontmatter keys, then its body as the
harness sends it."""

from __future__ import annotations

import bisect

import yaml

from ratchet.core.markup import kept_outside_html_comments
from ratchet.core.yamlio import YamlLimitError, compose_yaml
from ratchet.diff.instructions.body import Body
from ratchet.diff.instructions.instruction import Instruction


def read_instructions(text: str, *, strips_comments: bool) -> list[Instruction]:
    """Every instruction of a SKILL.md (or a reference .md: frontmatter optional), in order."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    found: list[Instruction] = []
    body, body_line = text, 1
    lines = text.split("\n")
    if lines and lines[0].rstrip() == "---":
        closing = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
        if closing is not None:
            found.extend(_frontmatter("\n".join(lines[1:closing])))
            body, body_line = "\n".join(lines[closing + 1 :]), closing + 2
    sent, origins = _as_sent(body, body_line, strips_comments)
    found.extend(Body(origins).read(sent.split("\n")))
    return found


# -- what the harness sends ----------------------------------------------------------------------


def _as_sent(body: str, first_line: int, strips_comments: bool) -> tuple[str, list[int]]:
    """The body as the harness sends it, and the original line of each of its lines.

    Without comments, exactly the text ratchet.core.markup.drop_html_comments keeps (the minimal
    runner's prompt), built from the same scan so the two cannot disagree on what a comment is.
    """
    spans = kept_outside_html_comments(body) if strips_comments else [(0, len(body))]
    newlines = [index for index, char in enumerate(body) if char == "\n"]
    # A newline at newlines[k] starts line first_line + k + 1 of the file.
    origins = [first_line + bisect.bisect_left(newlines, spans[0][0])]
    pieces: list[str] = []
    for start, end in spans:
        pieces.append(body[start:end])
        origins.extend(
            first_line + k + 1 for k in range(bisect.bisect_left(newlines, start), bisect.bisect_left(newlines, end))
        )
    return "".join(pieces), origins


# -- frontmatter ---------------------------------------------------------------------------------


def _frontmatter(yaml_text: str) -> list[Instruction]:
    """One instruction per frontmatter key (a mapping's keys as `key.sub`); raw lines when it is not YAML."""
    try:
        root = compose_yaml(yaml_text)
    except (yaml.YAMLError, YamlLimitError):
        root = None
    if not isinstance(root, yaml.MappingNode):
        return [
            Instruction(kind="field", text=" ".join(line.split()), line=index + 2, field_name="frontmatter")
            for index, line in enumerate(yaml_text.split("\n"))
            if line.strip()
        ]
    found: list[Instruction] = []
    for key, value in root.value:
        name = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
        line = key.start_mark.line + 2
        if isinstance(value, yaml.MappingNode):
            for sub_key, sub_value in value.value:
                sub = str(sub_key.value) if isinstance(sub_key, yaml.ScalarNode) else "?"
                found.append(
                    Instruction(
                        kind="field",
                        text=_flat(sub_value),
                        line=sub_key.start_mark.line + 2,
                        field_name=f"{name}.{sub}",
                    )
                )
        else:
            found.append(Instruction(kind="field", text=_flat(value), line=line, field_name=name))
    return found


def _flat(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return " ".join(str(node.value).split())
    if isinstance(node, yaml.SequenceNode):
        return ", ".join(_flat(item) for item in node.value)
    if isinstance(node, yaml.MappingNode):
        return "; ".join(f"{_flat(k)}: {_flat(v)}" for k, v in node.value)
    return ""
