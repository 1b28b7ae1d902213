"""`ratchet check`'s stored verdicts (ratchet.gate.verdict_store): a repeat check at the cost of `ratchet --version`.

Everything heavy is imported inside the functions: this module is on the repeat's fast path."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ratchet.outputs.formats import OutputFormat, OutputTarget

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ratchet.config.harness import HarnessName
    from ratchet.gate.models import Verdict
    from ratchet.gate.policy import OnError
    from ratchet.gate.verdict_store import StoreKey


def stored_verdict_key(
    repo: Path, *, base: str, head: str | None, staged: bool, work: Path | None, options: Mapping[str, Any]
) -> StoreKey | None:
    """This check's key in the store of verdicts; None when stored verdicts are off or it cannot be read cheaply.

    Only `--cache once` (the default) checks are stored: `new` and `all` ask the models afresh and `none`
    asks for the recorded answers themselves. A live check is stored too: under `once` its repeat would
    replay the recorded answers anyway, so the model moving behind its name could not change it either.
    `--live-tavily` is never stored: the facts it confirms may have moved, and asking is the point.
    """
    from ratchet.gate import verdict_store

    if not verdict_store.enabled():
        return None

    def home_for(root: Path) -> Path:
        # The check's own work area, resolved as check_edit resolves it: its `.key` signs the entries.
        from ratchet.config.project import work_area

        return work_area(root, work)

    return verdict_store.store_key(repo, base=base, head=head, staged=staged, home_for=home_for, options=options)


def answered_from_store(
    key: StoreKey, terminal: OutputFormat, targets: list[OutputTarget], on_error: OnError | None
) -> bool:
    """Print the stored verdict for `key`, named as such, and leave with its exit code; False on a miss."""
    from ratchet.cli.gate import emit_verdict, exit_for
    from ratchet.gate import verdict_store
    from ratchet.gate.models import Verdict

    stored = verdict_store.load(key)
    if stored is None:
        return False
    try:
        verdict = Verdict.model_validate(stored.verdict).model_copy(update={"answered_from": stored.answered_from})
    except ValueError:  # written by another Ratchet whose verdict this one cannot read: a miss
        return False
    note = f"answered from {stored.answered_from}; --no-verdict-cache checks afresh"
    typer.echo(note, err=terminal is not OutputFormat.TABLE)
    emit_verdict(verdict, terminal, targets)
    exit_for(verdict, on_error)
    return True


def store_verdict(key: StoreKey, verdict: Verdict, harness: HarnessName | None) -> None:
    """Store a verdict for its repeats, unless it is not of the key's commits, a pair could not be checked
    (an error, the budget) or it ran
    through the `command` harness, whose program Ratchet cannot pin; a claude / codex binary is pinned."""
    from ratchet.gate import verdict_store

    if any(pair.outcome == "error" for pair in verdict.pairs):
        return
    if not verdict_store.checked_under(key, base=verdict.base, head=verdict.head):
        return  # a ref or the index moved during the check: this verdict is not the key's
    binaries = harness_binaries(key, harness)
    if binaries is not None:
        verdict_store.save(key, verdict.model_dump(mode="json"), binaries=binaries)


def harness_binaries(key: StoreKey, harness: HarnessName | None) -> list[Path] | None:
    """The harness binary the check ran (none for `minimal`), as the base's ratchet.yaml names it; None for
    `command`, or when it cannot be told (then nothing is stored)."""
    import subprocess

    from ratchet.config.project import CONFIG_FILE, project_from_text
    from ratchet.core.errors import RatchetError
    from ratchet.harness.binaries import find_binary

    try:
        shown = subprocess.run(
            ["git", "show", f"{key.base}:{CONFIG_FILE}"], cwd=key.toplevel, capture_output=True, text=True, check=False
        )
        text = shown.stdout if shown.returncode == 0 else None
        project = project_from_text(key.toplevel, text, source=f"{CONFIG_FILE}@{key.base[:10]}").with_harness(harness)
        settings = project.config.harness
        if settings.name == "command":
            return None
        if settings.name == "minimal":
            return []
        return [find_binary(settings.name, settings.bin)]
    except (RatchetError, OSError, ValueError):
        return None
