"""What a mocked tool is: a name, a declared effect, typed parameters and a function over the World."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ratchet.core.chat import ToolSpec
from ratchet.goldens.trace import Effect, StateChange
from ratchet.world.state import World

_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "array": list,
    "object": dict,
    "boolean": bool,
}


class ToolFailure(Exception):
    """An error the agent should see (not found, not allowed ...), like a real API's 4xx."""


@dataclass
class ToolContext:
    """One call's view of the world: where to record reads and state changes."""

    world: World
    index: int
    changes: list[StateChange] = field(default_factory=list)

    def read(self, key: str, value: Any) -> Any:
        return self.world.read(key, value, self.index)


@dataclass(frozen=True)
class Param:
    type: str
    description: str
    required: bool = True
    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class Tool:
    name: str
    effect: Effect
    description: str
    params: dict[str, Param]
    run: Callable[[ToolContext, dict[str, Any]], Any]
    needs: str | None = None  # world section this tool works on; offered only when present

    def spec(self) -> ToolSpec:
        properties: dict[str, Any] = {}
        for name, param in self.params.items():
            prop: dict[str, Any] = {"type": param.type, "description": param.description}
            if param.enum:
                prop["enum"] = list(param.enum)
            properties[name] = prop
        required = [name for name, param in self.params.items() if param.required]
        return ToolSpec(
            name=self.name,
            description=f"[{self.effect}] {self.description}",
            parameters={"type": "object", "properties": properties, "required": required},
        )

    def check_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validated arguments (integer-looking strings become integers); ToolFailure otherwise."""
        unknown = sorted(set(arguments) - set(self.params))
        if unknown:
            raise ToolFailure(f"unknown argument(s) {', '.join(unknown)}; expected {', '.join(self.params)}")
        clean: dict[str, Any] = {}
        for name, param in self.params.items():
            if name not in arguments or arguments[name] is None:
                if param.required:
                    raise ToolFailure(f"missing required argument {name!r}")
                continue
            value = arguments[name]
            if param.type == "integer" and isinstance(value, str) and value.strip().lstrip("#").isdigit():
                value = int(value.strip().lstrip("#"))
            expected = _JSON_TYPES[param.type]
            if not isinstance(value, expected) or (param.type in ("integer", "number") and isinstance(value, bool)):
                raise ToolFailure(f"argument {name!r} must be a {param.type}, got {type(value).__name__}")
            if param.enum and value not in param.enum:
                raise ToolFailure(f"argument {name!r} must be one of {', '.join(param.enum)}")
            clean[name] = value
        return clean
