"""What is wrong with a skill: a Problem (an error or a warning, at its line), and the report of one SKILL.md."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ratchet.core.errors import SkillError

Severity = Literal["error", "warning"]


class Problem(BaseModel):
    """One thing wrong with a skill, located as precisely as we can."""

    model_config = ConfigDict(frozen=True)

    path: str = Field(description="The SKILL.md (or the folder, for folder-level problems).")
    line: int | None = Field(default=None, description="1-based; the frontmatter key's line where there is one.")
    severity: Severity
    message: str
    stops_loading: bool = Field(
        default=True,
        description="False for an error the runner guards against itself (a `</skill>` in the "
        "body): validate reports it, the gate still loads the skill and replays what it makes the agent do.",
    )

    def render(self) -> str:
        """`path:line: severity: message`, the form editors and CI annotators parse."""
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.severity}: {self.message}"

    def sort_key(self) -> tuple[str, int, str, str]:
        return (self.path, self.line or 0, self.severity, self.message)


class Report:
    """Problems found in one SKILL.md."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []

    def error(self, message: str, line: int | None) -> None:
        self.problems.append(Problem(path=self.source, line=line, severity="error", message=message))

    def runner_error(self, message: str, line: int | None) -> None:
        """An error `validate` reports that still lets the skill load: the runner guards against it
        itself, and the gate must replay what such a skill makes the agent do, not refuse the edit."""
        self.problems.append(
            Problem(path=self.source, line=line, severity="error", message=message, stops_loading=False)
        )

    def warning(self, message: str, line: int | None) -> None:
        self.problems.append(Problem(path=self.source, line=line, severity="warning", message=message))

    @property
    def has_error(self) -> bool:
        return any(p.severity == "error" and p.stops_loading for p in self.problems)


def sorted_problems(problems: list[Problem]) -> list[Problem]:
    """Problems in the order validate prints them: by path, line, severity, message."""
    return sorted(problems, key=Problem.sort_key)


def first_error(problems: list[Problem]) -> SkillError:
    """The first error that stops loading, in the order validate prints them, as the SkillError load_* raise."""
    error = next(p for p in sorted_problems(problems) if p.severity == "error" and p.stops_loading)
    return SkillError(error.message, path=error.path, line=error.line)
