"""Mocked tools a team declares in YAML (`<world>/tools/*.yaml`), served like the shipped packs.

Why YAML and not code: a team replaying its own skills must mock its own APIs (a CRM, a deploy
service) without writing Python or forking Ratchet, and a reviewer must be able to read in a diff
what a mock answers. The format is in docs/tools.md (a test loads its example). Everything that
can be checked is checked at load, each problem one InputError with the file and line, so a bad
declaration stops `record`, `check` or `mcp` before the first task rather than inside a replay.

A DeclaredTool is a Tool (same name, effect, description, `spec()`, `check_arguments()`, `run`),
so call_tool records its calls exactly like a shipped pack's: arguments, effect, result or error,
state changes and volatile reads.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ratchet.core.chat import ToolSpec
from ratchet.core.errors import InputError
from ratchet.core.jsonio import read_utf8
from ratchet.core.yamlio import compose_yaml, load_yaml_file
from ratchet.goldens.trace import Effect
from ratchet.world.commands import dotted_get
from ratchet.world.state import change
from ratchet.world.tools import ALL_TOOLS
from ratchet.world.tools.base import Tool, ToolContext, ToolFailure

TOOLS_FOLDER = "tools"
"""Declared tools live in this folder of the world folder (world sections are the *.yaml beside it)."""
TOOLS_SCHEMA_VERSION = 1
_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"  # what MCP, the model APIs and the simulator all accept

__all__ = ["TOOLS_FOLDER", "DeclaredTool", "DeclaredToolDef", "ToolsFile", "load_declared_tools"]


class Answer(BaseModel):
    """`result` or `error`: what a call gets back (templates resolved at call time)."""

    model_config = ConfigDict(extra="forbid")

    result: Any = None
    """Any YAML value, returned to the agent."""
    error: str | None = None
    """A message the agent sees as the call's error, like a real API's 4xx."""

    @model_validator(mode="after")
    def _one_of(self) -> Answer:
        given = {"result", "error"} & self.model_fields_set
        if len(given) == 2:
            raise ValueError("a response has either `result` or `error`, not both")
        if not given:
            raise ValueError("a response needs `result` or `error`")
        return self


class Response(Answer):
    """An answer given when every argument `when` names equals its value (first match wins)."""

    when: dict[str, Any] = Field(min_length=1)


class StateUpdate(BaseModel):
    """One change to the world on a successful call: `append` to a list, or `set` a value."""

    model_config = ConfigDict(extra="forbid")

    append: str | None = Field(default=None, min_length=1)
    set: str | None = Field(default=None, min_length=1)
    value: Any = None

    @model_validator(mode="after")
    def _one_of(self) -> StateUpdate:
        if (self.append is None) == (self.set is None):
            raise ValueError("a state update has exactly one of `append: <path>` or `set: <path>`")
        return self

    @property
    def path(self) -> str:
        return self.append or self.set or ""


class DeclaredToolDef(BaseModel):
    """One tool as a team wrote it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=_NAME_PATTERN)
    description: str = Field(min_length=1)
    effect: Effect
    input_schema: dict[str, Any]
    """JSON Schema (draft 2020-12) of the arguments; `type: object` at the root."""
    idempotent: bool = False
    """A repeated call with the same arguments changes nothing more (read tools always are)."""
    responses: list[Response] = Field(default_factory=list)
    default: Answer | None = None
    state: list[StateUpdate] = Field(default_factory=list)


class ToolsFile(BaseModel):
    """A whole `<world>/tools/*.yaml` file."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    tools: list[DeclaredToolDef] = Field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class DeclaredTool(Tool):
    """A Tool whose arguments are checked against its JSON Schema and whose answers come from YAML."""

    definition: DeclaredToolDef
    source: str
    """The tools file, for errors found only when the tool runs."""
    line: int

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name, description=f"[{self.effect}] {self.description}", parameters=self.definition.input_schema
        )

    def check_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        import jsonschema  # here, not at the top: a world without declared tools never pays its import

        error = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(self.definition.input_schema).iter_errors(arguments)
        )
        if error is not None:
            where = f"at {'.'.join(str(p) for p in error.absolute_path)}: " if error.absolute_path else ""
            raise ToolFailure(f"arguments do not match the input schema: {where}{error.message}")
        return arguments


def load_declared_tools(world_dir: Path) -> tuple[DeclaredTool, ...]:
    """Every tool in world_dir/tools/*.yaml, in file-name then listed order; () when there is no such folder."""
    folder = world_dir / TOOLS_FOLDER
    if not folder.is_dir():
        return ()
    tools: list[DeclaredTool] = []
    first: dict[str, str] = {}
    for path in sorted(folder.glob("*.yaml")):
        for tool in _read_tools_file(path):
            if tool.name in first:
                raise InputError(
                    f"tool {tool.name} is declared twice (first in {first[tool.name]})", path=path, line=tool.line
                )
            first[tool.name] = f"{path}:{tool.line}"
            tools.append(tool)
    return tuple(tools)


def _read_tools_file(path: Path) -> list[DeclaredTool]:
    raw = load_yaml_file(path)  # size checked before reading, like every YAML input
    lines = _Lines(read_utf8(path, error=InputError))
    if raw is None:
        return []
    if not isinstance(raw, dict):
        raise InputError(
            "a tools file must be a mapping with `schema_version: 1` and a `tools` list", path=path, line=1
        )
    if raw.get("schema_version", TOOLS_SCHEMA_VERSION) != TOOLS_SCHEMA_VERSION:
        raise InputError(
            f"unsupported schema_version {raw.get('schema_version')!r} (this Ratchet reads {TOOLS_SCHEMA_VERSION})",
            path=path,
            line=lines.at(("schema_version",)),
        )
    try:
        parsed = ToolsFile.model_validate(raw)
    except ValidationError as exc:
        problem = exc.errors()[0]
        loc = tuple(problem["loc"])
        where = ".".join(str(p) for p in loc) or "value"
        raise InputError(f"{where}: {problem['msg']}", path=path, line=lines.at(loc)) from None
    tools = []
    for index, definition in enumerate(parsed.tools):
        _check_definition(definition, path, lines, ("tools", index))
        tools.append(
            DeclaredTool(
                name=definition.name,
                effect=definition.effect,
                description=definition.description,
                params={},
                run=functools.partial(_answer, definition, str(path), lines.at(("tools", index))),
                definition=definition,
                source=str(path),
                line=lines.at(("tools", index)),
            )
        )
    return tools


def _check_definition(definition: DeclaredToolDef, path: Path, lines: _Lines, at: tuple[str | int, ...]) -> None:
    """What pydantic cannot see: the schema, names, `when` keys, templates, state on read tools."""

    def fail(message: str, *where: str | int) -> InputError:
        return InputError(f"tool {definition.name}: {message}", path=path, line=lines.at((*at, *where)))

    if definition.name in ALL_TOOLS:
        raise InputError(
            f"tool {definition.name}: the name is a shipped tool's; pick another name", path=path, line=lines.at(at)
        )
    schema = definition.input_schema
    import jsonschema  # here, not at the top: a world without declared tools never pays its import

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise fail(
            f"input_schema is not a valid JSON Schema: {exc.message}", "input_schema", *exc.absolute_path
        ) from None
    if schema.get("type") != "object":
        raise fail(
            "input_schema must have `type: object` at its root (MCP and the model APIs require it)",
            "input_schema",
            "type",
        )
    properties = schema.get("properties", {})
    known = sorted(properties) if isinstance(properties, dict) else []
    for index, response in enumerate(definition.responses):
        for key in response.when:
            if key not in known:
                has = ", ".join(known) or "none"
                raise fail(
                    f"`when` names {key!r}, which input_schema has no property for (it has: {has})",
                    "responses",
                    index,
                    "when",
                    key,
                )
    if definition.state and definition.effect == "read":
        raise fail("a read tool cannot change the world; declare its effect (write, send, spend or destroy)", "state")
    answers: list[tuple[Any, tuple[str | int, ...]]] = [
        *(_given(r, ("responses", i)) for i, r in enumerate(definition.responses)),
        *((u.value, ("state", i, "value")) for i, u in enumerate(definition.state)),
    ]
    if definition.default is not None:
        answers.append(_given(definition.default, ("default",)))
    for value, where in answers:
        for name, sub in _argument_names(value, ()):
            if name not in known:
                raise fail(
                    f"`${name}` is not a property of input_schema (use $arguments, $world.<path> or $$ for a literal $)",
                    *where,
                    *sub,
                )


def _given(answer: Answer, at: tuple[str | int, ...]) -> tuple[Any, tuple[str | int, ...]]:
    """The answer's result or error, and where it sits."""
    key = "result" if "result" in answer.model_fields_set else "error"
    return getattr(answer, key), (*at, key)


def _argument_names(value: Any, at: tuple[str | int, ...]) -> list[tuple[str, tuple[str | int, ...]]]:
    """Each `$name` template in value with where it sits (whole strings only; $arguments, $world., $$ aside)."""
    if isinstance(value, str):
        if (
            value.startswith("$")
            and not value.startswith("$$")
            and value != "$arguments"
            and not value.startswith("$world.")
        ):
            return [(value[1:], at)]
        return []
    if isinstance(value, dict):
        return [hit for key, item in value.items() for hit in _argument_names(item, (*at, key))]
    if isinstance(value, list):
        return [hit for index, item in enumerate(value) for hit in _argument_names(item, (*at, index))]
    return []


# --- calling ---------------------------------------------------------------------------------------


def _answer(definition: DeclaredToolDef, source: str, line: int, ctx: ToolContext, args: dict[str, Any]) -> Any:
    """First matching response, else the default; state updates before the result is built."""
    chosen: Answer | None = next((r for r in definition.responses if _matches(r.when, args)), definition.default)
    if chosen is None:
        raise ToolFailure("no declared response matches these arguments")
    if "error" in chosen.model_fields_set:
        raise ToolFailure(str(_resolve(chosen.error, ctx, args)))
    for update in definition.state:
        _apply(update, ctx, args, f"tool {definition.name}", source, line)
    return _resolve(copy.deepcopy(chosen.result), ctx, args)


def _matches(when: dict[str, Any], args: dict[str, Any]) -> bool:
    return all(key in args and args[key] == value for key, value in when.items())


def _resolve(value: Any, ctx: ToolContext, args: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("$"):
        if value.startswith("$$"):
            return value[1:]
        if value == "$arguments":
            return copy.deepcopy(args)
        if value.startswith("$world."):
            key = value.removeprefix("$world.")
            return ctx.read(key, copy.deepcopy(dotted_get(ctx.world.data, key)))
        return copy.deepcopy(args.get(value[1:]))
    if isinstance(value, dict):
        return {key: _resolve(item, ctx, args) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolve(item, ctx, args) for item in value]
    return value


def _apply(update: StateUpdate, ctx: ToolContext, args: dict[str, Any], who: str, source: str, line: int) -> None:
    *parents, last = update.path.split(".")
    node: Any = ctx.world.data
    for depth, part in enumerate(parents):
        node = node.setdefault(part, {}) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            passed = ".".join(parents[: depth + 1])
            raise InputError(
                f"{who}: state path {update.path} passes through {passed}, which is not a mapping: "
                "fix the world or the state update",
                path=source,
                line=line,
            )
    value = _resolve(copy.deepcopy(update.value), ctx, args)
    before = node.get(last)
    if update.append is not None:
        if before is not None and not isinstance(before, list):
            raise InputError(
                f"{who}: cannot append to {update.path}, which is not a list: fix the world or use `set`",
                path=source,
                line=line,
            )
        node[last] = [*(before or []), value]
    else:
        node[last] = value
    ctx.changes.append(change(update.path, before, node[last]))


class _Lines:
    """1-based line of each key and item of a YAML document, by path (for errors that point at it)."""

    def __init__(self, text: str) -> None:
        self._lines: dict[tuple[str | int, ...], int] = {}
        try:
            root = compose_yaml(text)
        except yaml.YAMLError:
            root = None
        if root is not None:
            self._walk(root, ())

    def _walk(self, node: yaml.Node, at: tuple[str | int, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    self._lines[(*at, key.value)] = key.start_mark.line + 1
                    self._walk(value, (*at, key.value))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._lines[(*at, index)] = item.start_mark.line + 1
                self._walk(item, (*at, index))

    def at(self, path: tuple[Any, ...]) -> int:
        """The line of path, else of its longest known prefix, else 1."""
        for end in range(len(path), 0, -1):
            line = self._lines.get(tuple(path[:end]))
            if line is not None:
                return line
        return 1
