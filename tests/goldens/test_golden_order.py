"""load_golden_files answers in path order (Path's own ordering), from the folder and from bytes alike.

Why: the loader sorts by each path's parts (a key, not Path.__lt__ per comparison); a name such as
`a-b` sorts after `a` by parts but before `a/` as a string, so the order must stay Path's.
"""

from __future__ import annotations

from pathlib import Path

from ratchet.goldens.trace import Trace, load_golden_files

FOLDERS = ["a-b", "a", "A", "a.b", "a_b", "b", "\u00e9t\u00e9", "z0", "z-0"]


def test_goldens_come_in_path_order(tmp_path: Path) -> None:
    goldens = tmp_path / "goldens"
    contents: dict[Path, bytes] = {}
    for n, folder in enumerate(FOLDERS):
        for task in (f"t{n}-b", f"t{n}-a", f"t{n}"):
            path = goldens / folder / f"{task}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            data = Trace(task_id=task, prompt="p", seed=1, frozen_time="2026-10-14T16:00:00Z").to_json().encode()
            path.write_bytes(data)
            contents[path] = data
    want = sorted(contents)
    assert list(load_golden_files(goldens)) == want
    assert list(load_golden_files(goldens, dict(reversed(contents.items())))) == want
