"""`ratchet ci comment`: post or update the one sticky comment on the pull request."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

ci_app = typer.Typer(help="Ratchet in CI: the pull request's sticky comment.", no_args_is_help=True)


@ci_app.command("comment")
def comment(
    verdict: Annotated[
        Path,
        typer.Option(
            "--verdict",
            help="The verdict JSON `ratchet check --output json=FILE` wrote "
            "(empty or missing when the check failed before a verdict).",
        ),
    ],
    markdown: Annotated[
        Path | None,
        typer.Option(
            "--markdown",
            help="The comment's Markdown (`ratchet check --output markdown=FILE`); default: rendered from the verdict.",
        ),
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            help="Which sticky comment: one per key, so two gate configs keep one each. "
            "Default: the verdict's gate config.",
        ),
    ] = None,
    check_exit: Annotated[
        int | None,
        typer.Option("--check-exit", help="`ratchet check`'s exit code, so a failed check says so in the comment."),
    ] = None,
    check_stderr: Annotated[
        Path | None,
        typer.Option("--check-stderr", help="`ratchet check`'s stderr; its error line goes into the comment."),
    ] = None,
    repo: Annotated[
        Path,
        typer.Option(
            "--repo",
            help="The repository checked: each edited skill's mutation score is read there at the verdict's base.",
        ),
    ] = Path("."),
) -> None:
    """Create the pull request's Ratchet comment, or rewrite the one an earlier run made.

    Reads GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_PATH (a pull_request event) and
    GITHUB_API_URL (default https://api.github.com), as a GitHub Actions runner sets them.
    The comment shows each edited skill's mutation score as the base keeps it
    (goldens/<skill>/mutation.score.json, saved by `ratchet mutate`), or that none was measured.
    Exit codes: 0 posted, 2 missing environment or not a pull request, 3 the GitHub API failed.
    """
    from ratchet.ci.comment import base_scores, comment_body, error_line, read_verdict
    from ratchet.ci.github import (
        GitHubClient,
        post_sticky_comment,
        pull_request_number,
        read_github_env,
    )
    from ratchet.core.errors import InputError
    from ratchet.core.jsonio import read_utf8

    env = read_github_env()
    number = pull_request_number(env.event_path)
    found = read_verdict(verdict)
    if found is None and check_exit is None:
        raise InputError(
            "holds no verdict; pass --check-exit (and --check-stderr) to report a failed check", path=verdict
        )
    text = read_utf8(markdown, error=InputError) if markdown is not None else None
    stderr = read_utf8(check_stderr, error=InputError) if check_stderr is not None and check_stderr.exists() else ""
    body = comment_body(
        found,
        markdown=text,
        check_exit=check_exit,
        check_error=error_line(stderr),
        run_url=env.run_url,
        mutation=base_scores(repo, found) if found is not None else None,
    )
    sticky = key or (found.gate_config if found is not None and found.gate_config else "cascade")
    with GitHubClient(api_url=env.api_url, repository=env.repository, token=env.token.get_secret_value()) as api:
        result = post_sticky_comment(api, number, body, key=sticky)
    typer.echo(f"{result.action} comment {result.comment_id} on #{number}: {result.url}")


def register(app: typer.Typer) -> None:
    """Add the `ci` sub-app to the app."""
    app.add_typer(ci_app, name="ci")
