"""`ratchet mutate [SKILL...]`: a mutation score for the project's own goldens (docs/mutate.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ratchet.cli.gate import checked_budget
from ratchet.config.harness import HarnessChoice
from ratchet.core.errors import BudgetError, InfraError
from ratchet.core.jsonio import atomic_write_text
from ratchet.llm.cache import CacheMode
from ratchet.mutate.models import MutationReport
from ratchet.mutate.render import render_json, render_markdown, render_summary, score_text

if TYPE_CHECKING:
    from ratchet.mutate.plan import MutantSource

SOURCE: MutantSource | None = None
"""Where the command's mutants come from; None: the operators (ratchet.mutate.operators). Tests hand in theirs."""


def register(app: typer.Typer) -> None:
    @app.command()
    def mutate(
        skills: list[str] | None = typer.Argument(None, help="Skills to mutate (default: every skill at --base)."),
        base: str = typer.Option(
            "HEAD", "--base", help="Commit whose skills are mutated and whose goldens check the mutants."
        ),
        seed: int = typer.Option(0, "--seed", help="Seeds the operators: the same seed makes the same mutants."),
        limit: int | None = typer.Option(
            None, "--limit", min=1, help="At most N mutants per skill, taken in turn from each class (R1-R6)."
        ),
        budget: float | None = typer.Option(
            None,
            "--budget",
            help="USD cap across the whole run; each check gets what is left. Mutants it leaves are reported "
            "unchecked (never killed), and the run exits 2 after the report.",
        ),
        config: str = typer.Option(
            "cascade", "--config", help="Gate config every mutant is checked with, as for ratchet check."
        ),
        harness: HarnessChoice | None = typer.Option(
            None, "--harness", help="Replay through this harness instead of ratchet.yaml's `harness:`."
        ),
        concurrency: int = typer.Option(
            1, "--concurrency", min=1, max=64, help="Pairs replayed and judged at once within each check."
        ),
        cache: CacheMode = typer.Option(CacheMode.ONCE, "--cache", help="Response cache mode."),
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON instead of the score table."),
        out: Path | None = typer.Option(
            None, "--out", help="Also write mutation.json and mutation.md (every mutant's diff) into this folder."
        ),
        no_save: bool = typer.Option(
            False,
            "--no-save",
            help="Do not write each skill's score to <goldens>/<skill>/mutation.score.json (written by default, "
            "to be committed: bless, check and the PR comment read it).",
        ),
        repo: Path = typer.Option(Path("."), "--repo", help="Path inside the git repository."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
        executor: str = typer.Option(
            "local",
            "--executor",
            metavar="local|ray",
            help="Where the mutants are checked: one after another here, or as Ray tasks, --concurrency at once "
            "(the optional ray extra; not with --budget); the report is the same.",
        ),
        ray_address: str | None = typer.Option(
            None,
            "--ray-address",
            metavar="ADDR",
            help="With --executor ray: an existing cluster (host:port) whose nodes see this repository and the "
            "work area at the same paths (default: a local Ray on loopback, started for the run).",
        ),
    ) -> None:
        """Break each skill on purpose and check every mutant: which would the goldens notice?

        Each mutant is committed in a scratch clone and gated by the normal check against the goldens
        at --base; killed when a replayed golden noticed it, survived otherwise. The worst-case estimate
        and one line per mutant go to stderr. Each fully checked skill's score is saved beside its goldens
        (<goldens>/<skill>/mutation.score.json) unless --no-save. Exit codes: 0 done, 2 bad input or a spend cap (--budget or
        RATCHET_BENCH_USD_CAP) stopped the run (after the report), 3 a mutant could not be checked (after the report).
        """
        # Imported here: the check and its budget models are not for `ratchet --help` or other commands.
        from ratchet.mutate.run import MutateOptions, mutate_project

        options = MutateOptions(
            skills=tuple(skills or ()),
            base=base,
            seed=seed,
            limit=limit,
            budget_usd=checked_budget(budget),
            config=config,
            harness=harness.harness_name if harness is not None else None,
            concurrency=concurrency,
            cache_mode=cache,
            home=work,
            source=SOURCE,
            save=not no_save,
            echo=lambda line: typer.echo(line, err=True),
            executor=executor,
            ray_address=ray_address,
        )
        report = mutate_project(repo, options)
        if out is not None:
            _write(report, out)
        sys.stdout.write(render_json(report) if as_json else render_summary(report))
        _finish(report)


def _write(report: MutationReport, out: Path) -> None:
    """mutation.json and mutation.md, each written whole; a folder we cannot write is infrastructure (exit 3)."""
    written = [out / "mutation.json", out / "mutation.md"]
    try:
        atomic_write_text(written[0], render_json(report))
        atomic_write_text(written[1], render_markdown(report))
    except OSError as err:
        raise InfraError(f"could not write --out {out}: {err.strerror or err}; check the path is writable") from err
    typer.echo(f"wrote {written[0]} and {written[1]}", err=True)


def _finish(report: MutationReport) -> None:
    """The run's score and spend on stderr; then exit 3 if a mutant could not be checked, 2 if the cap stopped it."""
    killed = sum(s.killed for s in report.skills)
    checked = killed + sum(s.survived for s in report.skills)
    checks = sum(1 for o in report.outcomes if o.decision is not None or o.status == "error")
    typer.echo(
        f"mutation score {score_text(killed, checked)} · {checks} check(s) · spent ${report.cost_usd:.6f}", err=True
    )
    errors = [o for o in report.outcomes if o.status == "error"]
    if errors:
        raise InfraError(
            f"{len(errors)} mutant(s) could not be checked, first {errors[0].mutant.id}: {errors[0].reason}; "
            "fix the cause and re-run"
        )
    if report.stopped is not None:
        raise BudgetError(report.stopped)
