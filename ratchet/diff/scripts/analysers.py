"""The field's own analysers, run on a copy of the new script: Bandit for Python, ShellCheck for shell.

Only what they find on lines the edit added is reported: a script's old problems are not this edit's.
An analyser that is not installed, or fails, is a finding of its own (`analyser_unavailable`).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ratchet.diff.models import DiffFinding, DiffKind

ANALYSER_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Analysers:
    """How to run each analyser; None when it is not installed."""

    bandit: tuple[str, ...] | None
    shellcheck: str | None

    @classmethod
    def installed(cls) -> Analysers:
        """Bandit as `python -m bandit` in this interpreter, ShellCheck from PATH."""
        bandit = (sys.executable, "-m", "bandit") if importlib.util.find_spec("bandit") is not None else None
        return cls(bandit=bandit, shellcheck=shutil.which("shellcheck"))


def _unavailable(path: str, name: str, why: str) -> DiffFinding:
    return DiffFinding(
        kind=DiffKind.ANALYSER_UNAVAILABLE,
        path=path,
        analyser=name.lower(),
        message=f"{name} {why}: the added lines were not analysed",
    )


def _copy(scratch: Path, path: str, data: bytes) -> Path:
    folder = scratch / "analysed"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / PurePosixPath(path).name
    target.write_bytes(data)
    return target


def _report(command: list[str], key: str) -> list[dict[str, Any]] | str:
    """The `key` list of an analyser's JSON report, or why there is none (it could not run or answer)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=ANALYSER_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    try:
        found: list[dict[str, Any]] = json.loads(done.stdout)[key]
    except (ValueError, KeyError, TypeError) as exc:
        return str(exc)
    return found


def bandit_findings(path: str, data: bytes, added: set[int], analysers: Analysers, scratch: Path) -> list[DiffFinding]:
    """What Bandit finds on the added lines of a Python script."""
    if analysers.bandit is None:
        return [_unavailable(path, "Bandit", "is not installed (pip install bandit)")]
    results = _report([*analysers.bandit, "-f", "json", "-q", str(_copy(scratch, path, data))], "results")
    if isinstance(results, str):
        return [_unavailable(path, "Bandit", f"failed ({results})")]
    findings = []
    for issue in results:
        lines = set(issue.get("line_range") or [issue["line_number"]])
        if lines & added:
            line = min(lines & added)
            rule = issue["test_id"]
            findings.append(
                DiffFinding(
                    kind=DiffKind.SCRIPT_FINDING,
                    path=path,
                    line=line,
                    analyser=f"bandit {rule}",
                    new=issue.get("code"),
                    message=f"Bandit {rule} ({issue['issue_severity'].lower()} severity, "
                    f"{issue['issue_confidence'].lower()} confidence) on an added line: {issue['issue_text']}",
                )
            )
    return findings


def shellcheck_findings(
    path: str, data: bytes, added: set[int], analysers: Analysers, scratch: Path
) -> list[DiffFinding]:
    """ShellCheck's errors and warnings on the added lines of a shell script."""
    if analysers.shellcheck is None:
        return [_unavailable(path, "ShellCheck", "is not installed (scripts/install_shellcheck.sh)")]
    command = [analysers.shellcheck, "-f", "json1"]
    if not data.startswith(b"#!"):
        command += ["-s", "bash"]
    comments = _report([*command, str(_copy(scratch, path, data))], "comments")
    if isinstance(comments, str):
        return [_unavailable(path, "ShellCheck", f"failed ({comments})")]
    return [
        DiffFinding(
            kind=DiffKind.SCRIPT_FINDING,
            path=path,
            line=comment["line"],
            analyser=f"shellcheck SC{comment['code']}",
            message=f"ShellCheck SC{comment['code']} ({comment['level']}) on an added line: {comment['message']}",
        )
        for comment in comments
        if comment["line"] in added and comment["level"] in ("error", "warning")
    ]
