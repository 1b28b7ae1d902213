"""One skill folder, base against head: every file read by what it is.

SKILL.md and the folder's other Markdown (references the agent reads) are compared as instructions
(instructions -> align -> classify), scripts by ratchet.diff.scripts, and any other file is named
as added, removed or changed. An edit with no finding at all changes nothing the configured harness
sends the model: it is `cosmetic`, and says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from ratchet.config.harness import HarnessName
from ratchet.core.markup import drop_html_comments, kept_outside_html_comments
from ratchet.diff.align import align
from ratchet.diff.classify import classify
from ratchet.diff.effects import ToolCatalog
from ratchet.diff.instructions import read_instructions
from ratchet.diff.layout import layout_units
from ratchet.diff.models import DiffFinding, DiffKind, SkillDiff, SkillStatus
from ratchet.diff.reading import actions
from ratchet.diff.scripts import Analysers, diff_script, script_language
from ratchet.skills.discovery import SKILL_FILE

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdx"})


def strips_comments(harness: HarnessName) -> bool:
    """Whether the harness drops HTML comments before the model reads the skill: only the minimal runner
    does (ratchet.agent.prompt.normalize_body); Claude Code, Codex and command send SKILL.md as written."""
    return harness == "minimal"


def diff_skill_folder(
    *,
    skill: str,
    folder: str,
    base: Mapping[str, bytes],
    head: Mapping[str, bytes],
    harness: HarnessName,
    catalog: ToolCatalog,
    analysers: Analysers,
    scratch: Path,
) -> SkillDiff:
    """The SkillDiff of one folder; `base` and `head` map its repo paths to their bytes at each revision."""
    skill_md = f"{folder}/{SKILL_FILE}"
    status: SkillStatus = "changed"
    findings: list[DiffFinding] = []
    if skill_md not in base and skill_md in head:
        status = "added"
        findings += _new_skill(skill, skill_md, head[skill_md], harness, catalog)
    elif skill_md in base and skill_md not in head:
        return SkillDiff(
            skill=skill,
            folder=folder,
            harness=harness,
            status="removed",
            findings=[
                DiffFinding(
                    kind=DiffKind.FILE_REMOVED, path=skill_md, side="base", message=f"removes the skill {skill}"
                )
            ],
        )
    for path in sorted(base.keys() | head.keys()):
        old, new = base.get(path), head.get(path)
        if old == new or (status == "added" and path == skill_md):
            continue
        findings += _file(path, old, new, harness=harness, catalog=catalog, analysers=analysers, scratch=scratch)
    changed = [path for path in sorted(base.keys() | head.keys()) if base.get(path) != head.get(path)]
    if status == "changed" and not findings:
        findings = _moved(changed, base, head, harness)
    if status == "changed" and not findings and changed:
        return SkillDiff(
            skill=skill,
            folder=folder,
            harness=harness,
            status="cosmetic",
            cosmetic_reason=_cosmetic_reason(changed, base, head, harness),
        )
    return SkillDiff(skill=skill, folder=folder, harness=harness, status=status, findings=findings)


def _text(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _file(
    path: str,
    old: bytes | None,
    new: bytes | None,
    *,
    harness: HarnessName,
    catalog: ToolCatalog,
    analysers: Analysers,
    scratch: Path,
) -> list[DiffFinding]:
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in MARKDOWN_SUFFIXES:
        old_text, new_text = _text(old), _text(new)
        if (old is None or old_text is not None) and (new is None or new_text is not None):
            strip = strips_comments(harness)
            base = read_instructions(old_text, strips_comments=strip) if old_text is not None else []
            head = read_instructions(new_text, strips_comments=strip) if new_text is not None else []
            return classify(align(base, head), path=path, head=head, catalog=catalog, harness=harness)
    if script_language(path, new if new is not None else old or b"") is not None:
        return diff_script(path, old, new, analysers=analysers, scratch=scratch)
    if old is None:
        return [DiffFinding(kind=DiffKind.FILE_ADDED, path=path, message="adds the file")]
    if new is None:
        return [DiffFinding(kind=DiffKind.FILE_REMOVED, path=path, side="base", message="removes the file")]
    return [DiffFinding(kind=DiffKind.FILE_CHANGED, path=path, message="changes the file (not read as instructions)")]


def _new_skill(skill: str, path: str, data: bytes, harness: HarnessName, catalog: ToolCatalog) -> list[DiffFinding]:
    """A new skill: one line for it, then what a reviewer must see in it (actions, content after the block)."""
    text = _text(data)
    if text is None:
        return [DiffFinding(kind=DiffKind.FILE_ADDED, path=path, message=f"adds the skill {skill} (not UTF-8 text)")]
    instructions = read_instructions(text, strips_comments=strips_comments(harness))
    findings = [
        DiffFinding(
            kind=DiffKind.FILE_ADDED, path=path, message=f"adds the skill {skill} ({len(instructions)} instructions)"
        )
    ]
    for instruction in instructions:
        if instruction.after_close:
            findings.append(
                DiffFinding(
                    kind=DiffKind.AFTER_SKILL_CLOSE,
                    path=path,
                    line=instruction.line,
                    message=f"has {instruction.text[:80]!r} after a line that closes the skill block",
                )
            )
        for action in actions(instruction, catalog):
            findings.append(
                DiffFinding(
                    kind=DiffKind.ACTION_ADDED,
                    path=path,
                    line=instruction.line,
                    where=instruction.where,
                    action=action.name,
                    effect=action.effect,
                    target=action.target,
                    new=instruction.text,
                    message=f"adds an instruction to {action.name}{' ' + action.target if action.target else ''} "
                    f"({action.effect})",
                )
            )
    return findings


def _moved(
    changed: list[str], base: Mapping[str, bytes], head: Mapping[str, bytes], harness: HarnessName
) -> list[DiffFinding]:
    """A finding for each Markdown file whose instructions, all paired, no longer sit where they did:
    the classifier found nothing, but only ratchet.diff.layout may call a file's edit cosmetic."""
    found: list[DiffFinding] = []
    for path in changed:
        if PurePosixPath(path).suffix.lower() not in MARKDOWN_SUFFIXES:
            continue
        old, new = _text(base.get(path)) or "", _text(head.get(path)) or ""
        if strips_comments(harness):
            old, new = drop_html_comments(old), drop_html_comments(new)
        if layout_units(old) != layout_units(new):
            found.append(
                DiffFinding(
                    kind=DiffKind.ORDER_CHANGED,
                    path=path,
                    message=(
                        "moves instructions (their order, section or nesting, or the layout of code), which can change "
                        "what the model does: not proved cosmetic"
                    ),
                )
            )
    return found


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def _cosmetic_reason(
    changed: list[str], base: Mapping[str, bytes], head: Mapping[str, bytes], harness: HarnessName
) -> str:
    """What differs in files whose instructions are identical, in a reader's words."""
    reasons: list[str] = []
    strip = strips_comments(harness)
    for path in changed:
        if PurePosixPath(path).suffix.lower() not in MARKDOWN_SUFFIXES:
            reasons.append(f"comments, blank lines or trailing whitespace in {PurePosixPath(path).name}")
            continue
        old, new = _text(base.get(path)) or "", _text(head.get(path)) or ""
        sent_old, sent_new = (drop_html_comments(old), drop_html_comments(new)) if strip else (old, new)
        if strip and _comments(old) != _comments(new):
            reasons.append(f"HTML comments, which the {harness} runner does not send")
        if sent_old != sent_new:
            reasons.append(
                "whitespace and line breaks"
                if _collapsed(sent_old) == _collapsed(sent_new)
                else "Markdown layout (line breaks inside a paragraph or item, blank lines, table padding)"
            )
    return "; ".join(dict.fromkeys(reasons)) or "no change the model reads"


def _comments(text: str) -> list[str]:
    """The HTML comments drop_html_comments removes from `text`, in order."""
    spans = kept_outside_html_comments(text)
    return [text[spans[i][1] : spans[i + 1][0]] for i in range(len(spans) - 1)]
