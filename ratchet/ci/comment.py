"""The body of the sticky PR comment: the verdict's Markdown, or why there is no verdict.

Why a note beyond the verdict's own Markdown: a job that fails as infrastructure (exit 3) or on
bad input (exit 2) must say so in the pull request too. A stale PASS left in the comment while
the job turned red would be read as a pass.

Why the mutation score: a reviewer weighing a PASS should know how much the goldens behind it would
catch. Each edited skill's score is read at the verdict's base (goldens/<skill>/mutation.score.json,
saved by `ratchet mutate`), as the gate reads everything it gates with (docs/adr/0011), so an edit
cannot bring its own; where none was measured, the comment says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pydantic import ValidationError

from ratchet.core.errors import InputError, validation_summary
from ratchet.core.jsonio import load_json_text, read_utf8
from ratchet.gate.models import Verdict
from ratchet.gate.mutation import scores_at_revision
from ratchet.gate.revision_names import label
from ratchet.goldens.mutation import MutationScore
from ratchet.outputs.markdown import render_markdown
from ratchet.outputs.text import md_inline

GITHUB_COMMENT_LIMIT = 65_536  # characters GitHub accepts in a comment body (422 past it)
_ROOM = 1_000  # for the marker line, the notes around the verdict and the job link
_DETAILS = "\n\n<details>"

EXIT_MEANING = {
    0: "PASS or WARN",
    1: "BLOCK",
    2: "bad input: fix what the error names",
    3: "infrastructure error: some of the edit could not be checked",
}
# Bad input stops a check before it writes a verdict; exit 2 after one is the --budget cap (docs/ledger.md).
BUDGET_STOP = "the --budget cap stopped pairs before they were checked"


def read_verdict(path: Path) -> Verdict | None:
    """The verdict `ratchet check --json` wrote, or None when it wrote nothing (it failed first)."""
    text = read_utf8(path, error=InputError) if path.exists() else ""
    if not text.strip():
        return None
    data = load_json_text(text, source=str(path), error=InputError)
    try:
        return Verdict.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"not a Ratchet verdict: {validation_summary(exc)}", path=path) from None


def error_line(stderr: str) -> str:
    """The one-line `error: ...` the CLI printed last, or the last line of stderr."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    picked = errors[-1] if errors else (lines[-1] if lines else "")
    return picked.removeprefix("error:").strip()


def comment_body(
    verdict: Verdict | None,
    *,
    markdown: str | None = None,
    check_exit: int | None = None,
    check_error: str = "",
    run_url: str | None = None,
    mutation: Mapping[str, MutationScore | None] | str | None = None,
) -> str:
    """What the PR comment says, ending in one newline.

    `mutation`: each edited skill's score at the base, None where none was measured (base_scores), or why
    the base could not be read; None: not shown."""
    blocks: list[str] = []
    if verdict is None:
        code = "" if check_exit is None else f" (exit {check_exit}: {EXIT_MEANING.get(check_exit, 'unexpected')})"
        blocks.append(f"⚠️ **Ratchet could not check this pull request**{code}")
        if check_error:
            blocks.append(f"> {md_inline(check_error)}")
    else:
        if check_exit in (2, 3):
            said = f": {md_inline(check_error)}" if check_error else ""
            meaning = BUDGET_STOP if check_exit == 2 else EXIT_MEANING[check_exit]
            blocks.append(f"⚠️ **The job fails (exit {check_exit}, {meaning})**{said}")
        blocks.append(
            _fit(
                (markdown if markdown is not None else render_markdown(verdict)).rstrip("\n"),
                GITHUB_COMMENT_LIMIT - _ROOM,
            )
        )
        if mutation is not None:
            blocks.extend(mutation_blocks(verdict, mutation))
    if run_url:
        blocks.append(f"<sub>[job log and artifacts]({run_url})</sub>")
    return "\n\n".join(blocks) + "\n"


def _fit(markdown: str, limit: int) -> str:
    """The Markdown cut to `limit` at a pair's `<details>` block, with a note of what was left out.

    Why whole blocks: half a `<details>` leaves the rest of the comment collapsed inside it.
    """
    if len(markdown) <= limit:
        return markdown
    total = markdown.count(_DETAILS)
    cut = markdown.rfind(_DETAILS, 0, limit)
    # No block starts before the limit: the summary itself is too long, and no block is in the cut.
    head = markdown[:cut] if cut != -1 else markdown[:limit]
    left = total - head.count(_DETAILS)
    return (
        f"{head}\n\n_Evidence of {left} more pair(s) left out: GitHub's comment limit. "
        "The job's ratchet-outputs artifact has all of it._"
    )


def base_scores(path: Path, verdict: Verdict) -> dict[str, MutationScore | None] | str:
    """Each edited skill's mutation score in the repository at `path`, at the verdict's base: None where the
    base has none; one line saying why when the base cannot be read (no repository, a commit it lacks, a
    malformed score). The review page reads it the same way (ratchet.gate.mutation.scores_at_revision)."""
    return scores_at_revision(path, verdict.base, verdict.skills_changed)


def mutation_blocks(verdict: Verdict, mutation: Mapping[str, MutationScore | None] | str) -> list[str]:
    """The comment's mutation-score block: one line per edited skill, or why the base could not be read."""
    if isinstance(mutation, str):
        return [f"_Mutation score not read at the base: {md_inline(mutation.rstrip('.'))}._"]
    if not verdict.skills_changed:
        return []
    lines = []
    for skill in verdict.skills_changed:
        score = mutation.get(skill)
        if score is None:
            said = f"none measured: `ratchet mutate {skill}` saves it; commit it with the goldens"
        else:
            blind = ": these goldens would not notice this kind of change" if score.kills_none else ""
            said = md_inline(f"{score.line()} ({score.measured()}){blind}")
        lines.append(f"- {md_inline(skill)}: {said}")
    skills = "skill" if len(verdict.skills_changed) == 1 else "skills"
    head = f"**Mutation score** of the edited {skills} at the base `{label(verdict.base)}` (docs/mutate.md):"
    return [head + "\n\n" + "\n".join(lines)]
