"""The merged world's data: deep-merged from its files once, then copied for each replay (moved out of
ratchet.world.state, which keeps the merged data by the files' texts)."""

from __future__ import annotations

import copy
import marshal
from collections.abc import Sequence
from typing import Any


def _fresh(value: Any) -> Any:
    """copy.deepcopy for the plain trees world files become (a third of its time: no memo needed, none shared)."""
    if isinstance(value, dict):
        return {key: _fresh(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_fresh(item) for item in value]
    if value is None or isinstance(value, (str, int, float)):
        return value
    return copy.deepcopy(value)


def freeze(data: dict[str, Any]) -> bytes:
    """The merged world as marshal bytes (b"" when a value is not plain: then each copy is _fresh's)."""
    try:
        return marshal.dumps(data)
    except ValueError:
        return b""


def thaw(frozen: bytes, data: dict[str, Any]) -> dict[str, Any]:
    """A new tree equal to `data`, sharing nothing with it or any other copy: marshal.loads builds every
    mapping and list anew (about half of _fresh's time), and strings and numbers cannot be changed in place."""
    thawed: dict[str, Any] = marshal.loads(frozen) if frozen else _fresh(data)
    return thawed


def merge_files(contents: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], bytes]:
    """The files' sections deep-merged in order, and freeze()'s bytes of them (what ratchet.world.state keeps by the texts)."""
    data: dict[str, Any] = {}
    for content in contents:
        data = deep_merge(data, content)
    return data, freeze(data)


def deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """Mappings merge key by key; any other value in `top` replaces the one in `base`."""
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged
