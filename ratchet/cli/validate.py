"""`ratchet validate`: check skill folders against the agentskills.io rules."""

from __future__ import annotations

from pathlib import Path

import typer

from ratchet.config import load_project
from ratchet.skills import Problem, skill_folders, validate_paths


def _shown(path: Path, cwd: Path) -> Path:
    """The path relative to cwd when it lies under it (shorter, stable across machines)."""
    try:
        return path.relative_to(cwd)
    except ValueError:
        return path


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def summary(problems: list[Problem], skills: int) -> str:
    """The last line of `ratchet validate`, e.g. `3 skills checked: 1 error, 0 warnings`."""
    errors = sum(p.severity == "error" for p in problems)
    return (
        f"{_plural(skills, 'skill')} checked: "
        f"{_plural(errors, 'error')}, {_plural(len(problems) - errors, 'warning')}"
    )


def validate_command(
    paths: list[Path] = typer.Argument(
        None,
        help="Skill folders (with SKILL.md) or folders of skill folders. Default: the project's skills dir.",
        show_default=False,
        metavar="PATH",
    ),
) -> None:
    """Check skills against the agentskills.io rules; exit 2 if any has an error."""
    if not paths:
        cwd = Path.cwd()
        paths = [_shown(load_project(cwd).path("skills"), cwd.resolve())]
    problems = validate_paths(paths)
    skills = len({folder.resolve() for path in paths for folder in skill_folders(path)})
    for problem in problems:
        typer.echo(problem.render())
    typer.echo(summary(problems, skills))
    if any(p.severity == "error" for p in problems):
        raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""
    app.command("validate")(validate_command)
