"""World state: YAML files merged into one in-memory mapping, plus an in-memory workspace.

Each world file is a YAML mapping whose top-level keys (`people`, `github`, `fx` ...) are
deep-merged into one tree. A file may also carry a top-level `volatile:` list of dotted key
patterns (fnmatch style, e.g. `fx.rates.*.*`): facts under those keys can move between the
day a golden was recorded and the day it is replayed, so every read of one is recorded as a
VolatileRead. A file may also carry a top-level `faults:` list of seeded tool faults for whole
packs (docs/faults.md), kept on the World in file order. Overlays are YAML files deep-merged on
top (how world drift is staged).
Dates in YAML are kept as ISO strings so the world digests the same way everywhere.

Every section is a mapping or a list, and the sections the shipped tool packs read have the
shape SECTION_SHAPES gives them: a world file that does not fit is an InputError naming it at
load, not a crash inside a tool halfway through a run.
"""

from __future__ import annotations

import copy
import datetime as dt
import fnmatch
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from ratchet.core.errors import InputError
from ratchet.core.ids import IdKind, check_id, inside
from ratchet.core.jsonio import digest as json_digest
from ratchet.core.kept import Kept
from ratchet.core.yamlio import load_yaml_text, read_yaml_file
from ratchet.goldens.faults import FaultSpec
from ratchet.goldens.trace import StateChange, VolatileRead
from ratchet.world.commands import COMMANDS_FILE, CommandMock, load_commands
from ratchet.world.trees import freeze, merge_files, thaw

if TYPE_CHECKING:
    from ratchet.world.faults import FaultInjector
    from ratchet.world.tools.declared import DeclaredTool

VOLATILE_KEY = "volatile"
FAULTS_KEY = "faults"
_FAULT_LIST: TypeAdapter[list[FaultSpec]] = TypeAdapter(list[FaultSpec])
DECLARED_TOOLS_FOLDER = "tools"
"""The world folder's folder of declared tools (ratchet.world.tools.declared.TOOLS_FOLDER)."""

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
        faults: Sequence[FaultSpec] = (),
        commands: Sequence[CommandMock] = (),
    ) -> None:
        self.data = data
        self.commands: tuple[CommandMock, ...] = tuple(commands)  # <world>/commands.yaml, for harness replays
        self.faults: tuple[FaultSpec, ...] = tuple(faults)
        """The world files' declared faults, in file order; they fire only once a run arms them (world/faults.py)."""
        self.injector: FaultInjector | None = None
        """This run's armed faults (ratchet.world.faults.arm); None: no call is faulted."""
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
        if self.faults:  # likewise
            content["faults"] = [spec.model_dump(mode="json") for spec in self.faults]
        if self.commands:  # likewise
            content["commands"] = [mock.model_dump(mode="json") for mock in self.commands]
        return json_digest(content)

    def copy(self) -> World:
        """A fresh, independent world with the same content (no recorded reads)."""
        return World(
            copy.deepcopy(self.data),
            volatile=self.volatile_patterns,
            files=self.files,
            frozen_time=self.frozen_time,
            sources=self.sources,
            declared_tools=self.declared_tools,
            faults=self.faults,
            commands=self.commands,
        )

    def is_volatile(self, key: str) -> bool:
        return any(fnmatch.fnmatchcase(key, pattern) for pattern in self.volatile_patterns)

    def read(self, key: str, value: Any, tool_call_index: int) -> Any:
        """Note that a tool read `key`; volatile keys are recorded with the value seen."""
        if self.is_volatile(key):
            self.volatile_reads.append(
                VolatileRead(key=key, value=copy.deepcopy(value), tool_call_index=tool_call_index)
            )
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


_PARSED: Kept[str, tuple[dict[str, Any], tuple[str, ...], tuple[FaultSpec, ...]]] = Kept(64)
_MERGED: Kept[tuple[str, ...], tuple[dict[str, Any], bytes]] = Kept(16)
"""World files parsed, and merged worlds with their freeze() bytes, kept by the files' texts (ratchet.core.kept)."""


def _parsed_world_file(source: str, text: str) -> tuple[dict[str, Any], tuple[str, ...], tuple[FaultSpec, ...]]:
    """A world file's text parsed and checked (`source` names it in an error), kept by its exact text.

    Other readers of the same world in one process (the gate's offered tools, the bench's
    configurations, a mutant's checkout, a harness replay's digest) then skip the parse: the text is read
    and compared every time, so a changed file is parsed again. It is never handed out to change:
    WorldFiles merges it with deep_merge, which builds new mappings and copies every other value.
    """
    return _PARSED.get(text, lambda: _parse_world_file(source, text))


def _parse_world_file(source: str, text: str) -> tuple[dict[str, Any], tuple[str, ...], tuple[FaultSpec, ...]]:
    path = Path(source)
    raw = load_yaml_text(text, source=source, error=InputError)
    if raw is None:
        return {}, (), ()
    if not isinstance(raw, dict):
        raise InputError("a world file must be a YAML mapping", path=path, line=1)
    raw = _plain(raw)
    volatile = raw.pop(VOLATILE_KEY, []) or []
    if not isinstance(volatile, list) or not all(isinstance(p, str) for p in volatile):
        raise InputError("'volatile' must be a list of dotted key patterns", path=path)
    # only an empty `faults:` (null) means none: 0, false, '' or {} is a mistake to name, not an empty list
    declared = raw.pop(FAULTS_KEY, None)
    faults = _faults([] if declared is None else declared, path)
    for name, section in raw.items():
        _check_section(name, section, path)
    return raw, tuple(volatile), faults


def _faults(raw: Any, path: Path) -> tuple[FaultSpec, ...]:
    """A world file's `faults:` list as FaultSpecs; InputError naming the file and the first bad field."""
    try:
        return tuple(_FAULT_LIST.validate_python(raw))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in (FAULTS_KEY, *first["loc"]))
        raise InputError(f"{where}: {first['msg']}", path=path) from None


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
    a mistake, not an empty world. Loading the same world for many replays: WorldFiles.
    """
    return WorldFiles(world_dir, overlays=overlays).world(
        workspaces_dir=workspaces_dir, workspace=workspace, frozen_time=frozen_time
    )


class WorldFiles:
    """A world folder and its overlays read once, handing out a fresh World per replay.

    Parsing is most of what a world costs (it was 59% of a judged check, parsed again for
    every replay), and every replay of a check reads the same files: a check parses them once,
    on the first world() asked for, and each replay gets its own deep copy to change. Workspaces
    and the team's declared tools are read on first use and kept too. The files are not read
    again: a WorldFiles is for the files of one check (an exported tree), not for a folder that
    changes under it.
    """

    def __init__(self, world_dir: Path, *, overlays: Sequence[Path] = ()) -> None:
        self.world_dir = world_dir
        self.overlays = tuple(overlays)
        self._merged: tuple[dict[str, Any], tuple[str, ...], dict[str, tuple[str, ...]]] | None = None
        self._faults: tuple[FaultSpec, ...] = ()
        self._workspaces: dict[tuple[Path | None, str], dict[str, str]] = {}
        self._declared: tuple[DeclaredTool, ...] | None = None
        self._commands: tuple[CommandMock, ...] | None = None
        self._frozen: bytes | None = None  # the merged data marshalled once: each replay's copy is one C-speed load
        self._lock = threading.RLock()  # pairs replay side by side (ratchet.core.pool): still one read of each file

    def world(self, *, workspaces_dir: Path | None, workspace: str | None, frozen_time: str) -> World:
        """A World of its own (data deep-copied) with the task's workspace and the frozen clock.

        The first call reads the files, so a bad one is refused where load_world refused it (and
        after whatever the caller checks first, such as a harness binary).
        """
        with self._lock:
            data, volatile, sources = self._merge()
            files = self._workspace(workspaces_dir, workspace) if workspace is not None else {}
            declared = self._declared_tools()
            if self._commands is None:
                self._commands = load_commands(self.world_dir)
            if self._frozen is None:
                self._frozen = freeze(data)
        return World(
            thaw(self._frozen, data),
            volatile=volatile,
            files=files,
            frozen_time=frozen_time,
            sources=sources,
            declared_tools=declared,
            faults=self._faults,
            commands=self._commands,
        )

    def _merge(self) -> tuple[dict[str, Any], tuple[str, ...], dict[str, tuple[str, ...]]]:
        if self._merged is not None:
            return self._merged
        world_dir = self.world_dir
        if world_dir.exists() and not world_dir.is_dir():
            raise InputError(
                "this is a file, but the world is a folder of YAML files: "
                "point paths.world in ratchet.yaml at a folder, or remove the file",
                path=world_dir,
            )
        volatile: list[str] = []
        faults: list[FaultSpec] = []
        sources: dict[str, tuple[str, ...]] = {}
        world_files = sorted(set(world_dir.glob("*.yaml")) - {world_dir / COMMANDS_FILE}) if world_dir.is_dir() else []
        paths = [*world_files, *self.overlays]
        texts = tuple(read_yaml_file(path, error=InputError) for path in paths)
        parsed = [_parsed_world_file(str(path), text) for path, text in zip(paths, texts, strict=True)]
        for path, (content, patterns, declared) in zip(paths, parsed, strict=True):
            volatile.extend(patterns)
            faults.extend(declared)
            for name in content:
                sources[name] = (*sources.get(name, ()), str(path))
        data, self._frozen = _MERGED.get(texts, lambda: merge_files([content for content, _, _ in parsed]))
        self._merged = data, tuple(volatile), sources
        self._faults = tuple(faults)
        return self._merged

    def _workspace(self, workspaces_dir: Path | None, workspace: str) -> dict[str, str]:
        key = (workspaces_dir, workspace)
        if key not in self._workspaces:
            if workspaces_dir is None:
                raise InputError(f"task needs workspace {workspace!r} but no workspaces folder is configured")
            # tasks.yaml already refused such names; a Task built in code or a symlinked folder must not slip by.
            check_id(IdKind.WORKSPACE, workspace, path=workspaces_dir)
            folder = inside(workspaces_dir, workspace)
            if not folder.is_dir():
                raise InputError(f"workspace {workspace!r} not found", path=folder)
            self._workspaces[key] = _read_workspace(folder)
        return self._workspaces[key]  # World copies the mapping; its values are strings

    def _declared_tools(self) -> tuple[DeclaredTool, ...]:
        if self._declared is None:
            if not (self.world_dir / DECLARED_TOOLS_FOLDER).is_dir():
                self._declared = ()  # load_declared_tools' answer, without importing its models (most worlds)
            else:
                # Imported here, not at the top: the tools package imports this module.
                from ratchet.world.tools.declared import load_declared_tools

                self._declared = tuple(load_declared_tools(self.world_dir))
        return self._declared
