"""`ratchet tasks generate` and `ratchet tasks accept`: task variants from templates, reviewed before they land."""

from __future__ import annotations

from pathlib import Path

import typer

tasks_app = typer.Typer(help="Generate task variants from templates, audited, for review.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(tasks_app, name="tasks")


@tasks_app.command()
def generate(
    skill: str = typer.Argument(..., help="The skill whose templates to expand."),
    seed: int = typer.Option(0, "--seed", min=0, help="The draw: the same seed gives the same tasks, byte for byte."),
    project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
    work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
) -> None:
    """Expand SKILL's task templates, record and audit each task, and write the survivors for review.

    Templates live in task_templates.yaml beside tasks.yaml (docs/tasks-generate.md): a prompt with
    slots, and knobs (horizon, distractors, edge_case). Every generated task is recorded on the
    configured upstream and kept only when its run loaded SKILL, shows it at work (the check `ratchet
    bless` makes), names every item its prompt asks about in a tool call (and no decoy in a
    side-effecting one) and differs from a do-nothing agent's trace by a call or the final state.
    Writes tasks.yaml, audit.json and traces/ under <work area>/generated/SKILL/; the project is not
    changed: review them, then `ratchet tasks accept SKILL`.
    """
    from ratchet.config.project import load_project
    from ratchet.llm.preflight import preflight_config
    from ratchet.taskgen.generate import generate_tasks, generated_dir

    project = load_project(project_dir, home=work)
    preflight_config(project.config, ["agent"])
    audit = generate_tasks(project, skill, seed=seed)
    for row in audit.tasks:
        verdict = "kept" if row.accepted else f"rejected: {'; '.join(row.reasons)}"
        typer.echo(f"{row.id}  {verdict}")
    simulated = f" ({audit.label})" if audit.label else ""
    where = generated_dir(project, skill)
    typer.echo(f"{len(audit.accepted)} of {len(audit.tasks)} generated task(s) kept{simulated}; review {where}")
    if audit.accepted:
        typer.echo(f"then: ratchet tasks accept {skill}")


@tasks_app.command()
def accept(
    skill: str = typer.Argument(..., help="The skill whose generated tasks to accept."),
    task_ids: list[str] = typer.Argument(None, help="Generated task ids (default: every one the audit kept)."),
    project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
    work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
) -> None:
    """Append reviewed generated tasks to tasks.yaml and move their recordings to pending/.

    Only tasks the audit kept can be accepted. The rest of tasks.yaml is left byte for byte (its line
    endings too); a file whose shape does not allow a plain append is refused (add the tasks by hand).
    The traces are pended before tasks.yaml is written: if accept fails, run it again. Then `ratchet
    bless` their pending traces as usual.
    """
    from ratchet.config.project import load_project
    from ratchet.taskgen.generate import accept_generated

    project = load_project(project_dir, home=work)
    result = accept_generated(project, skill, task_ids or [])
    typer.echo(f"added {len(result.accepted)} task(s) to {result.tasks_file}; their traces are pending")
    typer.echo("then: ratchet bless " + " ".join(result.accepted))
