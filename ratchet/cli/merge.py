"""`ratchet merge`: the shard files of one `ratchet check --shard K/N` run in, its verdict out."""

from __future__ import annotations

from pathlib import Path

import typer

from ratchet.cli.gate import as_given, emit_verdict, exit_for, terminal_format
from ratchet.outputs.formats import OutputFormat, parse_outputs


def register(app: typer.Typer) -> None:
    @app.command()
    def merge(
        shard_files: list[Path] = typer.Argument(
            ..., metavar="SHARD_FILE...", help="Every --shard-file of one run, in any order."
        ),
        fmt: OutputFormat = typer.Option(
            OutputFormat.TABLE,
            "--format",
            help="What the terminal gets: table, json, markdown or junit.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Same as --format json."),
        outputs: list[str] = typer.Option(
            [],
            "--output",
            metavar="FORMAT=FILE",
            help="Also write the verdict to FILE in FORMAT (table, json, markdown, junit); repeatable, as for check.",
        ),
    ) -> None:
        """Combine the shards of one sharded check into the verdict one unsharded check writes.

        The output and exit code are `ratchet check`'s for the same edit, byte for byte (--on-error
        as the shards were given it). Exit codes: 0 PASS or WARN, 1 BLOCK, 2 bad input (shards of
        different runs, a shard missing or given twice), 3 a pair could not be checked.
        """
        terminal = terminal_format(fmt, as_json=as_json)
        targets = parse_outputs(outputs)
        from ratchet.gate.shard import merge_shards

        merged, run = merge_shards(shard_files)
        verdict = as_given(merged, run.on_error_flag)
        emit_verdict(verdict, terminal, targets)
        exit_for(verdict, run.on_error_flag)
