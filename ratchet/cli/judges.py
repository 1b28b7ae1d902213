"""`ratchet judges`: how far each judge tier can be trusted, from a bench results directory and its labels."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer


class JudgesFormat(StrEnum):
    """What `ratchet judges` prints."""

    TEXT = "text"
    JSON = "json"


def register(app: typer.Typer) -> None:
    @app.command()
    def judges(
        results: Path = typer.Option(Path("bench/results/smoke-sim"), "--results", help="Bench results directory."),
        labels: Path | None = typer.Option(
            None,
            "--labels",
            help="Labels file (default: the project's labels/labels.json); the reviews.json beside it applies.",
        ),
        config: str = typer.Option(
            "cascade", "--config", help="Gate config whose judge_tpr_floor and judge_fpr_ceiling flag a tier."
        ),
        fmt: JudgesFormat = typer.Option(JudgesFormat.TEXT, "--format", help="text or json."),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
    ) -> None:
        """Per judge tier: labeled pairs, TPR and FPR with 95% Wilson intervals, unsure share, flags, warnings.

        Opinions come from each tier's single-tier run (nano_only, super_only, ultra_only), else the
        cascade run, plus the E6 noise run's unchanged-skill replays (negatives by construction).
        A tier is flagged when its TPR lower bound is below the config's judge_tpr_floor or its FPR
        upper bound above judge_fpr_ceiling. Warns when a judge shares the agent's model family.
        """
        from ratchet.bench.data.dataset import LABELS_FILE
        from ratchet.bench.report.judge_rates import judge_rates_of_dir, render_text
        from ratchet.core.jsonio import canonical_dumps

        rates = judge_rates_of_dir(
            results, labels_file=labels or project_dir / LABELS_FILE, config=config, project_root=project_dir
        )
        if fmt is JudgesFormat.JSON:
            typer.echo(canonical_dumps(rates.model_dump(mode="json")))
        else:
            typer.echo(render_text(rates), nl=False)
