"""The rules a SKILL.md is held to: agentskills.io's, and where Ratchet departs from them.

The departures (client-specific keys, look-alike names, a body that closes the skill block) and why
are written down in docs/adr/0002-skill-validation.md. Each rule adds its problems to the report;
check_text gives what a Skill is made of when none of them is an error (ratchet/skills/skill.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import yaml

from ratchet.core.ids import MAX_SKILL_NAME_CHARS
from ratchet.skills.codex_policy import read_codex_policy
from ratchet.skills.frontmatter import Entry, entry_text, read_frontmatter, split_frontmatter
from ratchet.skills.names import is_lookalike, skill_key
from ratchet.skills.problems import Problem, Report

MAX_DESCRIPTION_CHARS = 1024
MAX_COMPATIBILITY_CHARS = 500
MAX_BODY_LINES = 500
SPEC_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
SKILL_CLOSE = "</skill>"  # closes the skill block of the agent's system prompt (ratchet.agent.prompt)
# Keys that some clients (Claude Code's frontmatter reference lists these) read; the spec does not
# define them, so other clients ignore them. Rejecting them would fail skills that work where they
# were written (docs/adr/0002). Any other key stays an error: most often it is a typo.
CLIENT_KEYS = (
    "disable-model-invocation",
    "user-invocable",
    "argument-hint",
    "arguments",
    "model",
    "effort",
    "context",
    "agent",
    "hooks",
    "paths",
    "shell",
    "when_to_use",
)
_SKILL_CLOSE_ANY = re.compile(r"</\s*" + re.escape(SKILL_CLOSE[2:-1]) + r"\s*>", re.I)
_TRUE = frozenset({"true", "True", "TRUE"})


class Checked(NamedTuple):
    """What the rules read from a SKILL.md with no error: the parts its Skill is made of."""

    name: str
    description: str
    body: str
    body_line: int
    fields: dict[str, Entry]
    model_invocable: bool


def _check_name(fields: dict[str, Entry], folder: Path, report: Report) -> str | None:
    if "name" not in fields:
        report.error("required key 'name' missing: add name: <folder name>", 1)
        return None
    line = fields["name"].line
    raw = entry_text(fields, "name", report)
    if raw is None:
        return None
    if not raw.strip():
        report.error("'name' is empty: set it to the folder name", line)
        return None
    written = raw.strip()
    name = skill_key(written)
    if len(name) > MAX_SKILL_NAME_CHARS:
        report.error(f"'name' is {len(name)} characters; the limit is {MAX_SKILL_NAME_CHARS}", line)
    if name != name.lower():
        report.error(f"'name' {name!r} must be lowercase", line)
    if name.startswith("-") or name.endswith("-"):
        report.error(f"'name' {name!r} must not start or end with a hyphen", line)
    if "--" in name:
        report.error(f"'name' {name!r} must not contain consecutive hyphens", line)
    if not all(c.isalnum() or c == "-" for c in name):
        report.error(f"'name' {name!r} may contain only letters, digits and hyphens", line)
    # skills-ref folds these through NFKC and accepts them; a client that compares raw strings (or
    # allows only a-z) sees another name, or drops the skill: one identity, two spellings.
    if is_lookalike(written):
        report.error(
            f"'name' {written!r} is a look-alike spelling of {name!r} "
            f"(NFKC folds its compatibility characters): write it as {name!r}",
            line,
        )
    if is_lookalike(folder.name):
        report.error(
            f"folder name {folder.name!r} is a look-alike spelling of {skill_key(folder.name)!r} "
            f"(NFKC folds its compatibility characters): rename the folder to {skill_key(folder.name)!r}",
            line,
        )
    if skill_key(folder.name) != name:
        report.error(f"'name' {name!r} must equal the folder name {folder.name!r}: rename one of them", line)
    return name


def _check_description(fields: dict[str, Entry], report: Report) -> str | None:
    if "description" not in fields:
        report.error("required key 'description' missing: say what the skill does and when to use it", 1)
        return None
    line = fields["description"].line
    text = entry_text(fields, "description", report)
    if text is None:
        return None
    if not text.strip():
        report.error("'description' is empty: say what the skill does and when to use it", line)
        return None
    if len(text) > MAX_DESCRIPTION_CHARS:
        report.error(f"'description' is {len(text)} characters; the limit is {MAX_DESCRIPTION_CHARS}", line)
    return text


def _check_optional(fields: dict[str, Entry], report: Report) -> None:
    entry_text(fields, "license", report)
    entry_text(fields, "allowed-tools", report)
    compatibility = entry_text(fields, "compatibility", report)
    if compatibility is not None:
        line = fields["compatibility"].line
        if not compatibility.strip():
            report.error("'compatibility' is empty: remove it or name what the skill needs", line)
        elif len(compatibility) > MAX_COMPATIBILITY_CHARS:
            report.error(
                f"'compatibility' is {len(compatibility)} characters; the limit is {MAX_COMPATIBILITY_CHARS}", line
            )
    metadata = fields.get("metadata")
    if metadata is not None:
        node = metadata.node
        if not isinstance(node, yaml.MappingNode):
            report.error("'metadata' must be a mapping of string keys to string values", metadata.line)
        else:
            for key, value in node.value:
                if not (isinstance(key, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode)):
                    report.error(
                        "'metadata' values must be strings (nested lists and mappings are not allowed)",
                        key.start_mark.line + 2,
                    )
    for key, field in fields.items():
        if key in SPEC_KEYS:
            continue
        if key in CLIENT_KEYS:
            report.warning(
                f"'{key}' is a client-specific key, not in the agentskills.io spec; other clients ignore it", field.line
            )
        else:
            report.error(f"unknown frontmatter key '{key}': allowed keys are {', '.join(SPEC_KEYS)}", field.line)


def check_text(text: str, folder: Path, report: Report) -> Checked | None:
    """Every problem of one SKILL.md text into report; what its Skill is made of when there is no error."""
    split = split_frontmatter(text, report)
    if split is None:
        return None
    yaml_text, closing, body_start = split
    fields = read_frontmatter(yaml_text, report)
    if fields is None:
        return None
    name = _check_name(fields, folder, report)
    description = _check_description(fields, report)
    _check_optional(fields, report)
    body = text[body_start:]
    body_line = closing + 2
    body_lines = body.split("\n")
    for index, line in enumerate(body_lines):
        if _SKILL_CLOSE_ANY.search(line):
            report.runner_error(
                f"the body contains {SKILL_CLOSE!r}, which closes the skill block a runner wraps the body "
                "in: reword it or write it as '&lt;/skill>'",
                body_line + index,
            )
    if body_lines and body_lines[-1] == "":
        body_lines.pop()
    if len(body_lines) > MAX_BODY_LINES:
        report.warning(
            f"body is {len(body_lines)} lines; the spec recommends under {MAX_BODY_LINES}: "
            "move detail into references/ files",
            body_line + MAX_BODY_LINES,
        )
    invocable = _model_invocable(fields, folder, report)
    if report.has_error or name is None or description is None:
        return None
    return Checked(name, description, body, body_line, fields, invocable)


def _model_invocable(fields: dict[str, Entry], folder: Path, report: Report) -> bool:
    """False when a client's own setting keeps the model from picking the skill (see Skill)."""
    disabled = fields.get("disable-model-invocation")
    policy = read_codex_policy(folder)
    for note in policy.notes:
        report.problems.append(Problem(path=note.path, line=note.line, severity="warning", message=note.message))
    claude_off = disabled is not None and isinstance(disabled.value, str) and disabled.value.strip() in _TRUE
    return not (claude_off or policy.allow_implicit is False)
