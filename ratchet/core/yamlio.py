"""YAML reading with one-line errors that name the file and line, under limits.

Every YAML input (tasks.yaml, ratchet.yaml, world files, gate configs, SKILL.md frontmatter) is
read with the same limits, so no file can hang or crash the reader: a file is at most
MAX_YAML_BYTES (2 MiB); collections nest at most MAX_YAML_DEPTH (100) levels; aliases add at
most MAX_ALIAS_NODES nodes to the document when expanded (a "billion laughs" alias bomb is a
few hundred bytes that expand to 10**9 nodes in whatever walks the data); an alias inside the
node it names is refused; an integer past Python's int/str conversion limit (4300 digits) and a
value its constructor rejects (a timestamp in month 13) are refused with their line. Each is an
InputError (or the subclass the caller names), not a RecursionError, a ValueError or a hang.

Speed without a second meaning: where PyYAML has libyaml, the scanning and parsing (the bulk
of the time) run in C, and composing and constructing stay the Python code below, so every limit
is counted by the same lines either way. Anything the fast path refuses is parsed again by the
pure loader, which raises: an error reads exactly as it always did. tests/core/test_yamlio_libyaml_agrees_with_pure.py
holds the two loaders equal on every YAML file the repository ships.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ratchet.core.errors import InputError
from ratchet.core.jsonio import LONE_SURROGATE, is_unwritable, read_utf8

MAX_YAML_BYTES = 2 * 1024 * 1024
MAX_YAML_DEPTH = 100
MAX_ALIAS_NODES = 100_000


class YamlLimitError(yaml.MarkedYAMLError):
    """Valid YAML refused for its nesting, alias expansion or a value: `message` says which, `line` where (1-based)."""

    def __init__(self, message: str, event: yaml.Event | yaml.Node) -> None:
        super().__init__(problem=message)
        self.message = message
        self.line = event.start_mark.line + 1 if event.start_mark is not None else 1


class _Bounds(yaml.composer.Composer, yaml.constructor.SafeConstructor):
    """A composer and constructor that counts nesting and alias expansion as it goes, and stops at a limit.

    Counting while composing (not after) matters: the composer recurses once per level, and a
    bomb's expansion only exists in the consumer, so both are refused before either happens.
    It reads events only through peek_event and get_event, which the pure parser and libyaml's
    both answer, so the same counting runs over either.
    """

    allow_recursion = False
    if TYPE_CHECKING:  # the parser's (pure or libyaml's), later in the MRO

        def __init__(self, stream: str) -> None: ...
        def peek_event(self) -> yaml.Event: ...
        def dispose(self) -> None: ...

    def _start_counting(self) -> None:
        self._depth = 0
        self._alias_nodes = 0
        self._sizes: dict[int, int] = {}  # id(node) -> its node count with aliases expanded

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)
            size = self._sizes.get(id(node))
            if size is None:  # the named node is still being composed: the alias is inside it
                if not self.allow_recursion:
                    raise YamlLimitError("refused: recursive YAML alias", event)
                size = 1
            self._alias_nodes += size
            if self._alias_nodes > MAX_ALIAS_NODES:
                raise YamlLimitError(
                    f"refused: YAML aliases expand past {MAX_ALIAS_NODES} nodes (an alias bomb?)", event
                )
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
            if (
                isinstance(node, yaml.ScalarNode) and node.style == ""
            ):  # libyaml's word for a plain scalar; the pure parser's is None
                node.style = None
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
        except (IndexError, KeyError, AttributeError):  # an empty `!!int`, `!!float`, `!!bool`, `!!timestamp`
            kind = node.tag.rsplit(":", 1)[-1]
            raise YamlLimitError(f"refused: value {str(node.value)[:40]!r} is not a valid {kind}", node) from None
        if isinstance(value, int) and value.bit_length() > 10_000:  # ~3000 digits: ask str() itself
            try:
                str(value)
            except ValueError:
                raise _huge_int(node) from None
        return value


def _huge_int(node: yaml.Node) -> YamlLimitError:
    return YamlLimitError(f"refused: an integer longer than {sys.get_int_max_str_digits()} digits", node)


class PureLoader(_Bounds, yaml.SafeLoader):
    """SafeLoader under the limits, all in Python: the reference, and what every error comes from."""

    def __init__(self, stream: str) -> None:
        yaml.SafeLoader.__init__(self, stream)
        self._start_counting()


class _PureRecursionTolerant(PureLoader):
    allow_recursion = True


class _LibyamlDiffers(yaml.YAMLError):
    """The fast path met what libyaml reads otherwise than the pure parser: the text is the pure loader's."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)


def _fast_loaders() -> tuple[type[_Bounds], type[_Bounds]]:
    """PureLoader and its recursion-tolerant twin over libyaml's parser; themselves when PyYAML has no libyaml."""
    try:
        from yaml._yaml import CParser
    except ImportError:
        return PureLoader, _PureRecursionTolerant

    # _Bounds (a Composer) comes before CParser: composing is Python's, not libyaml's (which counts nothing).
    class FastLoader(_Bounds, CParser, yaml.resolver.Resolver):
        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            self._start_counting()
            self._flow = 0

        def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
            event = self.peek_event()
            if isinstance(event, yaml.ScalarEvent) and (
                event.tag == "!" or (self._flow and not event.style and "?" in event.value)
            ):
                raise _LibyamlDiffers(problem="a value libyaml reads otherwise")
            flow = int(isinstance(event, yaml.CollectionStartEvent) and bool(event.flow_style))
            self._flow += flow
            node = super().compose_node(parent, index)
            self._flow -= flow
            return node

    class FastRecursionTolerant(FastLoader):
        allow_recursion = True

    return FastLoader, FastRecursionTolerant


FastLoader, _FastRecursionTolerant = _fast_loaders()
"""PureLoader's composer and constructor over libyaml's parser (PureLoader itself without libyaml)."""
HAS_LIBYAML = FastLoader is not PureLoader


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


# Where libyaml and the pure scanner part ways, found by generating documents (tests/core/test_yamlio_libyaml_agrees_with_pure.py).
# Two show in the events, and FastLoader hands those texts back: an empty `!`-tagged value (libyaml
# reads '', pure None) and a `?` inside a plain scalar in a flow collection (`[why?]`, which pure
# refuses). The rest only show in the characters, so a text with any of them is pure's from the
# start: libyaml takes a tab as a separator and a `#` right after a block scalar's header, and
# differs on other line breaks, control characters, a byte-order mark and directives.
_PURE_ONLY = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"  # all but \n and printable
    "|^%|[|>][-+0-9]*#",
    re.MULTILINE,
)


def compose_yaml(text: str, *, allow_recursion: bool = False) -> yaml.Node | None:
    """yaml.compose under the limits; raises yaml.YAMLError (YamlLimitError for a limit)."""
    fast, pure = (_FastRecursionTolerant, _PureRecursionTolerant) if allow_recursion else (FastLoader, PureLoader)
    if _PURE_ONLY.search(text):
        return _compose_with(pure, text)
    try:
        return _compose_with(fast, text)
    except (yaml.YAMLError, UnicodeError):
        return _compose_with(pure, text)  # raises as it always did (or agrees where libyaml is stricter)


def _parse(text: str) -> tuple[Any, yaml.Node | None]:
    """The document's value and node, fast where it can be; a refusal is the pure loader's own."""
    if _PURE_ONLY.search(text):
        return _load_with(PureLoader, text)
    try:
        return _load_with(FastLoader, text)
    except (yaml.YAMLError, UnicodeError):
        return _load_with(PureLoader, text)


def _compose_with(loader_class: type[_Bounds], text: str) -> yaml.Node | None:
    """yaml.compose (whose stubs accept only PyYAML's own loader classes)."""
    loader = loader_class(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _load_with(loader_class: type[_Bounds], text: str) -> tuple[Any, yaml.Node | None]:
    """yaml.load, keeping the node too (for lines); PyYAML's stubs accept only its own loader classes."""
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        return (loader.construct_document(node) if node is not None else None), node
    finally:
        loader.dispose()


def _check_size(size: int, *, source: str, error: type[InputError]) -> None:
    if size > MAX_YAML_BYTES:
        raise error(f"refused: {size} bytes; the limit for a YAML file is {MAX_YAML_BYTES} bytes", path=source)


def load_yaml_text(text: str, *, source: str, error: type[InputError] = InputError) -> Any:
    """safe_load under the limits; every failure is one `error` naming source and, where known, the line."""
    return _load_text(text, source=source, error=error)[0]


def load_yaml_text_with_lines(
    text: str,
    *,
    list_key: str,
    source: str,
    error: type[InputError] = InputError,
) -> tuple[Any, list[int]]:
    """load_yaml_text, and item_lines(text, list_key) from the same parse (tasks.yaml is read once)."""
    value, node = _load_text(text, source=source, error=error)
    return value, _item_lines(node, list_key)


def _load_text(text: str, *, source: str, error: type[InputError]) -> tuple[Any, yaml.Node | None]:
    _check_size(len(text.encode("utf-8", "surrogatepass")), source=source, error=error)
    try:
        value, node = _parse(text)
    except YamlLimitError as exc:
        raise error(exc.message, path=source, line=exc.line) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line = mark.line + 1 if mark is not None else None
        raise error(f"not valid YAML: {problem}", path=source, line=line) from None
    if may_hold_surrogate(text):
        _refuse_lone_surrogates(node, source=source, error=error)
    return value, node


_SURROGATE_ESCAPE = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F]")


def may_hold_surrogate(text: str) -> bool:
    """False when parsing `text` cannot have made a lone surrogate: the text itself encodes, and it has no
    `\\ud800`-`\\udfff` or `\\U0000d800`-`\\U0000dfff` escape (a tag's %-escapes decode as strict UTF-8).
    Over-approximate (a backslash in a plain scalar matches too): then every scalar is walked, as always."""
    return is_unwritable(text) or _SURROGATE_ESCAPE.search(text) is not None


def _refuse_lone_surrogates(node: yaml.Node | None, *, source: str, error: type[InputError]) -> None:
    """One `error` at the line of the first scalar (a value, a key or a tag) holding a lone surrogate escape
    (`"\\ud800"`); a shared (aliased) node is visited once."""
    seen: set[int] = set()
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        text = current.value if isinstance(current, yaml.ScalarNode) else ""
        if is_unwritable(text) or is_unwritable(current.tag or ""):
            raise error(LONE_SURROGATE, path=source, line=current.start_mark.line + 1)
        stack.extend(reversed(_children(current)))


def load_yaml_file(path: Path, *, error: type[InputError] = InputError) -> Any:
    """load_yaml_text of a file; its size is checked before it is read, its bytes must be UTF-8."""
    return load_yaml_text(read_yaml_file(path, error=error), source=str(path), error=error)


def read_yaml_file(path: Path, *, error: type[InputError] = InputError) -> str:
    """The text of a YAML file, its size checked before it is read, its bytes UTF-8 (for a caller that keeps parses)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise error("file not found", path=path) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", path=path) from None
    _check_size(size, source=str(path), error=error)
    return read_utf8(path, error=error)


def item_lines(text: str, list_key: str) -> list[int]:
    """1-based line of each item of the top-level list `list_key` (for error messages)."""
    try:
        node = compose_yaml(text)
    except yaml.YAMLError:
        return []
    return _item_lines(node, list_key)


def _item_lines(node: yaml.Node | None, list_key: str) -> list[int]:
    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value == list_key and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []
