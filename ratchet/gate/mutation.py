"""The base's mutation scores, as a check reads them: goldens that kill none of their skill's mutants are named.

`ratchet mutate` saves each skill's score beside its goldens (ratchet.goldens.mutation). A check reads the
base's copy, as it reads everything it gates with from the base (docs/adr/0011), so an edit cannot bring
its own score. When an edited skill's goldens killed none of the mutants checked, every verdict on it
says so: whatever its replays show about this edit, these goldens did not notice any deliberate breakage
of that kind. A `note`, not a `warn`: the decision stays the replays' own, and the score may be of an
older version of the skill or goldens (its commit is named).

The PR comment (ratchet.ci.comment) and the review page (ratchet.review.collect) show an edit's base scores
too, read from git at the base commit (scores_at_revision): one reader for both.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

import git

from ratchet.config.project import CONFIG_FILE, Paths, parse_config
from ratchet.core.errors import ConfigError, GoldenError, RatchetError
from ratchet.core.ids import IdKind, id_problem
from ratchet.core.jsonio import decode_utf8
from ratchet.gate.models import Unseen
from ratchet.gate.revision_names import label
from ratchet.goldens.mutation import CLASS_MEANINGS, SCORE_FILE, MutationScore, parse_score
from ratchet.repo.changes import ChangedPath
from ratchet.repo.git import open_repo
from ratchet.repo.trees import read_file_at
from ratchet.skills.names import skill_key

__all__ = ["base_scores", "head_score_notes", "mutation_notes", "scores_at_revision"]

_ABSENT = "000000"  # ChangedPath's mode for the side that lacks the path


def base_scores(
    base_tree: Path, goldens: str, golden_bytes: Mapping[str, bytes] | None, skills: Sequence[str], *, at: str
) -> tuple[dict[str, MutationScore], list[Unseen]]:
    """The base's scores of the edited `skills`, by skill folder: from `golden_bytes` (the goldens read from
    git, by repo path) when given, else from the export at `base_tree`. Only theirs are read, and a malformed
    one or one of another schema_version is a note naming `<path>@<at>` and the problem, never an error: a
    score is no golden, and one bad file merged must not stop every later check."""
    folder = posixpath.normpath(goldens)
    wanted = {skill_key(name) for name in skills}
    if golden_bytes is None:
        root = base_tree / goldens
        found = sorted(root.glob(f"*/{SCORE_FILE}")) if root.is_dir() else []
        files = {posixpath.join(folder, path.parent.name, SCORE_FILE): path.read_bytes() for path in found}
    else:
        files = dict(golden_bytes)
    scores: dict[str, MutationScore] = {}
    notes: list[Unseen] = []
    for path, data in sorted(files.items()):
        parts = PurePosixPath(path).parts
        if parts[-1:] != (SCORE_FILE,) or posixpath.normpath(posixpath.dirname(posixpath.dirname(path))) != folder:
            continue
        skill = parts[-2]
        if skill_key(skill) not in wanted:
            continue
        where = f"{path.removeprefix('./')}@{at}"
        try:
            scores[skill] = parse_score(decode_utf8(data, path=Path(where), error=GoldenError), source=where)
        except GoldenError as err:
            notes.append(Unseen(kind="mutation", skill=skill, level="note", detail=err.one_line()))
    return scores, notes


def head_score_notes(repo: git.Repo, head: str, changes: Sequence[ChangedPath], goldens: str) -> list[Unseen]:
    """A note per score file the edit adds or changes that a later check could not read (malformed, or of
    another schema_version): once merged it says nothing, so the edit says so now."""
    folder = posixpath.normpath(goldens)
    notes: list[Unseen] = []
    for change in changes:
        path = change.path
        if change.is_gitlink or change.new_mode == _ABSENT or PurePosixPath(path).name != SCORE_FILE:
            continue
        if posixpath.normpath(posixpath.dirname(posixpath.dirname(path))) != folder:
            continue
        where = f"{path}@{label(head)}"
        try:
            parse_score(read_file_at(repo, head, path, error=GoldenError) or "", source=where)
        except GoldenError as err:
            skill = PurePosixPath(path).parts[-2]
            notes.append(Unseen(kind="mutation", skill=skill, level="note", detail=err.one_line()))
    return notes


def scores_at_revision(path: Path, rev: str, skills: Sequence[str]) -> dict[str, MutationScore | None] | str:
    """Each of `skills`' saved score in the repository holding `path`, at `rev` (its ratchet.yaml names the
    goldens folder): None where `rev` has none; one line saying why when it cannot be read (no repository, a
    commit it lacks, a malformed score)."""
    try:
        repo = open_repo(path)
        text = read_file_at(repo, rev, CONFIG_FILE, error=ConfigError)
        at = label(rev)
        paths = parse_config(text, source=f"{CONFIG_FILE}@{at}").paths if text is not None else Paths()
        scores: dict[str, MutationScore | None] = {}
        for skill in skills:
            if id_problem(IdKind.SKILL, skill) is not None:  # a name no score file can be under
                scores[skill] = None
                continue
            where = posixpath.join(posixpath.normpath(paths.goldens), skill, SCORE_FILE).removeprefix("./")
            found = read_file_at(repo, rev, where, error=GoldenError)
            scores[skill] = parse_score(found, source=f"{where}@{at}") if found is not None else None
    except RatchetError as err:
        return err.one_line()
    return scores


def mutation_notes(scores: Mapping[str, MutationScore], changed: Sequence[str]) -> list[Unseen]:
    """A note per changed skill whose goldens killed none of its mutants, in changed-skill order."""
    by_key = {skill_key(folder): score for folder, score in scores.items()}
    notes: list[Unseen] = []
    for name in changed:
        score = by_key.get(skill_key(name))
        if score is None or not score.kills_none:
            continue
        classes = ", ".join(f"{cls} ({CLASS_MEANINGS[cls]})" for cls in score.survived_classes)
        notes.append(
            Unseen(
                kind="mutation",
                skill=name,
                level="note",
                detail=(
                    f"the goldens of skill {name} killed none of the {score.checked} mutants ratchet mutate made "
                    f"of it ({score.measured()}): these goldens would not notice this kind of change: {classes}; "
                    "add tasks whose replays would differ under it (docs/mutate.md)"
                ),
            )
        )
    return notes
