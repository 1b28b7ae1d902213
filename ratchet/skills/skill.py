"""SKILL.md parsing and validation (agentskills.io rules), content and substance hashes.

One pass reads a skill folder into `Problem`s (errors and warnings, each with its line) and,
when there is no error, a `Skill`. `validate_*` report every problem; `load_*` raise the first
error as a `SkillError`. Where and why the rules differ from the reference validator
(skills-ref) is written down in docs/adr/0002-skill-validation.md. The pass is in parts beside this
one: the frontmatter (ratchet/skills/frontmatter.py), the rules (ratchet/skills/rules.py), the
problems (ratchet/skills/problems.py) and links that leave the folder (ratchet/skills/links.py).

Frontmatter scalars are read as text, as skills-ref does (it parses with strictyaml): `123`,
`true` and `1.0` are the strings "123", "true" and "1.0", so a number-like name or a
metadata version never fails a type check, and no YAML value is ever constructed from a tag.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ratchet.core.markup import drop_comments_outside_fences
from ratchet.skills.discovery import SKILL_FILE
from ratchet.skills.links import leaving_link_message, links_leaving
from ratchet.skills.problems import Problem, Report, first_error, sorted_problems
from ratchet.skills.rules import check_text


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


# --- substance -------------------------------------------------------------------------------


def substance_of(text: str) -> str:
    """SKILL.md text with Markdown comments and whitespace differences normalized away.

    Blank lines, indentation, runs of spaces and line endings do not count; every word does.
    """
    text = drop_comments_outside_fences(text.replace("\r\n", "\n").replace("\r", "\n"))
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check(text: str, folder: Path, report: Report) -> Skill | None:
    """Every problem of one SKILL.md text into report; the Skill when there is no error."""
    checked = check_text(text, folder, report)
    if checked is None:
        return None
    return Skill(
        name=checked.name,
        description=checked.description,
        body=checked.body,
        folder=str(folder),
        frontmatter={key: field.value for key, field in checked.fields.items()},
        body_line=checked.body_line,
        content_hash=_sha256(text.encode("utf-8")),
        substance_hash=_sha256(substance_of(text).encode("utf-8")),
        model_invocable=checked.model_invocable,
        key_lines={key: field.line for key, field in checked.fields.items()},
    )


def _read(folder: Path) -> tuple[str | None, Report]:
    """The SKILL.md text (None after an error) and the report to add problems to."""
    path = folder / SKILL_FILE
    report = Report(str(path))
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


def parse_skill_text(text: str, *, folder: Path, source: str) -> Skill:
    """Parse and validate one SKILL.md text; raise SkillError on its first error."""
    report = Report(source)
    skill = _check(text, folder, report)
    if skill is None:
        raise first_error(report.problems)
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
        raise first_error(problems)
    return skill
