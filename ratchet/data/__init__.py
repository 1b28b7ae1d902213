"""Files that ship inside the package, read with importlib.resources.

    configs/<name>.yaml            the gate configs (a project's own configs/<name>.yaml overrides one)
    prompts/judge.md               the judge prompt (a GateConfig whose judge_prompt is None)
    prompts/inject_regression.md   the injector prompt (a project's bench/prompts/ copy wins)
    demo/                          the project `ratchet demo` copies: two skills, tasks, world, workspaces
    docs/                          the documentation messages name as docs/<page>.md (`ratchet docs`): a
                                   link to the repository's docs/ folder, whose files a wheel holds

Why: a wheel installed anywhere must gate exactly as a clone does, so nothing here is found
through the source tree.
"""

from __future__ import annotations

import atexit
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from functools import cache
from importlib.resources import as_file, files
from importlib.resources.abc import Traversable
from pathlib import Path

CONFIG_SUFFIX = ".yaml"

# Paths handed out by packaged_file stay valid for the whole process (each file is entered once);
# for an installed (unzipped) package as_file hands back the file itself and extracts nothing.
_extracted = ExitStack()
atexit.register(_extracted.close)


def packaged(*parts: str) -> Traversable:
    """A file or folder under ratchet/data/."""
    resource = files(__name__)
    for part in parts:
        resource = resource.joinpath(part)
    return resource


@cache
def packaged_file(*parts: str) -> Path:
    """A real filesystem path for a packaged file (callers that open it with pathlib or log it)."""
    return _extracted.enter_context(as_file(packaged(*parts)))


def packaged_config_names() -> list[str]:
    """The names of the packaged gate configs, sorted."""
    return sorted(
        entry.name.removesuffix(CONFIG_SUFFIX)
        for entry in packaged("configs").iterdir()
        if entry.is_file() and entry.name.endswith(CONFIG_SUFFIX)
    )


def packaged_config(name: str) -> Path:
    """The packaged gate config `name` (configs/<name>.yaml); check packaged_config_names() first."""
    return packaged_file("configs", f"{name}{CONFIG_SUFFIX}")


def packaged_prompt(name: str) -> Path:
    """A packaged prompt file, e.g. judge.md or inject_regression.md."""
    return packaged_file("prompts", name)


@contextmanager
def demo_files() -> Iterator[Path]:
    """The packaged demo project as a real folder, for as long as the context is open (copytree from it)."""
    with as_file(packaged("demo")) as folder:
        yield folder
