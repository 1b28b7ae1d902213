"""A skill's mutation score, kept beside its goldens: goldens/<skill>/mutation.score.json.

`ratchet mutate` (docs/mutate.md) breaks a skill on purpose and counts how many of the broken copies its
goldens notice. The score is kept where the goldens are, so it travels with git: `ratchet bless` prints
it, the PR comment reads the base's copy, and a check names a skill whose goldens killed none of its
mutants (ratchet.gate.mutation). It is a small, byte-stable record (canonical JSON, no clock): the
commit the mutants were made from, the seed, killed over checked per class, and the survivors (the
tests a team should add). It is not a golden: trace.load_golden_files skips it (SCORE_SUFFIX).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from ratchet.core.errors import GoldenError, validation_summary
from ratchet.core.ids import inside
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, decode_utf8, load_json_text, read_utf8
from ratchet.goldens.trace import SCORE_SUFFIX

SCORE_SCHEMA_VERSION = 1
SCORE_FILE = f"mutation{SCORE_SUFFIX}"

MutantClass = Literal["R1", "R2", "R3", "R4", "R5", "R6"]
MUTANT_CLASSES: tuple[MutantClass, ...] = ("R1", "R2", "R3", "R4", "R5", "R6")
CLASS_MEANINGS: dict[MutantClass, str] = {
    "R1": "a deleted or inverted instruction",
    "R2": "a dropped output field or heading",
    "R3": "a changed value, name, path or argument",
    "R4": "a new side-effecting instruction",
    "R5": "a broadened description",
    "R6": "a narrowed description",
}
"""What a mutant of each regression class does, in the words a verdict uses (docs/mutate.md, The classes)."""


class ClassKills(BaseModel):
    """Killed over checked for one regression class."""

    mutant_class: MutantClass
    killed: int = Field(ge=0)
    checked: int = Field(ge=0)


class Survivor(BaseModel):
    """A mutant no golden noticed: a test the team should add."""

    id: str
    mutant_class: MutantClass
    description: str


class MutationScore(BaseModel):
    """The last `ratchet mutate` of one skill, as goldens/<skill>/mutation.score.json holds it."""

    schema_version: int = SCORE_SCHEMA_VERSION
    skill: str
    base: str = Field(description="The commit the mutants were made from and checked at.")
    seed: int
    simulated: bool = Field(description="Measured on the simulator (SIMULATED MODELS), not a live upstream.")
    limit: int | None = Field(
        default=None, exclude_if=lambda value: value is None, description="--limit: at most this many mutants."
    )
    killed: int = Field(ge=0)
    checked: int = Field(ge=0, description="Killed + survived (a mutant the run could not check is in neither).")
    by_class: list[ClassKills] = Field(default_factory=list)
    survivors: list[Survivor] = Field(default_factory=list)

    @model_validator(mode="after")
    def _counts_agree(self) -> MutationScore:
        if not self.killed <= self.checked or any(not c.killed <= c.checked for c in self.by_class):
            raise ValueError("more mutants killed than checked")
        if (sum(c.killed for c in self.by_class), sum(c.checked for c in self.by_class)) != (self.killed, self.checked):
            raise ValueError("the classes' counts do not add up to the skill's")
        if len(self.survivors) != self.checked - self.killed:
            raise ValueError(f"{len(self.survivors)} survivors listed, {self.checked - self.killed} counted")
        return self

    @property
    def kills_none(self) -> bool:
        """The goldens noticed none of the mutants checked (at least one was)."""
        return self.checked > 0 and self.killed == 0

    @property
    def survived_classes(self) -> list[MutantClass]:
        """The classes with a mutant no golden noticed, R1 to R6."""
        return [c.mutant_class for c in self.by_class if c.killed < c.checked]

    def line(self) -> str:
        """`goldens kill 21 of 24 mutants (88%); R1 8/9, R2 3/3, ...`: the score in one line."""
        classes = ", ".join(f"{c.mutant_class} {c.killed}/{c.checked}" for c in self.by_class if c.checked)
        return f"goldens kill {self.killed} of {self.checked} mutants ({percent(self.killed, self.checked)})" + (
            f"; {classes}" if classes else ""
        )

    def measured(self) -> str:
        """`at 3f2a1b4c5d, seed 0, simulated`: where the score comes from."""
        limit = f", --limit {self.limit}" if self.limit is not None else ""
        return f"at {self.base[:10]}, seed {self.seed}{limit}{', simulated' if self.simulated else ''}"

    def to_json(self) -> str:
        return canonical_dumps(self.model_dump(mode="json"))


def percent(killed: int, checked: int) -> str:
    """`88%`, rounded half up (as the mutation report rounds); `-` when nothing was checked."""
    return f"{(200 * killed + checked) // (2 * checked)}%" if checked else "-"


def score_path(goldens_dir: Path, skill: str) -> Path:
    """goldens/<skill>/mutation.score.json; a skill name that would lead outside is refused (InputError)."""
    return inside(goldens_dir, skill, SCORE_FILE)


def write_score(goldens_dir: Path, score: MutationScore) -> Path:
    path = score_path(goldens_dir, score.skill)
    atomic_write_text(path, score.to_json())
    return path


def parse_score(text: str, *, source: str) -> MutationScore:
    """Parse a score file; one-line GoldenError on anything malformed or of another schema_version."""
    raw: Any = load_json_text(text, source=source, error=GoldenError)
    version = raw.get("schema_version") if isinstance(raw, dict) else None
    if type(version) is not int or version != SCORE_SCHEMA_VERSION:
        raise GoldenError(
            f"unsupported mutation score schema_version {version!r} (this Ratchet reads {SCORE_SCHEMA_VERSION}): "
            "run ratchet mutate again",
            path=source,
        )
    try:
        return MutationScore.model_validate(raw)
    except ValidationError as exc:
        raise GoldenError(f"invalid mutation score: {validation_summary(exc)}", path=source) from None


def read_score(goldens_dir: Path, skill: str) -> MutationScore | None:
    """The skill's score on disk, or None when it has none."""
    path = score_path(goldens_dir, skill)
    return parse_score(read_utf8(path, error=GoldenError), source=str(path)) if path.is_file() else None


def load_scores(goldens_dir: Path, contents: Mapping[Path, bytes] | None = None) -> dict[str, MutationScore]:
    """Every skill's score under a goldens folder, by the skill folder it sits in.

    `contents` stands in for the folder on disk, as in trace.load_golden_files (a check reads the base's
    goldens from git).
    """
    if contents is None:
        found = sorted(goldens_dir.glob(f"*/{SCORE_FILE}")) if goldens_dir.is_dir() else []
        return {path.parent.name: parse_score(read_utf8(path, error=GoldenError), source=str(path)) for path in found}
    return {
        path.parent.name: parse_score(decode_utf8(data, path=path, error=GoldenError), source=str(path))
        for path, data in sorted(contents.items())
        if path.name == SCORE_FILE and path.parent.parent == goldens_dir
    }
