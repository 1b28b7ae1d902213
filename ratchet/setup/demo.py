"""`ratchet demo`: the gate end to end, offline, on a throwaway skills repository.

It copies the packaged demo project (ratchet/data/demo/: two skills with their tasks, world and
workspaces) into a new git repository, records and blesses goldens on the simulator, then gates
five edits, each on its own branch, through Level 0 and the judge cascade: a cosmetic one (no
change in instructions, so nothing is replayed: PASS at $0, ratchet.gate.static), a reworded status
line (judged; Nano settles it), a changed tool argument (Nano is not sure enough, Super decides), a
description narrowed so some tasks no longer route to the skill (a routing change) and an added
side-effecting step (a Level 0 hard fail, no judge). With a harness (`ratchet demo --harness claude-code`) the goldens are recorded
and the edits replayed through that real binary.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import git

from ratchet.bless.record import bless, record_tasks
from ratchet.config.env import on_the_simulator
from ratchet.config.gate import resolve_gate_config
from ratchet.config.harness import HarnessName, HarnessSettings
from ratchet.config.project import load_project
from ratchet.core.errors import InputError
from ratchet.data import demo_files
from ratchet.gate.check import check_edit
from ratchet.gate.models import Decision, Verdict
from ratchet.harness.driver import resolve_binary
from ratchet.repo.commits import commit_all

DEMO_SKILLS = ("github-triage", "fx-expense-converter")
_DEMO_AUTHOR = git.Actor("Ratchet Demo", "demo@example.com")


@dataclass(frozen=True)
class DemoEdit:
    """One scripted edit of one skill, and the decision the gate should reach."""

    branch: str
    skill: str
    message: str
    expected: Decision
    apply: Callable[[str], str]


def _cosmetic(text: str) -> str:
    head, sep, body = text.partition("\n---\n")
    body = body.replace("\n## ", "\n\n<!-- section reviewed 2026-10 -->\n## ", 1)
    return head + sep + body.rstrip("\n") + "\n\n\n"


def _replace_once(old: str, new: str) -> Callable[[str], str]:
    def apply(text: str) -> str:
        if old not in text:
            raise InputError(f"demo edit expects {old!r} in the skill; the bundled skill changed")
        return text.replace(old, new, 1)

    return apply


def _add_step(anchor: str, step: str) -> Callable[[str], str]:
    """Insert a step right after the line containing `anchor`."""

    def apply(text: str) -> str:
        lines = text.splitlines(keepends=True)
        for index, line in enumerate(lines):
            if anchor in line:
                lines.insert(index + 1, step + "\n")
                return "".join(lines)
        raise InputError(f"demo edit expects {anchor!r} in the skill; the bundled skill changed")

    return apply


def _replace_description(description: str) -> Callable[[str], str]:
    """Swap the frontmatter description (the catalog line the model routes by) for another."""

    def apply(text: str) -> str:
        lines = text.splitlines(keepends=True)
        for index, line in enumerate(lines):
            if line.startswith("description:"):
                lines[index] = f"description: {description}\n"
                return "".join(lines)
        raise InputError("demo edit expects a description: line in the skill; the bundled skill changed")

    return apply


EDITS: tuple[DemoEdit, ...] = (
    DemoEdit(
        branch="edit/cosmetic",
        skill="github-triage",
        message="github-triage: tidy whitespace, add a review comment",
        expected="PASS",
        apply=_cosmetic,
    ),
    DemoEdit(
        branch="edit/reworded-status",
        skill="github-triage",
        message="github-triage: reword the duplicate status line",
        expected="PASS",
        apply=_replace_once('"closed as duplicate"', '"closed as a duplicate"'),
    ),
    DemoEdit(
        branch="edit/changed-argument",
        skill="github-triage",
        message="github-triage: rename the normal priority label to priority/medium",
        expected="BLOCK",
        apply=_replace_once('else "priority/normal"', 'else "priority/medium"'),
    ),
    DemoEdit(
        branch="edit/narrowed-description",
        skill="github-triage",
        message="github-triage: describe the skill as security triage only",
        expected="BLOCK",
        apply=_replace_description(
            "Triage security vulnerability reports (CVE, exploit, leaked credentials) for the acme security team."
        ),
    ),
    DemoEdit(
        branch="edit/new-side-effect",
        skill="fx-expense-converter",
        message="fx-expense-converter: also email the finance team",
        expected="BLOCK",
        apply=_add_step(
            '$status = "converted"',
            '8. Send the totals to finance: `email_send(to="finance@example.com", '
            'subject="Expenses converted", body=fmt("Total: {} USD", $total))`.',
        ),
    ),
)


def _copy_sources(dest: Path) -> None:
    with demo_files() as source:
        # copyfile, not copy2: an installed package may be read-only, the demo edits its copy
        shutil.copytree(source, dest, dirs_exist_ok=True, copy_function=shutil.copyfile)
    (dest / ".gitignore").write_text(".ratchet/\n", encoding="utf-8")


def _commit_all(repo: git.Repo, message: str) -> str:
    return commit_all(repo, message, _DEMO_AUTHOR)


@contextmanager
def _demo_dir(target: Path | None) -> Iterator[Path]:
    if target is not None:
        target = target.resolve()
        blocker = next((p for p in (target, *target.parents) if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise InputError(f"{blocker} is a file; give --dir a new or empty folder")
        if target.exists() and any(target.iterdir()):
            raise InputError(f"{target} is not empty; give --dir a new or empty folder")
        target.mkdir(parents=True, exist_ok=True)
        yield target
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ratchet-demo-") as tmp:
        yield Path(tmp)


@dataclass
class DemoResult:
    """What the demo did."""

    repo: Path
    goldens: int
    verdicts: list[tuple[DemoEdit, Verdict]]


def build_demo_repo(root: Path, home: Path, *, harness: HarnessName | None = None) -> str:
    """Copy the demo skills into a new git repo at root, record and bless goldens (through `harness`
    when given); return the sha."""
    _copy_sources(root)
    repo = git.Repo.init(root, initial_branch="main")
    _commit_all(repo, "Skills, tasks and world")
    project = load_project(root, home=home).with_harness(harness)
    recorded = record_tasks(project)
    if recorded.errors:
        raise InputError(f"demo tasks failed to record: {recorded.errors[0]}")
    bless(project)
    return _commit_all(repo, "Bless goldens")


def apply_edit(root: Path, edit: DemoEdit) -> str:
    """Commit `edit` on its own branch from main; leave main checked out. Returns the edit's sha."""
    repo = git.Repo(root)
    repo.git.checkout("-q", "-b", edit.branch, "main")
    path = root / "skills" / edit.skill / "SKILL.md"
    path.write_text(edit.apply(path.read_text(encoding="utf-8")), encoding="utf-8")
    sha = _commit_all(repo, edit.message)
    repo.git.checkout("-q", "main")
    return sha


def run_demo(
    target: Path | None,
    *,
    report: Callable[[str], None],
    show: Callable[[Verdict], None],
    harness: HarnessName | None = None,
) -> DemoResult:
    """Build the demo repository and gate the edits (through `harness` when given: the real
    Claude Code or Codex binary, over the simulator); report/show print as it goes."""
    with on_the_simulator():  # the demo is always offline, whatever the shell says
        return _run_demo(target, report=report, show=show, harness=harness)


def _run_demo(
    target: Path | None,
    *,
    report: Callable[[str], None],
    show: Callable[[Verdict], None],
    harness: HarnessName | None,
) -> DemoResult:
    if harness is not None and harness != "minimal":
        resolve_binary(HarnessSettings(name=harness))  # a missing binary: one line naming the npm command, first
    with _demo_dir(target) as root:
        home = root / ".ratchet"
        base = build_demo_repo(root, home, harness=harness)
        goldens = len(list((root / "goldens").glob("*/*.json")))
        report(f"demo repository: {root}")
        through = f" through {harness}" if harness is not None and harness != "minimal" else ""
        report(f"recorded and blessed {goldens} goldens on the simulator{through}")
        verdicts: list[tuple[DemoEdit, Verdict]] = []
        for edit in EDITS:
            apply_edit(root, edit)
            report(f"\n── {edit.branch}: {edit.message} (expect {edit.expected})")
            verdict = check_edit(
                root, base=base, head=edit.branch, home=home, config=resolve_gate_config("cascade"), harness=harness
            )
            show(verdict)
            verdicts.append((edit, verdict))
        return DemoResult(repo=root, goldens=goldens, verdicts=verdicts)
