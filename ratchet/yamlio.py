"""YAML reading with one-line errors that name the file and line, under limits.

Every YAML input (tasks.yaml, ratchet.yaml, world files, gate configs, SKILL.md frontmatter) is
read with the same limits, so no file can hang or crash the reader: a file is at most
MAX_YAML_BYTES (2 MiB); collections nest at most MAX_YAML_DEPTH (100) levels; aliases add at
most MAX_ALIAS_NODES nodes to the document when expanded (a "billion laughs" alias bomb is a
few hundred bytes that expand to 10**9 nodes in whatever walks the data); an alias inside the
node it names is refused; an integer past Python's int/str conversion limit (4300 digits) and a
value its constructor rejects (a timestamp in month 13) are refused with their line. Each is an
InputError (or the subclass the caller names), not a RecursionError, a ValueError or a hang.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

from ratchet.errors import InputError
from ratchet.jsonio import read_utf8

MAX_YAML_BYTES = 2 * 1024 * 1024
MAX_YAML_DEPTH = 100
MAX_ALIAS_NODES = 100_000


class YamlLimitError(yaml.MarkedYAMLError):
    """Valid YAML refused for its nesting, alias expansion or a value: `message` says which, `line` where (1-based)."""

    def __init__(self, message: str, event: yaml.Event | yaml.Node) -> None:
        super().__init__(problem=message)
        self.message = message
        self.line = event.start_mark.line + 1 if event.start_mark is not None else 1


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader whose composer counts nesting and alias expansion as it goes, and stops at a limit.

    Counting while composing (not after) matters: the composer recurses once per level, and a
    bomb's expansion only exists in the consumer, so both are refused before either happens.
    """

    allow_recursion = False

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._alias_nodes = 0
        self._sizes: dict[int, int] = {}  # id(node) -> its node count with aliases expanded

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self.check_event()  # parses the next event into current_event, without consuming it
        event = self.current_event
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)
            size = self._sizes.get(id(node))
            if size is None:  # the named node is still being composed: the alias is inside it
                if not self.allow_recursion:
                    raise YamlLimitError("refused: recursive YAML alias", event)
                size = 1
            self._alias_nodes += size
            if self._alias_nodes > MAX_ALIAS_NODES:
                raise YamlLimitError(f"refused: YAML aliases expand past {MAX_ALIAS_NODES} nodes (an alias bomb?)",
                                     event)
            return node
        nests = isinstance(event, yaml.CollectionStartEvent)
        if nests:
            self._depth += 1
            if self._depth > MAX_YAML_DEPTH:
                raise YamlLimitError(f"refused: YAML nested more than {MAX_YAML_DEPTH} levels deep", event)
        node = super().compose_node(parent, index)
        if nests:
            self._depth -= 1
        if node is not None:
            self._sizes[id(node)] = 1 + sum(self._sizes.get(id(child), 1) for child in _children(node))
        return node

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        # A ValueError escapes PyYAML's constructors (int("1" * 5000), date(2024, 13, 1)); an int
        # written in hex has no such limit but breaks every later str() of it, so it is refused too.
        try:
            value = super().construct_object(node, deep)
        except ValueError as exc:
            if node.tag == "tag:yaml.org,2002:int":
                raise _huge_int(node) from None
            raise YamlLimitError(f"refused: value {str(node.value)[:40]!r} ({exc})", node) from None
        if isinstance(value, int) and value.bit_length() > 10_000:  # ~3000 digits: ask str() itself
            try:
                str(value)
            except ValueError:
                raise _huge_int(node) from None
        return value


def _huge_int(node: yaml.Node) -> YamlLimitError:
    return YamlLimitError(f"refused: an integer longer than {sys.get_int_max_str_digits()} digits", node)


class _RecursionTolerantLoader(_BoundedLoader):
    allow_recursion = True


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def compose_yaml(text: str, *, allow_recursion: bool = False) -> yaml.Node | None:
    """yaml.compose under the limits; raises yaml.YAMLError (YamlLimitError for a limit)."""
    loader = _RecursionTolerantLoader if allow_recursion else _BoundedLoader
    node: yaml.Node | None = yaml.compose(text, Loader=loader)
    return node


def _check_size(size: int, *, source: str, error: type[InputError]) -> None:
    if size > MAX_YAML_BYTES:
        raise error(f"refused: {size} bytes; the limit for a YAML file is {MAX_YAML_BYTES} bytes", path=source)


def load_yaml_text(text: str, *, source: str, error: type[InputError] = InputError) -> Any:
    """safe_load under the limits; every failure is one `error` naming source and, where known, the line."""
    _check_size(len(text.encode("utf-8", "surrogatepass")), source=source, error=error)
    try:
        return yaml.load(text, Loader=_BoundedLoader)
    except YamlLimitError as exc:
        raise error(exc.message, path=source, line=exc.line) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line = mark.line + 1 if mark is not None else None
        raise error(f"not valid YAML: {problem}", path=source, line=line) from None


def load_yaml_file(path: Path, *, error: type[InputError] = InputError) -> Any:
    """load_yaml_text of a file; its size is checked before it is read, its bytes must be UTF-8."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise error("file not found", path=path) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", path=path) from None
    _check_size(size, source=str(path), error=error)
    return load_yaml_text(read_utf8(path, error=error), source=str(path), error=error)


def item_lines(text: str, list_key: str) -> list[int]:
    """1-based line of each item of the top-level list `list_key` (for error messages)."""
    try:
        node = compose_yaml(text)
    except yaml.YAMLError:
        return []
    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value == list_key and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []
