"""WorldFiles hands each replay a world of its own: nothing one replay changes reaches the next."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ratchet.world.state import WorldFiles

PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)


def _mutate(node: Any, path: list[int]) -> None:
    """Change the tree in place along `path` (every mapping and list on the way)."""
    for step in path:
        if isinstance(node, dict):
            node["changed"] = step
            if not node:
                return
            node = node[sorted(node)[step % len(node)]]
        elif isinstance(node, list):
            node.append(step)
            node = node[step % len(node)]
        else:
            return


@settings(max_examples=60, deadline=None)
@given(section=st.dictionaries(st.text(min_size=1, max_size=4), PLAIN, max_size=4), path=st.lists(st.integers(0, 9)))
def test_a_replays_change_never_reaches_the_next_replay(tmp_path_factory: Any, section: Any, path: list[int]) -> None:
    folder: Path = tmp_path_factory.mktemp("world")
    files = WorldFiles(folder)
    files._merged = {"extra": section}, (), {}  # a merged world, as _merge leaves it
    first = files.world(workspaces_dir=None, workspace=None, frozen_time="2026-01-01T00:00:00Z")
    pristine = first.digest()
    _mutate(first.data, path)
    first.data.setdefault("email", {})["outbox"] = ["sent"]
    second = files.world(workspaces_dir=None, workspace=None, frozen_time="2026-01-01T00:00:00Z")
    assert second.data == {"extra": section} and second.digest() == pristine
