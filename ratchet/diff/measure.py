"""How well the classifier names changes, measured on labelled edits: precision and recall per kind.

Two kinds of labels. A corpus edit (bench/diff-corpus/) lists the exact kinds a reviewer
expects, so every kind is scored: true positive when expected and found, false positive when found
and not expected, false negative when expected and not found. A benchmark edit has only its type
(R1-R7, N0, D1, F0); BENCH_TYPE_KINDS says which kinds each type should produce. There a type is
caught when one of its kinds is found (recall per type), a kind is precise when it is found only on
edits whose type names it (precision per kind), and an N0 or D1 control is a false alarm when it gets
any finding (it was not proved cosmetic) or a finding the static policy acts on (a false WARN).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ratchet.config.harness import HarnessName
from ratchet.core.yamlio import load_yaml_file
from ratchet.diff.effects import ToolCatalog
from ratchet.diff.folder import diff_skill_folder
from ratchet.diff.models import DiffKind, SkillDiff
from ratchet.diff.scripts import Analysers

BENCH_TYPE_KINDS: dict[str, frozenset[DiffKind]] = {
    "R1": frozenset({DiffKind.CONSTANT_CHANGED, DiffKind.CONDITION_CHANGED}),  # logic drift: a value or a test
    "R2": frozenset({DiffKind.OUTPUT_REMOVED}),  # dropped output field
    "R3": frozenset({DiffKind.CONSTANT_CHANGED}),  # a tool argument's value
    "R4": frozenset({DiffKind.ACTION_ADDED}),  # a new side-effecting call
    "R5": frozenset({DiffKind.DESCRIPTION_BROADENED}),  # trigger over-firing
    "R6": frozenset({DiffKind.DESCRIPTION_NARROWED}),  # trigger under-firing
    "R7": frozenset(
        {DiffKind.ACTION_REMOVED, DiffKind.INSTRUCTION_REMOVED}
    ),  # fault handling removed: a retry, a check
    "N0": frozenset(),  # cosmetic control: no finding
    "D1": frozenset(),  # world drift: one blank line in the skill, no finding
    "F0": frozenset(),  # fault handling refactored, kept: no finding the policy acts on
}
"""What each benchmark edit type (bench/DATASHEET.md) should make the diff say."""

CONTROL_TYPES = ("N0", "D1", "F0")
CORPUS_FOLDER = "skills/edited"


class LabelledEdit(BaseModel):
    """One edit with what a reviewer expects the diff to name."""

    model_config = ConfigDict(extra="forbid")

    id: str
    group: str = Field(description="A benchmark type (R1 ...) or `corpus`.")
    harness: HarnessName = "minimal"
    base: dict[str, str] = Field(description="Folder-relative path -> text at the base (SKILL.md, scripts/...).")
    head: dict[str, str] = Field(description="Folder-relative path -> text at the head.")
    expected: list[DiffKind] = Field(description="The kinds the diff should name (empty: no change).")
    mentions: list[str] = Field(default_factory=list, description="Text some finding must name.")

    def diff(self, *, catalog: ToolCatalog, analysers: Analysers, scratch: Path) -> SkillDiff:
        """The classifier's SkillDiff of this edit."""
        return diff_skill_folder(
            skill="edited",
            folder=CORPUS_FOLDER,
            harness=self.harness,
            catalog=catalog,
            analysers=analysers,
            scratch=scratch,
            base={f"{CORPUS_FOLDER}/{p}": t.encode() for p, t in self.base.items()},
            head={f"{CORPUS_FOLDER}/{p}": t.encode() for p, t in self.head.items()},
        )


def read_corpus(folder: Path) -> list[LabelledEdit]:
    """Every <name>.yaml of a corpus folder (format: the folder's README.md), by name."""
    edits = []
    for path in sorted(folder.glob("*.yaml")):
        raw = load_yaml_file(path)
        base = {"SKILL.md": raw["base"]} if raw.get("base") is not None else {}
        head = {"SKILL.md": raw["head"]} if raw.get("head") is not None else {}
        for name, sides in (raw.get("files") or {}).items():
            if sides.get("base") is not None:
                base[name] = sides["base"]
            if sides.get("head") is not None:
                head[name] = sides["head"]
        edits.append(
            LabelledEdit(
                id=path.stem,
                group="corpus",
                harness=raw.get("harness", "minimal"),
                base=base,
                head=head,
                expected=raw["expected"],
                mentions=raw.get("mentions", []),
            )
        )
    return edits


class Outcome(BaseModel):
    """One labelled edit and what the classifier said."""

    id: str
    group: str
    expected: list[DiffKind]
    found: list[DiffKind] = Field(description="The kinds found, once each, in DiffKind order.")
    floors: bool = Field(description="Whether a finding is one the static policy acts on.")
    mentioned: bool = Field(description="Whether every `mentions` string is in some finding.")

    @classmethod
    def of(cls, edit: LabelledEdit, diff: SkillDiff) -> Outcome:
        text = "\n".join(f"{f.render()} {f.old or ''} {f.new or ''} {f.analyser or ''}" for f in diff.findings)
        return cls(
            id=edit.id,
            group=edit.group,
            expected=edit.expected,
            found=sorted({f.kind for f in diff.findings}, key=list(DiffKind).index),
            floors=any(f.floors for f in diff.findings),
            mentioned=all(m in text for m in edit.mentions),
        )


class KindScore(BaseModel):
    """Counts and rates for one kind (a rate is None where nothing was counted)."""

    kind: DiffKind
    true_positive: int = 0
    false_positive: int = 0
    false_negative: int = 0

    @property
    def precision(self) -> float | None:
        found = self.true_positive + self.false_positive
        return self.true_positive / found if found else None

    @property
    def recall(self) -> float | None:
        wanted = self.true_positive + self.false_negative
        return self.true_positive / wanted if wanted else None


def score_exact(outcomes: Iterable[Outcome]) -> list[KindScore]:
    """Per kind, against the exact expected kinds of each edit (the corpus); kinds never expected nor found left out."""
    scores = {kind: KindScore(kind=kind) for kind in DiffKind}
    for outcome in outcomes:
        expected, found = set(outcome.expected), set(outcome.found)
        for kind in expected & found:
            scores[kind].true_positive += 1
        for kind in found - expected:
            scores[kind].false_positive += 1
        for kind in expected - found:
            scores[kind].false_negative += 1
    return [s for s in scores.values() if s.true_positive + s.false_positive + s.false_negative]


def score_bench(
    outcomes: Sequence[Outcome],
) -> tuple[dict[str, tuple[int, int]], list[KindScore], dict[str, tuple[int, int, int]]]:
    """(caught, edits) per R type; precision per kind the types name; (edits, any finding, a policy finding) per control."""
    caught: dict[str, tuple[int, int]] = {}
    for group in sorted({o.group for o in outcomes} - set(CONTROL_TYPES)):
        mine = [o for o in outcomes if o.group == group]
        hits = sum(1 for o in mine if BENCH_TYPE_KINDS.get(group, frozenset()) & set(o.found))
        caught[group] = (hits, len(mine))
    named = sorted(set().union(*BENCH_TYPE_KINDS.values()), key=list(DiffKind).index)
    precision = []
    for kind in named:
        score = KindScore(kind=kind)
        for outcome in outcomes:
            if kind in outcome.found:
                if kind in BENCH_TYPE_KINDS.get(outcome.group, frozenset()):
                    score.true_positive += 1
                else:
                    score.false_positive += 1
            elif kind in BENCH_TYPE_KINDS.get(outcome.group, frozenset()):
                score.false_negative += 1
        precision.append(score)
    controls = {}
    for group in CONTROL_TYPES:
        mine = [o for o in outcomes if o.group == group]
        controls[group] = (len(mine), sum(1 for o in mine if o.found), sum(1 for o in mine if o.floors))
    return caught, precision, controls


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def corpus_table(outcomes: Sequence[Outcome]) -> str:
    """The corpus measurement as Markdown: per-kind precision and recall, exact matches, mentions."""
    rows = ["| kind | TP | FP | FN | precision | recall |", "|---|---:|---:|---:|---:|---:|"]
    rows += [
        f"| {s.kind.value} | {s.true_positive} | {s.false_positive} | {s.false_negative} | {_rate(s.precision)} "
        f"| {_rate(s.recall)} |"
        for s in score_exact(outcomes)
    ]
    exact = sum(1 for o in outcomes if set(o.expected) == set(o.found))
    named = sum(1 for o in outcomes if o.mentioned)
    return "\n".join(rows) + (
        f"\n\n{exact} of {len(outcomes)} edits get exactly the expected kinds; "
        f"{named} of {len(outcomes)} name every expected value.\n"
    )


def bench_table(outcomes: Sequence[Outcome]) -> str:
    """The benchmark measurement as Markdown: recall per type, precision per kind, the controls' false alarms."""
    caught, precision, controls = score_bench(outcomes)
    rows = ["| type | kinds | caught | edits | recall |", "|---|---|---:|---:|---:|"]
    for group, (hits, total) in caught.items():
        kinds = ", ".join(k.value for k in sorted(BENCH_TYPE_KINDS.get(group, frozenset()), key=list(DiffKind).index))
        rows.append(f"| {group} | {kinds} | {hits} | {total} | {_rate(hits / total if total else None)} |")
    rows += ["", "| kind | found on its types | found elsewhere | precision |", "|---|---:|---:|---:|"]
    rows += [f"| {s.kind.value} | {s.true_positive} | {s.false_positive} | {_rate(s.precision)} |" for s in precision]
    rows += [
        "",
        "| control | edits | any finding (not proved cosmetic) | a finding the policy acts on |",
        "|---|---:|---:|---:|",
    ]
    rows += [
        f"| {group} | {total} | {found} ({_rate(found / total if total else None)}) | {floor} "
        f"({_rate(floor / total if total else None)}) |"
        for group, (total, found, floor) in controls.items()
    ]
    return "\n".join(rows) + "\n"
