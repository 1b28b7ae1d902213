"""Every error Ratchet raises on purpose, in one tree.

    RatchetError                  exit code 2 unless a subclass says otherwise
    ├── InputError                bad user input: a file, a flag, a value (exit 2)
    │   ├── SkillError            malformed SKILL.md
    │   ├── TaskFileError         malformed tasks.yaml
    │   ├── RoutingError          a task fires another skill than tasks.yaml expects
    │   ├── GoldenError           malformed or missing golden JSON
    │   ├── ConfigError           malformed ratchet.yaml or RATCHET_* env
    │   └── GitStateError         not a git repository, unknown revision ...
    ├── BudgetError               the spend cap would be exceeded (exit 2)
    └── InfraError                the machine or a provider failed us (exit 3)
        ├── ModelCallError        a model call failed after the retry layer gave up
        └── ToolError             a mocked tool crashed (a bug in a tool pack)

The CLI turns a RatchetError into one line on stderr and its exit code; anything
else is a bug and keeps its traceback.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError


class RatchetError(Exception):
    """Base class: a problem Ratchet can explain in one line."""

    exit_code = 2

    def __init__(self, message: str, *, path: Path | str | None = None, line: int | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        super().__init__(self.one_line())

    def one_line(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line is not None else f"{self.path}: "
        return f"{where}{self.message}".replace("\n", " ")


class InputError(RatchetError):
    """The user gave us something we cannot use."""


class SkillError(InputError):
    """A SKILL.md that cannot be parsed or is invalid."""


class TaskFileError(InputError):
    """A tasks.yaml that cannot be parsed or is invalid."""


class RoutingError(InputError):
    """A task the trigger matcher routes to another skill (or none) than its tasks.yaml entry expects.

    `table` is the routing table the refusal was decided on, for a caller that prints it.
    """

    table: str = ""


class GoldenError(InputError):
    """A golden trace that cannot be read."""


class ConfigError(InputError):
    """A ratchet.yaml or environment setting that cannot be used."""


class GitStateError(InputError):
    """Git is not in a state we can work with."""


class BudgetError(RatchetError):
    """Going on would spend more than the cap allows."""


class InfraError(RatchetError):
    """Something outside the user's input failed; never a reason to PASS."""

    exit_code = 3


class ModelCallError(InfraError):
    """A model call failed for good (after retries)."""


class ToolError(InfraError):
    """A mocked tool raised unexpectedly."""


def validation_summary(exc: ValidationError) -> str:
    """The first problem pydantic found, as `dotted.location: message` (one line)."""
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or "value"
    return f"{loc}: {first['msg']}"
