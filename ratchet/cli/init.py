"""`ratchet init`: scaffold a team's project (ratchet.yaml, tasks.yaml, world/) and say what to do next."""

from __future__ import annotations

from pathlib import Path

import typer

from ratchet.setup.scaffold import Scaffold, init_project

NEXT_STEPS = (
    "ratchet validate --tasks     check the skills and tasks.yaml",
    "ratchet record               run every task into pending traces, then review them",
    "ratchet bless                promote the reviewed traces to goldens, and commit them",
    "ratchet check --base main    gate an edit against the blessed goldens",
)


def _shown(root: Path, relative: str) -> str:
    """A scaffolded path as the user typed the root (`.` shows bare names)."""
    return (root / relative).as_posix()


def report_lines(root: Path, scaffold: Scaffold) -> list[str]:
    """What `ratchet init` prints: the files, where skills live, the git note and the next commands."""
    lines = [f"initialized a Ratchet project in {root.as_posix()}"]
    lines += [f"  wrote   {_shown(root, name)}" for name in scaffold.wrote]
    lines += [f"  kept    {_shown(root, name)} (already there)" for name in scaffold.kept]
    lines += [f"  created {_shown(root, name)}/ (empty)" for name in scaffold.created]
    skills = scaffold.skills_dir
    count = len(scaffold.skills_found)
    if count:
        lines.append(f"skills: {count} skill{'' if count == 1 else 's'} found in {skills}/")
    else:
        lines.append(f"skills: none yet; they will live in {skills}/")
    if not scaffold.in_git:
        lines.append(
            "note: not inside a git repository: record and bless work here, "
            "but `ratchet check` needs one (run `git init`)"
        )
    lines.append("next:")
    if root != Path("."):
        lines.append(f"  0. cd {root.as_posix()}")
    steps = [
        f"write a skill: {skills}/<name>/SKILL.md (frontmatter name and description, then the instructions)",
        "describe past requests in tasks.yaml: one task per request the skill must keep handling, and a canary",
        *NEXT_STEPS,
    ]
    lines += [f"  {number}. {step}" for number, step in enumerate(steps, start=1)]
    return lines


def register(app: typer.Typer) -> None:
    @app.command()
    def init(
        path: Path = typer.Argument(Path("."), help="An existing folder to make a Ratchet project (default: here)."),
    ) -> None:
        """Write a commented ratchet.yaml, a tasks.yaml with one example task and an explained world/.

        Skills already in skills/, .claude/skills/ or .agents/skills/ (the first found) are used
        where they are; otherwise an empty skills/ is made. An existing ratchet.yaml or tasks.yaml
        is never overwritten: init refuses, naming it (exit 2).
        """
        scaffold = init_project(path)
        for line in report_lines(path, scaffold):
            typer.echo(line)
