"""SKILL.md parsing and validation (agentskills.io rules), content and substance hashes.

One pass reads a skill folder into `Problem`s (errors and warnings, each with its line) and,
when there is no error, a `Skill`. `validate_*` report every problem; `load_*` raise the first
error as a `SkillError`. Where and why the rules differ from the reference validator
(skills-ref) is written down in docs/adr/0002-skill-validation.md.

Frontmatter scalars are read as text, as skills-ref does (it parses with strictyaml): `123`,
`true` and `1.0` are the strings "123", "true" and "1.0", so a number-like name or a
metadata version never fails a type check, and no YAML value is ever constructed from a tag.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from ratchet.codex_policy import read_codex_policy
from ratchet.discovery import SKILL_FILE
from ratchet.errors import SkillError
from ratchet.ids import MAX_SKILL_NAME_CHARS
from ratchet.markup import drop_comments_outside_fences
from ratchet.names import is_lookalike, skill_key
from ratchet.yamlio import YamlLimitError, compose_yaml

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

Severity = Literal["error", "warning"]


class Skill(BaseModel):
    """A parsed skill folder."""

    name: str = Field(description="The frontmatter name, stripped and NFKC-normalized.")
    description: str
    body: str = Field(description="Markdown body after the frontmatter.")
    folder: str = Field(description="Folder path the skill was read from.")
    frontmatter: dict[str, Any] = Field(
        default_factory=dict, description="Frontmatter as read: every scalar is a string."
    )
    body_line: int = Field(default=1, description="1-based line of SKILL.md where the body starts.")
    content_hash: str = Field(description="sha256 of the SKILL.md bytes.")
    substance_hash: str = Field(description="sha256 of substance_of(text): blind to comments and whitespace.")
    model_invocable: bool = Field(
        default=True,
        description="May the model pick this skill itself? False under Claude Code's "
        "`disable-model-invocation: true` or Codex's agents/openai.yaml `policy.allow_implicit_invocation: "
        "false`: only an explicit mention runs it, so the trigger matcher never fires it.",
    )
    key_lines: dict[str, int] = Field(
        default_factory=dict, description="1-based SKILL.md line of each frontmatter key, for messages about it."
    )


class Problem(BaseModel):
    """One thing wrong with a skill, located as precisely as we can."""

    model_config = ConfigDict(frozen=True)

    path: str = Field(description="The SKILL.md (or the folder, for folder-level problems).")
    line: int | None = Field(default=None, description="1-based; the frontmatter key's line where there is one.")
    severity: Severity
    message: str
    stops_loading: bool = Field(
        default=True,
        description="False for an error the runner guards against itself (a `</skill>` in the "
        "body): validate reports it, the gate still loads the skill and replays what it makes the agent do.",
    )

    def render(self) -> str:
        """`path:line: severity: message`, the form editors and CI annotators parse."""
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.severity}: {self.message}"

    def sort_key(self) -> tuple[str, int, str, str]:
        return (self.path, self.line or 0, self.severity, self.message)


# --- substance -------------------------------------------------------------------------------


def substance_of(text: str) -> str:
    """SKILL.md text with Markdown comments and whitespace differences normalized away.

    Blank lines, indentation, runs of spaces and line endings do not count; every word does.
    """
    text = drop_comments_outside_fences(text.replace("\r\n", "\n").replace("\r", "\n"))
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- parsing ---------------------------------------------------------------------------------


class _Report:
    """Problems found in one SKILL.md."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []

    def error(self, message: str, line: int | None) -> None:
        self.problems.append(Problem(path=self.source, line=line, severity="error", message=message))

    def runner_error(self, message: str, line: int | None) -> None:
        """An error `validate` reports that still lets the skill load: the runner guards against it
        itself, and the gate must replay what such a skill makes the agent do, not refuse the edit."""
        self.problems.append(
            Problem(path=self.source, line=line, severity="error", message=message, stops_loading=False)
        )

    def warning(self, message: str, line: int | None) -> None:
        self.problems.append(Problem(path=self.source, line=line, severity="warning", message=message))

    @property
    def has_error(self) -> bool:
        return any(p.severity == "error" and p.stops_loading for p in self.problems)


class _Field:
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


def _split(text: str, report: _Report) -> tuple[str, int, int] | None:
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


def _frontmatter(yaml_text: str, report: _Report) -> dict[str, _Field] | None:
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
    fields: dict[str, _Field] = {}
    for key, value in root.value:
        line = key.start_mark.line + 2
        if not isinstance(key, yaml.ScalarNode):
            report.error("frontmatter keys must be plain strings", line)
            continue
        if key.value in fields:
            report.error(f"duplicate frontmatter key '{key.value}' (first on line {fields[key.value].line})", line)
            continue
        try:
            fields[key.value] = _Field(_plain(value, set()), value, line)
        except ValueError as exc:
            report.error(f"frontmatter key '{key.value}': {exc}", line)
    return None if report.has_error else fields


# --- rules -----------------------------------------------------------------------------------


def _text(fields: dict[str, _Field], key: str, report: _Report) -> str | None:
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


def _check_name(fields: dict[str, _Field], folder: Path, report: _Report) -> str | None:
    if "name" not in fields:
        report.error("required key 'name' missing: add name: <folder name>", 1)
        return None
    line = fields["name"].line
    raw = _text(fields, "name", report)
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


def _check_description(fields: dict[str, _Field], report: _Report) -> str | None:
    if "description" not in fields:
        report.error("required key 'description' missing: say what the skill does and when to use it", 1)
        return None
    line = fields["description"].line
    text = _text(fields, "description", report)
    if text is None:
        return None
    if not text.strip():
        report.error("'description' is empty: say what the skill does and when to use it", line)
        return None
    if len(text) > MAX_DESCRIPTION_CHARS:
        report.error(f"'description' is {len(text)} characters; the limit is {MAX_DESCRIPTION_CHARS}", line)
    return text


def _check_optional(fields: dict[str, _Field], report: _Report) -> None:
    _text(fields, "license", report)
    _text(fields, "allowed-tools", report)
    compatibility = _text(fields, "compatibility", report)
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


def _check(text: str, folder: Path, report: _Report) -> Skill | None:
    """Every problem of one SKILL.md text into report; the Skill when there is no error."""
    split = _split(text, report)
    if split is None:
        return None
    yaml_text, closing, body_start = split
    fields = _frontmatter(yaml_text, report)
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
    return Skill(
        name=name,
        description=description,
        body=body,
        folder=str(folder),
        frontmatter={key: field.value for key, field in fields.items()},
        body_line=body_line,
        content_hash=_sha256(text.encode("utf-8")),
        substance_hash=_sha256(substance_of(text).encode("utf-8")),
        model_invocable=invocable,
        key_lines={key: field.line for key, field in fields.items()},
    )


def _model_invocable(fields: dict[str, _Field], folder: Path, report: _Report) -> bool:
    """False when a client's own setting keeps the model from picking the skill (see Skill)."""
    disabled = fields.get("disable-model-invocation")
    policy = read_codex_policy(folder)
    for note in policy.notes:
        report.problems.append(Problem(path=note.path, line=note.line, severity="warning", message=note.message))
    claude_off = disabled is not None and isinstance(disabled.value, str) and disabled.value.strip() in _TRUE
    return not (claude_off or policy.allow_implicit is False)


def leaving_link_message(target: str) -> str:
    """What validate, load_skill and the harness installer say of a symlink that leads out of its skill folder."""
    return (
        f"symlink to {target!r} leads outside the skill folder: put the file itself in the folder "
        "(a replay never gets a file from outside the skill)"
    )


def links_leaving(folder: Path) -> list[tuple[Path, str]]:
    """Every symlink in `folder`, at any depth, that resolves outside it: (the link, its target as written), sorted.

    Why: a skill folder is copied into a replay's sandbox and read by the agent; a link to `~/.ssh/id_rsa`
    would carry a file of this machine there. No link is followed to look for more (a linked folder is
    one link), so a link cycle ends; a link that stays inside, dangling or not, is the skill's own affair.
    """
    root = os.path.realpath(folder)
    found: list[tuple[Path, str]] = []
    for dirpath, dirnames, filenames in os.walk(folder):  # followlinks=False: a linked folder is not entered
        for name in (*dirnames, *filenames):
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                continue
            real = os.path.realpath(path)
            if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
                found.append((Path(path), os.readlink(path)))
    return sorted(found)


def _read(folder: Path) -> tuple[str | None, _Report]:
    """The SKILL.md text (None after an error) and the report to add problems to."""
    path = folder / SKILL_FILE
    report = _Report(str(path))
    if not path.is_file():
        hint = ""
        if folder.is_dir() and any(p.name.lower() == "skill.md" for p in folder.iterdir()):
            hint = " (found a differently-cased file: rename it to SKILL.md)"
        report.error(f"{SKILL_FILE} missing: every skill folder needs one{hint}", None)
        return None, report
    try:
        # Bytes decoded as-is (no newline translation), so text.encode() is the file's bytes.
        return path.read_bytes().decode("utf-8"), report
    except UnicodeDecodeError as exc:
        report.error(f"not UTF-8 text (byte {exc.start}): save the file as UTF-8", None)
    except OSError as exc:
        report.error(f"cannot read: {exc.strerror}", None)
    return None, report


def sorted_problems(problems: list[Problem]) -> list[Problem]:
    """Problems in the order validate prints them: by path, line, severity, message."""
    return sorted(problems, key=Problem.sort_key)


def _first_error(problems: list[Problem]) -> SkillError:
    error = next(p for p in sorted_problems(problems) if p.severity == "error" and p.stops_loading)
    return SkillError(error.message, path=error.path, line=error.line)


def parse_skill_text(text: str, *, folder: Path, source: str) -> Skill:
    """Parse and validate one SKILL.md text; raise SkillError on its first error."""
    report = _Report(source)
    skill = _check(text, folder, report)
    if skill is None:
        raise _first_error(report.problems)
    return skill


def read_skill_folder(folder: Path) -> tuple[Skill | None, list[Problem]]:
    """One skill folder's Skill (None after an error) and every error and warning of it, sorted."""
    leaving = links_leaving(folder)
    if leaving:
        # Nothing in the folder is read (SKILL.md, agents/openai.yaml): not even a message may quote a host file.
        return None, sorted_problems(
            [
                Problem(path=str(link), severity="error", message=leaving_link_message(target))
                for link, target in leaving
            ]
        )
    text, report = _read(folder)
    skill = _check(text, folder, report) if text is not None else None
    return skill, sorted_problems(report.problems)


def validate_skill_folder(folder: Path) -> list[Problem]:
    """Every error and warning of one skill folder, sorted."""
    return read_skill_folder(folder)[1]


def load_skill(folder: Path) -> Skill:
    """Read and validate one skill folder; raise SkillError on its first error (warnings pass)."""
    skill, problems = read_skill_folder(folder)
    if skill is None:
        raise _first_error(problems)
    return skill
