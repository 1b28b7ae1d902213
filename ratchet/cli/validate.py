"""`ratchet validate`: check skill folders against the agentskills.io rules."""

from __future__ import annotations

from pathlib import Path

import typer

from ratchet.config.project import CONFIG_FILE, load_project
from ratchet.core.errors import ConfigError, RoutingError
from ratchet.lint.library import lint_library, task_probes
from ratchet.skills.discovery import harness_roots, is_skill_folder, no_harness_skills
from ratchet.skills.problems import Problem
from ratchet.skills.sets import leaving_skills_message, link_target, read_paths, skill_folders


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
        f"{_plural(skills, 'skill')} checked: {_plural(errors, 'error')}, {_plural(len(problems) - errors, 'warning')}"
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
        False,
        "--tasks",
        help="Instead, print how each task routes and exit 2 if one fires another skill than tasks.yaml expects "
        "(with --library, the library report follows the table).",
    ),
    library: bool = typer.Option(
        False,
        "--library",
        help="Also lint the skills as one library: catalog budgets (Claude Code's 1,536-character "
        "entry, Codex's ~8,000-character listing), trigger collisions, skills the model may not pick itself.",
    ),
) -> None:
    """Check skills against the agentskills.io rules; exit 2 if any has an error."""
    cwd = Path.cwd()
    has_config = _has_config(cwd)
    refusal: RoutingError | None = None
    if tasks:
        from ratchet.lint.routing import project_routing

        routing = project_routing(load_project(cwd))
        typer.echo(routing.table())
        if not library:
            routing.refuse()
            return
        try:  # --library's report follows the table; the refusal comes last, after both
            routing.refuse()
        except RoutingError as exc:
            refusal = exc
    empty: list[Path] = []
    outside: list[Problem] = []
    if not paths:
        if has_config:
            paths = [_shown(load_project(cwd).path("skills"), cwd.resolve())]
        else:
            paths = [_shown(root, cwd) for root in harness_roots(cwd)]
            if not paths:
                raise no_harness_skills(Path("."))
            # A harness folder linked from outside the project is not searched (a link to ~ must not have the
            # machine validated as the project); ratchet.yaml's paths.skills is held to the same by load_project.
            leaving = [path for path in paths if not (cwd / path).resolve().is_relative_to(cwd.resolve())]
            outside = [
                Problem(
                    path=str(path), severity="error", message=leaving_skills_message(link_target(path), "the project")
                )
                for path in leaving
            ]
            paths = [path for path in paths if path not in leaving]
        # A project's skills folder with nothing in it yet (right after `ratchet init`) is not a skill
        # missing its SKILL.md, as a folder named on the command line would be: it says so and passes.
        empty = [path for path in paths if _holds_nothing(path)]
        paths = [path for path in paths if path not in empty]
    results = read_paths(paths)
    problems = sorted((*outside, *(p for _skill, found in results for p in found)), key=Problem.sort_key)
    skills = len({folder.resolve() for path in paths for folder in skill_folders(path)})
    notes: list[str] = []
    if library:
        tasks_file = load_project(cwd).path("tasks") if has_config else None
        probes = (
            task_probes(tasks_file, shown=str(_shown(tasks_file, cwd.resolve())))
            if tasks_file and tasks_file.is_file()
            else []
        )
        report = lint_library([s for s, _found in results if s is not None], root=Path("."), probes=probes)
        problems = sorted([*problems, *report.problems], key=Problem.sort_key)
        notes = report.notes()
    if has_config:
        problems = sorted([*problems, *gate_config_problems(cwd), *trigger_problems(cwd)], key=Problem.sort_key)
    for problem in problems:
        typer.echo(problem.render())
    if not skills:
        for path in empty:
            folder = path.as_posix().rstrip("/")
            typer.echo(
                f"{folder}/: no skills yet: write one as {folder}/<name>/SKILL.md "
                "(frontmatter name and description, then the instructions)"
            )
    for note in notes:
        typer.echo(note)
    typer.echo(summary(problems, skills))
    if refusal is not None:
        raise refusal
    if any(p.severity == "error" for p in problems):
        raise typer.Exit(2)


def _has_config(cwd: Path) -> bool:
    """Whether cwd holds a ratchet.yaml; a ConfigError when something other than a file takes the name."""
    config = cwd / CONFIG_FILE
    if config.is_file() or not config.exists():
        return config.is_file()
    what = "a folder" if config.is_dir() else "not a regular file"
    raise ConfigError(
        f"this is {what}, but {CONFIG_FILE} must be a file: move the {what.split()[-1]} away", path=CONFIG_FILE
    )


def _holds_nothing(root: Path) -> bool:
    """A skills folder with no skill and no subfolder in it (files such as a .gitkeep aside)."""
    return root.is_dir() and not is_skill_folder(root) and skill_folders(root) == [root]


def gate_config_problems(root: Path) -> list[Problem]:
    """One error per broken gate config of the project (configs/*.yaml, relative to `root`, the cwd).

    Each is loaded as a check loads it (schema, judge_prompt inside the project, judge tiers that
    ratchet.yaml configures), so a fault shows here rather than when a check first names the config.
    """
    from ratchet.config.gate import PROJECT_CONFIGS_DIR, check_judge_tiers, load_gate_config

    tiers = load_project(root).config.tiers
    problems: list[Problem] = []
    for path in sorted((root / PROJECT_CONFIGS_DIR).glob("*.yaml")):
        shown = path.relative_to(root)
        try:
            check_judge_tiers(load_gate_config(shown, project_root=root), tiers, source=shown)
        except ConfigError as exc:
            problems.append(
                Problem(path=exc.path or shown.as_posix(), line=exc.line, severity="error", message=exc.message)
            )
    return problems


def trigger_problems(root: Path) -> list[Problem]:
    """The first fault of the project's triggers.yaml (beside tasks.yaml), if it has one, as an error.

    A set naming a skill the project's skills folder does not hold is one too: its queries could never fire it.
    """
    from ratchet.core.errors import TaskFileError
    from ratchet.goldens.triggers import load_triggers, triggers_path

    project = load_project(root)
    path = triggers_path(project.path("tasks"))
    if not path.exists():
        return []
    skills_dir = project.path("skills")
    known: set[str] = set()
    if skills_dir.is_dir() and not _holds_nothing(skills_dir):
        known = {skill.name for skill, _found in read_paths([skills_dir]) if skill is not None}
        known |= {folder.name for folder in skill_folders(skills_dir)}
    shown = _shown(path, root.resolve()).as_posix()
    try:
        load_triggers(path, known_skills=known, shown=shown)
    except TaskFileError as exc:
        return [Problem(path=shown, line=exc.line, severity="error", message=exc.message)]
    return []


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""
    app.command("validate")(validate_command)
