"""Field checks shared by the proxy's three wire APIs (Chat Completions, Responses, Messages).

A harness's body is untrusted JSON. Each check names the field it refused (`messages[0].role:
...`) so a client's mistake is its 400 with one line, never the proxy's 500.
"""

from __future__ import annotations

from typing import Any

MAX_TOKENS_LIMIT = 1_000_000
MAX_NESTING = 64
SEED_RANGE = (-(2**63), 2**63 - 1)


class BadBody(ValueError):
    """A body the proxy cannot take; the message names the field (`messages[0].role: ...`)."""


def kind(value: Any) -> str:
    """The JSON type of a parsed value, as a client would name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


def obj(value: Any, where: str) -> dict[str, Any]:
    """`value` when it is a JSON object, else BadBody naming `where`."""
    if not isinstance(value, dict):
        raise BadBody(f"{where}: must be an object, not {kind(value)}")
    return value


def array(value: Any, where: str) -> list[Any]:
    """`value` when it is a JSON array (null reads as empty), else BadBody."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadBody(f"{where}: must be an array, not {kind(value)}")
    return value


def text(value: Any, where: str) -> str | None:
    """`value` when it is a string or null, else BadBody."""
    if value is not None and not isinstance(value, str):
        raise BadBody(f"{where}: must be a string, not {kind(value)}")
    return value


def flag(value: Any, where: str) -> bool:
    """A boolean field; null reads as false."""
    if value is not None and not isinstance(value, bool):
        raise BadBody(f"{where}: must be a boolean, not {kind(value)}")
    return bool(value)


def integer(value: Any, where: str, low: int, high: int) -> int:
    """An integer in [low, high]; a float or a boolean is refused, not truncated."""
    if isinstance(value, bool) or not isinstance(value, int):
        got = repr(value) if isinstance(value, float) else kind(value)
        raise BadBody(f"{where}: must be an integer, not {got}")
    if not low <= value <= high:
        shown = value if abs(value) < 10**20 else f"{str(value)[:12]}..."
        raise BadBody(f"{where}: must be between {low} and {high}, not {shown}")
    return value


def number(value: Any, where: str, low: float, high: float) -> float:
    """A number in [low, high]; NaN and the infinities fail the range check."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadBody(f"{where}: must be a number, not {kind(value)}")
    if not low <= value <= high:  # NaN fails this too
        raise BadBody(f"{where}: must be between {low:g} and {high:g}, not {value}")
    return float(value)


def check_nesting(body: Any) -> None:
    """Iteratively, so a hostile body cannot exhaust the stack of the checker itself."""
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            raise BadBody(f"the body is nested deeper than {MAX_NESTING} levels")
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))


def string_list(value: Any, where: str) -> list[str]:
    """A stop-sequence style field: one string or an array of strings."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [text(item, f"{where}[{i}]") or "" for i, item in enumerate(array(value, where))]


def function_tool(tool: dict[str, Any], where: str, schema_key: str) -> dict[str, Any]:
    """A client's function tool as the internal spec (name, description, parameters); its JSON schema
    sits under `schema_key` (Anthropic: input_schema, OpenAI: parameters)."""
    name = text(tool.get("name"), f"{where}.name")
    if not name:
        raise BadBody(f"{where}.name: a tool needs a name")
    return {
        "name": name,
        "description": text(tool.get("description"), f"{where}.description") or "",
        "parameters": obj(tool.get(schema_key) or {"type": "object"}, f"{where}.{schema_key}"),
    }
