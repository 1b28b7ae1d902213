"""`ratchet init`: a team's Ratchet project from zero, in a folder that already exists.

Why: the first hour decides whether a team adopts a gate. The files written here are the
documentation a team reads first, so each key is explained where it is set (the templates are
package data, ratchet/data/init/). Init never overwrites: a ratchet.yaml or tasks.yaml already
there is someone's work, refused by name before anything is written. The output is a function
of the folder's contents alone (no clock, no absolute path), so two runs print the same.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from ratchet.config.project import CONFIG_FILE
from ratchet.core.errors import GitStateError, InputError
from ratchet.data import packaged
from ratchet.goldens.triggers import TRIGGERS_FILE
from ratchet.repo.git import open_repo

SKILL_LAYOUTS = ("skills", ".claude/skills", ".agents/skills")
"""Where a team may already keep skills, in the order init looks; the first that exists wins."""

TASKS_FILE = "tasks.yaml"
WORLD_README = "world/README.md"
EXAMPLE_SKILL = "my-skill"
_TEMPLATES = {
    CONFIG_FILE: "ratchet.yaml",
    TASKS_FILE: "tasks.yaml",
    TRIGGERS_FILE: "triggers.yaml",
    WORLD_README: "world-README.md",
}


class Scaffold(BaseModel):
    """What `ratchet init` did; paths are posix and relative to the project root."""

    wrote: list[str] = Field(description="Files written, in order.")
    kept: list[str] = Field(default_factory=list, description="Files already there, left as they were.")
    created: list[str] = Field(default_factory=list, description="Folders created empty.")
    skills_dir: str = Field(description="paths.skills as written to ratchet.yaml.")
    skills_found: list[str] = Field(default_factory=list, description="Skill folders already there, sorted.")
    in_git: bool = Field(description="Whether the root is inside a git repository (check needs one).")


def detect_skills_dir(root: Path) -> str:
    """The first of SKILL_LAYOUTS that is a folder under root, else `skills`."""
    return next((layout for layout in SKILL_LAYOUTS if (root / layout).is_dir()), SKILL_LAYOUTS[0])


def _skill_folders(folder: Path) -> list[str]:
    """Skill folder names (holding a SKILL.md, at any depth), sorted."""
    if not folder.is_dir():
        return []
    return sorted({path.parent.name for path in folder.rglob("SKILL.md")})


def _in_git(root: Path) -> bool:
    try:
        open_repo(root)
    except GitStateError:
        return False
    return True


def init_project(root: Path) -> Scaffold:
    """Write ratchet.yaml, tasks.yaml, triggers.yaml and world/README.md into `root`, and the skills folder if none exists.

    Every refusal comes before the first write, so a refused init leaves the folder as it was.
    Errors name files as `root / name` with root as given (`.` gives a bare `ratchet.yaml`).
    """
    if not root.is_dir():
        what = "this is a file, but ratchet init needs a folder" if root.exists() else "no such folder"
        raise InputError(f"{what}: create it first, or run ratchet init inside it", path=root)
    for name in (CONFIG_FILE, TASKS_FILE):
        if (root / name).exists() or (root / name).is_symlink():
            raise InputError(
                "already exists, and ratchet init never overwrites a file: move it away to start afresh, "
                "or edit it by hand",
                path=root / name,
            )
    skills_dir = detect_skills_dir(root)
    for folder in (Path(WORLD_README).parent.as_posix(), skills_dir):
        if (root / folder).exists() and not (root / folder).is_dir():
            raise InputError(
                f"this is a file, but ratchet init makes {folder}/ a folder: move the file away", path=root / folder
            )
    found = _skill_folders(root / skills_dir)
    values = {"@SKILLS@": skills_dir, "@SKILL@": found[0] if found else EXAMPLE_SKILL}
    scaffold = Scaffold(wrote=[], skills_dir=skills_dir, skills_found=found, in_git=_in_git(root))
    for target, template in _TEMPLATES.items():
        path = root / target
        if path.exists() or path.is_symlink():
            scaffold.kept.append(target)
            continue
        text = packaged("init", template).read_text(encoding="utf-8")
        for placeholder, value in values.items():
            text = text.replace(placeholder, value)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        scaffold.wrote.append(target)
    if not (root / skills_dir).is_dir():
        (root / skills_dir).mkdir(parents=True)
        scaffold.created.append(skills_dir)
    return scaffold
