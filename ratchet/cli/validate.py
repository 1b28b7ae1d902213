"""`ratchet validate`: check skill folders against the agentskills.io rules."""

from __future__ import annotations

from pathlib import Path

import typer

from ratchet.config import CONFIG_FILE, load_project
from ratchet.discovery import harness_roots, no_harness_skills
from ratchet.library import lint_library, task_probes
from ratchet.skill_sets import read_paths, skill_folders
from ratchet.skills import Problem


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
        help="Skill folders (with SKILL.md) or folders holding them at any depth. Default: the project's "
        "skills dir (ratchet.yaml), else the folders harnesses keep skills in (skills/, .claude/skills/, "
        ".agents/skills/, .codex/skills/, plugin skills/).",
        show_default=False,
        metavar="PATH",
    ),
    tasks: bool = typer.Option(
        False, "--tasks", help="Instead, print how each task routes and exit 2 if one fires another skill than tasks.yaml expects."
    ),
    library: bool = typer.Option(
        False, "--library", help="Also lint the skills as one library: catalog budgets (Claude Code's 1,536-character "
        "entry, Codex's ~8,000-character listing), trigger collisions, skills the model may not pick itself.",
    ),
) -> None:
    """Check skills against the agentskills.io rules; exit 2 if any has an error."""
    if tasks:
        from ratchet.routing import project_routing

        routing = project_routing(load_project(Path.cwd()))
        typer.echo(routing.table())
        routing.refuse()
        return
    cwd = Path.cwd()
    if not paths:
        if (cwd / CONFIG_FILE).is_file():
            paths = [_shown(load_project(cwd).path("skills"), cwd.resolve())]
        else:
            paths = [_shown(root, cwd) for root in harness_roots(cwd)]
            if not paths:
                raise no_harness_skills(Path("."))
    results = read_paths(paths)
    problems = sorted((p for _skill, found in results for p in found), key=Problem.sort_key)
    skills = len({folder.resolve() for path in paths for folder in skill_folders(path)})
    notes: list[str] = []
    if library:
        tasks_file = load_project(cwd).path("tasks") if (cwd / CONFIG_FILE).is_file() else None
        probes = task_probes(tasks_file, shown=str(_shown(tasks_file, cwd.resolve()))) if tasks_file and tasks_file.is_file() else []
        report = lint_library([s for s, _found in results if s is not None], root=Path("."), probes=probes)
        problems = sorted([*problems, *report.problems], key=Problem.sort_key)
        notes = report.notes()
    for problem in problems:
        typer.echo(problem.render())
    for note in notes:
        typer.echo(note)
    typer.echo(summary(problems, skills))
    if any(p.severity == "error" for p in problems):
        raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""
    app.command("validate")(validate_command)
