"""Skill sets: every skill folder a path names, at any depth, read, validated and loaded by name.

ratchet.skills.skill reads one SKILL.md; this module applies it to a tree, with the folder rule of
ratchet.skills.discovery (a folder holding SKILL.md is a skill; its own subfolders are not searched).
"""

from __future__ import annotations

import os
from pathlib import Path

from ratchet.core.errors import InputError, SkillError
from ratchet.skills.discovery import SKILL_FILE, find_skill_folders, is_skill_folder
from ratchet.skills.names import skill_key
from ratchet.skills.problems import Problem, sorted_problems
from ratchet.skills.skill import Skill, load_skill, read_skill_folder


def leaving_skills_message(target: str, where: object) -> str:
    """What validate, record, noise and check say of a folder linked into `where` from outside it."""
    return (
        f"symlink to {target!r} leads outside {where}: record, noise and check read skills "
        "only from the project's skills folder; move the skill folder into it"
    )


def link_target(link: Path) -> str:
    """The target of `link` as written, or where it resolves when the link is a folder above it."""
    return os.readlink(link) if link.is_symlink() else str(link.resolve())


def skill_folders(path: Path, *, escapes: list[Path] | None = None) -> list[Path]:
    """The skill folders a path names: itself if it has SKILL.md (or is one), else every skill
    folder below it at any depth (ratchet.skills.discovery), never one linked from outside `path` (those
    are added to `escapes` when given: the search does not leave the folder it was asked about).

    An empty folder (no skill and no subfolder) is taken as one skill folder missing its
    SKILL.md, so the user hears about it instead of seeing "0 skills"; a folder of folders with
    no skill anywhere gives none, and read_paths says so (no_skill_problem).
    """
    if not path.exists():
        raise InputError("path does not exist", path=path)
    if path.is_file():
        if path.name == SKILL_FILE:
            return [path.parent]
        raise InputError("not a skill folder: give a folder with SKILL.md, or a folder of them", path=path)
    if is_skill_folder(path):
        return [path]
    leaving: list[Path] = []
    found = find_skill_folders(path, escapes=leaving)
    if escapes is not None:
        escapes.extend(leaving)
    if found or leaving:
        return found
    try:
        has_subfolders = any(child.is_dir() for child in path.iterdir())
    except OSError:
        has_subfolders = False
    return [] if has_subfolders else [path]


def no_skill_problem(path: Path) -> Problem:
    """A folder given to validate that holds no skill at any depth."""
    return Problem(
        path=str(path), severity="error", message=f"no skill found: no folder here or below holds a {SKILL_FILE}"
    )


def read_paths(paths: list[Path]) -> list[tuple[Skill | None, list[Problem]]]:
    """read_skill_folder of every skill folder the paths name, each real folder once, in order.

    A folder with no skill in it at any depth gives (None, [no_skill_problem]); a folder linked into
    one from outside it gives (None, [its error]), unread (load_skills refuses it the same way).
    Raises InputError for a path that does not exist or is neither a skill folder nor a folder.
    """
    results: list[tuple[Skill | None, list[Problem]]] = []
    seen: set[Path] = set()
    for path in paths:
        escapes: list[Path] = []
        folders = skill_folders(path, escapes=escapes)
        results.extend(
            (None, [Problem(path=str(link), severity="error", message=leaving_skills_message(link_target(link), path))])
            for link in escapes
        )
        if not folders and not escapes:
            results.append((None, [no_skill_problem(path)]))
        for folder in folders:
            if folder.resolve() not in seen:
                seen.add(folder.resolve())
                results.append(read_skill_folder(folder))
    return results


def validate_paths(paths: list[Path]) -> list[Problem]:
    """Every problem of every skill folder the paths name (see skill_folders, read_paths), sorted."""
    return sorted_problems([problem for _skill, problems in read_paths(paths) for problem in problems])


def load_skills(skills_dir: Path) -> dict[str, Skill]:
    """Every skill folder below skills_dir at any depth (ratchet.skills.discovery), by name (its identity,
    ratchet.skills.names.skill_key).

    A SKILL.md that is a dangling symlink, or a skill.md cased differently, marks a skill folder
    too: load_skill then refuses it as validate does, instead of the skill silently not existing.
    Two folders whose names normalize alike are one skill twice: a SkillError naming both (as
    paths below skills_dir), not one of them silently shadowing the other. A folder linked from
    outside skills_dir is a SkillError too (never searched): what record and noise replay, and
    what the harness installer copies into a sandbox, is the project's own tree.
    """
    skills: dict[str, Skill] = {}
    if not skills_dir.is_dir():
        return skills
    escapes: list[Path] = []
    folders = find_skill_folders(skills_dir, escapes=escapes)
    if escapes:
        link = min(escapes)
        raise SkillError(leaving_skills_message(link_target(link), skills_dir), path=link)
    for folder in folders:
        skill = load_skill(folder)
        key = skill_key(skill.name)
        if key in skills:
            first = Path(skills[key].folder).relative_to(skills_dir).as_posix()
            raise SkillError(
                f"skill folders {first!r} and {folder.relative_to(skills_dir).as_posix()!r} are one skill: "
                f"both names normalize to {key!r} (NFKC); remove or rename one of them",
                path=skills_dir,
            )
        skills[key] = skill
    return dict(sorted(skills.items()))  # by name, as when every skill sat one level down
