"""World state: YAML files merged into one in-memory mapping, plus an in-memory workspace.

Each world file is a YAML mapping whose top-level keys (`people`, `github`, `fx` ...) are
deep-merged into one tree. A file may also carry a top-level `volatile:` list of dotted key
patterns (fnmatch style, e.g. `fx.rates.*.*`): facts under those keys can move between the
day a golden was recorded and the day it is replayed, so every read of one is recorded as a
VolatileRead. Overlays are YAML files deep-merged on top (how world drift is staged).
Dates in YAML are kept as ISO strings so the world digests the same way everywhere.

Every section is a mapping or a list, and the sections the shipped tool packs read have the
shape SECTION_SHAPES gives them: a world file that does not fit is an InputError naming it at
load, not a crash inside a tool halfway through a run.
"""

from __future__ import annotations

import copy
import datetime as dt
import fnmatch
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ratchet.errors import InputError
from ratchet.ids import IdKind, check_id, inside
from ratchet.jsonio import digest as json_digest
from ratchet.trace import StateChange, VolatileRead
from ratchet.yamlio import load_yaml_file

if TYPE_CHECKING:
    from ratchet.world.tools.declared import DeclaredTool

VOLATILE_KEY = "volatile"

SECTION_SHAPES: dict[str, type | dict[str, type]] = {  # a section not listed: a mapping or a list
    "people": list,
    "email": {"outbox": list},
    "github": {"repos": dict},
    "releases": {"repos": dict},
    "fx": {"rates": dict},
    "calendar": {"working_hours": dict, "calendars": dict, "invites": list},
    "expenses": {"policy": dict, "employees": dict, "reports": list},
    "invoices": {"vendors": list, "recorded": list, "payments": list},
    "news": {"stories": dict, "metrics": dict, "digest": list},
    "packages": {"repos": list, "registry": dict, "advisories": dict},
    "tracker": {"projects": dict, "tasks": list},
}
"""What the packs in ratchet/world/tools read: a section's type, or the types of its top-level keys."""

_TYPE_WORDS: dict[type, str] = {dict: "a mapping", list: "a list"}


class World:
    """In-memory world for one run: mocked tools read and change it; nothing real happens."""

    def __init__(
        self,
        data: dict[str, Any],
        *,
        volatile: Sequence[str] = (),
        files: dict[str, str] | None = None,
        frozen_time: str,
        sources: dict[str, tuple[str, ...]] | None = None,
        declared_tools: Sequence[DeclaredTool] = (),
    ) -> None:
        self.data = data
        self.declared_tools: tuple[DeclaredTool, ...] = tuple(declared_tools)
        """The team's own mocked tools (<world>/tools/*.yaml, docs/tools.md), offered after the shipped packs."""
        self.sources: dict[str, tuple[str, ...]] = dict(sources or {})
        """Section -> the world files it was merged from (for errors that name them)."""
        self.volatile_patterns: tuple[str, ...] = tuple(sorted(set(volatile)))
        self.files: dict[str, str] = dict(files or {})
        self.frozen_time = frozen_time
        self.volatile_reads: list[VolatileRead] = []

    def digest(self) -> str:
        """sha256 over the canonical world content and the workspace files."""
        content: dict[str, Any] = {"data": self.data, "volatile": list(self.volatile_patterns), "files": self.files}
        if self.declared_tools:  # only when present: a world without them digests as it always did
            content["tools"] = [t.definition.model_dump(mode="json") for t in self.declared_tools]
        return json_digest(content)

    def copy(self) -> World:
        """A fresh, independent world with the same content (no recorded reads)."""
        return World(
            copy.deepcopy(self.data), volatile=self.volatile_patterns, files=self.files, frozen_time=self.frozen_time,
            sources=self.sources, declared_tools=self.declared_tools,
        )

    def is_volatile(self, key: str) -> bool:
        return any(fnmatch.fnmatchcase(key, pattern) for pattern in self.volatile_patterns)

    def read(self, key: str, value: Any, tool_call_index: int) -> Any:
        """Note that a tool read `key`; volatile keys are recorded with the value seen."""
        if self.is_volatile(key):
            self.volatile_reads.append(VolatileRead(key=key, value=copy.deepcopy(value), tool_call_index=tool_call_index))
        return value

    def section(self, name: str) -> dict[str, Any]:
        value = self.data.get(name)
        return value if isinstance(value, dict) else {}


def change(path: str, before: Any, after: Any) -> StateChange:
    return StateChange(path=path, before=copy.deepcopy(before), after=copy.deepcopy(after))


def _plain(value: Any) -> Any:
    """YAML values made JSON-plain: dates to ISO strings, mapping keys to strings."""
    if isinstance(value, dict):
        return {str(_plain(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dt.datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """Mappings merge key by key; any other value in `top` replaces the one in `base`."""
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _read_world_file(path: Path) -> tuple[dict[str, Any], list[str]]:
    raw = load_yaml_file(path, error=InputError)
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        raise InputError("a world file must be a YAML mapping", path=path, line=1)
    raw = _plain(raw)
    volatile = raw.pop(VOLATILE_KEY, []) or []
    if not isinstance(volatile, list) or not all(isinstance(p, str) for p in volatile):
        raise InputError("'volatile' must be a list of dotted key patterns", path=path)
    for name, section in raw.items():
        _check_section(name, section, path)
    return raw, volatile


def _check_section(name: str, section: Any, path: Path) -> None:
    """InputError naming the file when a section does not have the shape the tool packs read."""
    shape = SECTION_SHAPES.get(name)
    if shape is None:
        if not isinstance(section, (dict, list)):
            raise InputError(f"world section {name!r} must be a mapping or a list, not {_kind(section)}", path=path)
        return
    expected = dict if isinstance(shape, dict) else shape
    if not isinstance(section, expected):
        raise InputError(f"world section {name!r} must be {_TYPE_WORDS[expected]}, not {_kind(section)}", path=path)
    if isinstance(shape, dict) and isinstance(section, dict):
        for key, kind in shape.items():
            value = section.get(key)
            if value is not None and not isinstance(value, kind):
                raise InputError(f"world key {name}.{key} must be {_TYPE_WORDS[kind]}, not {_kind(value)}", path=path)


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    return {**_TYPE_WORDS, str: "a string", bool: "a boolean"}.get(type(value), type(value).__name__)


def _read_workspace(folder: Path) -> dict[str, str]:
    """Every file under the workspace folder, by relative posix path.

    A symlink is followed only when it resolves inside the workspace: a task's files come from
    its folder, never from elsewhere on the machine (the error names the link to remove).
    """
    root = folder.resolve()
    files: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            try:
                target = path.resolve()
            except (OSError, RuntimeError) as exc:
                raise InputError(f"cannot resolve workspace symlink: {exc}", path=path) from None
            if not target.is_relative_to(root):
                raise InputError(
                    f"workspace file is a symlink to {target}, outside the workspace: replace it with the file itself",
                    path=path,
                )
        if path.is_file():
            try:
                files[path.relative_to(folder).as_posix()] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(f"cannot read workspace file: {exc}", path=path) from None
    return files


def load_world(
    world_dir: Path,
    *,
    workspaces_dir: Path | None,
    workspace: str | None,
    frozen_time: str,
    overlays: Sequence[Path] = (),
) -> World:
    """Merge world_dir/*.yaml, then each overlay, and load the task's workspace (if any).

    The world is optional: a team whose skills call no mocked tool has nothing to put in it, so
    a missing folder (or one with no YAML file, only a README) is an empty world, and the agent
    is offered only the tools that need no world data (tools/ `needs`). A path that is a file is
    a mistake, not an empty world.
    """
    if world_dir.exists() and not world_dir.is_dir():
        raise InputError(
            "this is a file, but the world is a folder of YAML files: "
            "point paths.world in ratchet.yaml at a folder, or remove the file",
            path=world_dir,
        )
    data: dict[str, Any] = {}
    volatile: list[str] = []
    sources: dict[str, tuple[str, ...]] = {}
    world_files = sorted(world_dir.glob("*.yaml")) if world_dir.is_dir() else []
    for path in [*world_files, *overlays]:
        content, patterns = _read_world_file(path)
        data = deep_merge(data, content)
        volatile.extend(patterns)
        for name in content:
            sources[name] = (*sources.get(name, ()), str(path))
    files: dict[str, str] = {}
    if workspace is not None:
        if workspaces_dir is None:
            raise InputError(f"task needs workspace {workspace!r} but no workspaces folder is configured")
        # tasks.yaml already refused such names; a Task built in code or a symlinked folder must not slip by.
        check_id(IdKind.WORKSPACE, workspace, path=workspaces_dir)
        folder = inside(workspaces_dir, workspace)
        if not folder.is_dir():
            raise InputError(f"workspace {workspace!r} not found", path=folder)
        files = _read_workspace(folder)
    # Imported here, not at the top: the tools package imports this module.
    from ratchet.world.tools.declared import load_declared_tools

    declared = load_declared_tools(world_dir)
    return World(data, volatile=volatile, files=files, frozen_time=frozen_time, sources=sources, declared_tools=declared)
