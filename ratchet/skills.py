"""SKILL.md parsing (PLACEHOLDER: full agentskills.io validation is being written)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from ratchet.errors import SkillError


class Skill(BaseModel):
    """A parsed skill folder."""

    name: str
    description: str
    body: str = Field(description="Markdown body after the frontmatter.")
    folder: str = Field(description="Folder path the skill was read from.")
    frontmatter: dict[str, Any] = Field(default_factory=dict)
    body_line: int = Field(default=1, description="1-based line of SKILL.md where the body starts.")
    content_hash: str
    substance_hash: str


_COMMENT = re.compile(r"<!--.*?-->", re.S)


def substance_of(text: str) -> str:
    """SKILL.md text with Markdown comments and whitespace differences normalized away."""
    text = _COMMENT.sub("", text)
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def parse_skill_text(text: str, *, folder: Path, source: str) -> Skill:
    if not text.startswith("---"):
        raise SkillError("frontmatter missing: SKILL.md must start with '---'", path=source, line=1)
    parts = text.split("\n---", 2)
    if len(parts) < 2:
        raise SkillError("frontmatter not terminated", path=source, line=1)
    meta = yaml.safe_load(parts[0][3:])
    body = parts[1].split("\n", 1)[1] if "\n" in parts[1] else ""
    return Skill(
        name=str(meta["name"]),
        description=str(meta["description"]),
        body=body,
        folder=str(folder),
        frontmatter=meta,
        body_line=parts[0].count("\n") + 3,
        content_hash=hashlib.sha256(text.encode()).hexdigest(),
        substance_hash=hashlib.sha256(substance_of(text).encode()).hexdigest(),
    )


def load_skill(folder: Path) -> Skill:
    path = folder / "SKILL.md"
    return parse_skill_text(path.read_text(encoding="utf-8"), folder=folder, source=str(path))


def load_skills(skills_dir: Path) -> dict[str, Skill]:
    """Every skill folder directly under skills_dir, by name."""
    return {p.parent.name: load_skill(p.parent) for p in sorted(skills_dir.glob("*/SKILL.md"))}
