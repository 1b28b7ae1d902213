"""The parsed-file cache (ratchet.store.parsed) serves only entries this work area signed."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from ratchet.store.parsed import ParsedCache, blob_id


def test_values_round_trip_and_a_changed_content_id_is_another_entry(tmp_path: Path) -> None:
    cache = ParsedCache(tmp_path / "home")
    assert cache.get("tasks", 1, "abc") is None
    cache.put("tasks", 1, "abc", [{"id": "t", "prompt": "été"}])
    assert cache.get("tasks", 1, "abc") == [{"id": "t", "prompt": "été"}]
    assert (cache.get("tasks", 1, "abd"), cache.get("tasks", 2, "abc"), cache.get("words", 1, "abc")) == (None,) * 3
    assert oct((cache.root / ".key").stat().st_mode & 0o777) == "0o600"


def test_a_forged_or_foreign_entry_is_a_miss(tmp_path: Path) -> None:
    cache = ParsedCache(tmp_path / "home")
    cache.put("routed", 1, "x", ["a", None])
    [entry] = cache.root.rglob("*.json")
    body = b'["b",null]'
    entry.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)  # a digest anyone can compute
    assert ParsedCache(tmp_path / "home").get("routed", 1, "x") is None
    cache.put("routed", 1, "x", ["a", None])
    other = ParsedCache(tmp_path / "other")
    other.put("routed", 1, "y", [])  # the other work area has a key of its own
    copied = other.root / entry.relative_to(cache.root)
    copied.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(entry, copied)
    assert other.get("routed", 1, "x") is None
    assert ParsedCache(tmp_path / "home").get("routed", 1, "x") == ["a", None]


def test_an_unwritable_work_area_is_no_cache_not_an_error(tmp_path: Path) -> None:
    (tmp_path / "home").write_text("a file where the work area should be", encoding="utf-8")
    cache = ParsedCache(tmp_path / "home")
    cache.put("tasks", 1, "abc", [])
    assert cache.get("tasks", 1, "abc") is None


def test_blob_id_is_gits() -> None:
    assert blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object of "hello\n"
