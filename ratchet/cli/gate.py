"""`ratchet check`: gate one edit."""

from __future__ import annotations

import io
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from ratchet.cli.stored import answered_from_store, store_verdict, stored_verdict_key
from ratchet.config.harness import HarnessChoice
from ratchet.core.errors import BudgetError, InfraError, InputError
from ratchet.core.jsonio import atomic_write_text
from ratchet.gate.policy import BUDGET_STOPPED, OnError
from ratchet.gate.shard import EXIT_PARTIAL, Shard, ShardJob, ShardResult, partial_note
from ratchet.llm.cache import CacheMode
from ratchet.outputs.formats import (
    OutputFormat,
    OutputTarget,
    parse_outputs,
    render_text,
    write_output,
)

if TYPE_CHECKING:
    from ratchet.gate.models import Verdict

EXIT_BLOCK = 1
TABLE_FILE_WIDTH = 120


def checked_budget(value: float | None, *, flag: str = "--budget") -> float | None:
    """A USD budget from the command line: finite and above 0 (nan compares false with any
    spend and inf never binds, so either would silently lift the cap)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise InputError(f"{flag} must be a finite amount of USD above 0, not {value:g}; e.g. {flag} 0.50")
    return value


def exit_code_for(verdict: Verdict, on_error: OnError | None) -> int:
    """The one place a verdict becomes an exit code: 0 PASS or WARN, 1 BLOCK, and 3 when a pair
    could not be checked and no `--on-error` was given (2, BudgetError's code, when every such pair
    was stopped by the spend cap). A fault must stop the push (a warning under a hook is a pass
    nobody reads); letting it through as WARN is an explicit choice."""
    errors = [pair for pair in verdict.pairs if pair.outcome == "error"]
    if on_error is None and errors:
        return BudgetError.exit_code if all(p.decided_by == BUDGET_STOPPED for p in errors) else InfraError.exit_code
    return EXIT_BLOCK if verdict.decision == "BLOCK" else 0


def as_given(verdict: Verdict, on_error: OnError | str | None) -> Verdict:
    """The verdict as printed: `on_error` is the flag as given, None when none was (an unchecked pair exits 3).

    The gate decides with `block` when no flag is given; printed so, the verdict would read as
    `--on-error block` (exit 1) when the check exits 3.
    """
    return verdict if on_error is not None else verdict.model_copy(update={"on_error": None})


def unchecked(verdict: Verdict) -> InfraError:
    """The one-line error for a check in which some pair could not be checked."""
    errors = [pair for pair in verdict.pairs if pair.outcome == "error"]
    return InfraError(
        f"{len(errors)} pair(s) could not be checked, first {errors[0].task_id}: {errors[0].reason}; "
        "fix the cause and re-run, or pass --on-error warn to let it through as WARN"
    )


def budget_stopped(verdict: Verdict) -> BudgetError:
    """The one-line error for a check the spend cap stopped: the first stopped pair names this run's spend."""
    stopped = [pair for pair in verdict.pairs if pair.decided_by == BUDGET_STOPPED]
    return BudgetError(
        f"{len(stopped)} pair(s) not checked: the run's budget stopped them, first "
        f"{stopped[0].task_id}: {stopped[0].error}; raise --budget, or pass --on-error warn to let "
        "them through as WARN"
    )


def terminal_format(fmt: OutputFormat, *, as_json: bool) -> OutputFormat:
    """`--json` is `--format json`; with another --format it is a contradiction, refused in one line."""
    if not as_json:
        return fmt
    if fmt not in (OutputFormat.TABLE, OutputFormat.JSON):
        raise InputError(f"--json is --format json; it contradicts --format {fmt.value}: give one of them")
    return OutputFormat.JSON


def table_text(verdict: Verdict) -> str:
    """The terminal table as plain text for a file: no colour, a fixed width, so equal verdicts are equal bytes."""
    from ratchet.outputs.table import render_verdict

    out = io.StringIO()
    render_verdict(
        verdict, Console(file=out, width=TABLE_FILE_WIDTH, color_system=None, highlight=False, soft_wrap=False)
    )
    return out.getvalue()


def write_verdict(verdict: Verdict, target: OutputTarget) -> None:
    """One `--output` file; a folder we cannot write is infrastructure (exit 3), named in one line."""
    text = table_text(verdict) if target.format is OutputFormat.TABLE else render_text(verdict, target.format)
    try:
        write_output(target, text)
    except OSError as err:
        raise InfraError(
            f"could not write --output {target.format.value}={target.path}: {err.strerror or err}; "
            "check the path is writable"
        ) from err


def register(app: typer.Typer) -> None:
    @app.command()
    def check(
        base: str = typer.Option(..., "--base", help="Revision the edit starts from (e.g. origin/main)."),
        head: str | None = typer.Option(None, "--head", help="Revision with the edit (default HEAD)."),
        staged: bool = typer.Option(False, "--staged", help="Gate the staged changes instead of --head."),
        fmt: OutputFormat = typer.Option(
            OutputFormat.TABLE,
            "--format",
            help="What the terminal gets: table, json, markdown or junit.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Same as --format json (kept for scripts)."),
        outputs: list[str] = typer.Option(
            [],
            "--output",
            metavar="FORMAT=FILE",
            help="Also write the verdict to FILE in FORMAT (table, json, markdown, junit); repeatable, e.g. "
            "--output junit=ratchet.xml --output markdown=ratchet.md. Written atomically, on BLOCK and on exit 3 too.",
        ),
        on_error: OnError | None = typer.Option(
            None,
            "--on-error",
            help="What a pair that could not be checked does: warn (WARN, exit 0) or block (BLOCK, exit 1). "
            "Default: the verdict is printed and the check fails as infrastructure (exit 3).",
        ),
        budget: float | None = typer.Option(
            None,
            "--budget",
            help="USD cap for this check's model calls; a pair "
            "it stops is named 'not checked' (an unchecked pair, never PASS).",
        ),
        config: str = typer.Option(
            "cascade",
            "--config",
            help="Gate config: a name (cascade, nano_only, ...; the project's configs/<name>.yaml overrides the "
            "packaged one) or a YAML path (one inside the repository is read from --base, like a name).",
        ),
        level0_only: bool = typer.Option(
            False, "--level0-only", help="No judges: differences WARN as 'needs judging'."
        ),
        live_tavily: bool = typer.Option(
            False, "--live-tavily", help="Confirm moved world facts with Tavily (TAVILY_API_KEY)."
        ),
        cache: CacheMode = typer.Option(CacheMode.ONCE, "--cache", help="Response cache mode."),
        ledger_hits: bool = typer.Option(
            False,
            "--ledger-hits",
            help="Write a $0 ledger row per cache hit (default: only counted per run; see docs/ledger.md).",
        ),
        repo: Path = typer.Option(Path("."), "--repo", help="Path inside the git repository."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
        concurrency: int = typer.Option(
            1,
            "--concurrency",
            min=1,
            max=64,
            help="Pairs replayed and judged at once (threads; the verdict is the same as at 1).",
        ),
        harness: HarnessChoice | None = typer.Option(
            None,
            "--harness",
            help="Replay through this harness instead of "
            "ratchet.yaml's `harness:` (minimal, claude-code, codex, command).",
        ),
        shard: str | None = typer.Option(
            None,
            "--shard",
            metavar="K/N",
            help="Replay only shard K of N of the "
            "affected goldens (a CI matrix); needs --shard-file. Exits 4: a shard is "
            "not a verdict, `ratchet merge` of all N files is.",
        ),
        shard_file: Path | None = typer.Option(
            None, "--shard-file", help="Where --shard writes what ratchet merge reads."
        ),
        agent_model: str | None = typer.Option(
            None,
            "--agent-model",
            metavar="MODEL",
            help="Gate a change of the agent's model without editing ratchet.yaml: every golden is replayed under "
            "MODEL (the base's agent tier otherwise), judged by the base's gate, and the verdict says per skill what "
            "regressed. A change of the agent in ratchet.yaml between the base and the head is gated the same way.",
        ),
        verdict_cache: bool = typer.Option(
            True,
            "--verdict-cache/--no-verdict-cache",
            help="Answer a repeat of an earlier check (same base, head, settings, Ratchet and harness) from its stored "
            "verdict, named as such; --no-verdict-cache checks afresh (and stores the new verdict).",
        ),
    ) -> None:
        """Replay the goldens an edit can affect and answer PASS / WARN / BLOCK.

        Exit codes: 0 PASS or WARN, 1 BLOCK, 2 bad input or pairs --budget stopped, 3 infrastructure
        error or a pair that could not be checked (unchecked pairs exit so, after the verdict is
        printed, unless --on-error is given), 4 a shard's file was written (--shard).
        """
        if head is not None and staged:
            raise InputError("--head and --staged exclude each other")
        job = shard_job(shard, shard_file)
        budget = checked_budget(budget)
        terminal = terminal_format(fmt, as_json=as_json)
        targets = parse_outputs(outputs)  # a bad FORMAT=FILE is refused before any replay runs
        # No flag: unchecked pairs BLOCK in the printed verdict and the exit code is 3 (exit_code_for).
        policy = on_error or OnError.BLOCK
        key = None
        if job is None and cache is CacheMode.ONCE and not live_tavily:
            key = stored_verdict_key(
                repo,
                base=base,
                head=head,
                staged=staged,
                work=work,
                options={
                    "config": "level0_only" if level0_only else config,
                    "harness": harness.harness_name if harness is not None else None,
                    "on_error": on_error.value if on_error is not None else None,
                    "budget": budget,
                    "cache": cache.value,
                    "agent_model": agent_model,
                    "ledger_hits": ledger_hits,
                },
            )
        if key is not None and verdict_cache and answered_from_store(key, terminal, targets, on_error):
            return
        from ratchet.gate.check import check_edit

        if key is not None:  # the commits the key names: a ref that moves now cannot change what is checked
            base, head = key.base, key.head
        verdict = as_given(
            check_edit(
                repo,
                base=base,
                head=head,
                staged=staged,
                home=work,
                on_error=policy,
                cache_mode=cache,
                budget_usd=budget,
                config="level0_only" if level0_only else config,
                live_tavily=live_tavily,
                harness=harness.harness_name if harness is not None else None,
                ledger_hits=ledger_hits,
                shard=job,
                concurrency=concurrency,
                agent_model=agent_model,
            ),
            on_error,
        )
        if job is not None and job.result is not None and shard_file is not None:
            write_shard(
                job.result.model_copy(
                    update={
                        "run": job.result.run.model_copy(
                            update={"on_error_flag": on_error.value if on_error is not None else None}
                        )
                    }
                ),
                shard_file,
            )
            typer.echo(partial_note(job.result), err=terminal is not OutputFormat.TABLE)
        emit_verdict(verdict, terminal, targets)
        if job is not None:
            raise typer.Exit(EXIT_PARTIAL)
        if key is not None:
            store_verdict(key, verdict, harness.harness_name if harness is not None else None)
        exit_for(verdict, on_error)


def emit_verdict(verdict: Verdict, terminal: OutputFormat, targets: list[OutputTarget]) -> None:
    """The verdict on stdout in `terminal`'s format, then into every `--output` file."""
    from ratchet.outputs.table import render_verdict

    if terminal is OutputFormat.TABLE:
        render_verdict(verdict, Console(highlight=False, soft_wrap=False))
    else:
        sys.stdout.write(render_text(verdict, terminal))
    # Before the exit code: a BLOCK or an unchecked pair (exit 3) must never lose the report.
    for target in targets:
        write_verdict(verdict, target)


def exit_for(verdict: Verdict, on_error: OnError | str | None) -> None:
    """Leave with the verdict's exit code (exit_code_for); exit 3, or 2 at the spend cap, as its one-line error."""
    code = exit_code_for(verdict, OnError(on_error) if on_error is not None else None)
    if code == InfraError.exit_code:
        raise unchecked(verdict)
    if code == BudgetError.exit_code:
        raise budget_stopped(verdict)
    if code:
        raise typer.Exit(code)


def shard_job(shard: str | None, shard_file: Path | None) -> ShardJob | None:
    """`--shard K/N` with its `--shard-file`, or nothing; either one alone is refused in one line."""
    if shard is None and shard_file is None:
        return None
    if shard is None:
        raise InputError("--shard-file is where --shard K/N writes its shard: give --shard too, e.g. --shard 1/3")
    if shard_file is None:
        raise InputError(f"--shard {shard} needs --shard-file FILE: the file ratchet merge combines with the others")
    return ShardJob(Shard.parse(shard))


def write_shard(result: ShardResult, path: Path) -> None:
    """The shard file, atomically; a folder we cannot write is infrastructure (exit 3)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, result.to_json())
    except OSError as err:
        raise InfraError(
            f"could not write --shard-file {path}: {err.strerror or err}; check the path is writable"
        ) from err
