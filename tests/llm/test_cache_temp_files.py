"""A cache entry's temp file is named by its writer (ratchet.llm.cache._temp_path), not drawn at random: a name
a dead writer left is written over, a link planted at the name is not followed, and nothing is left behind."""

from __future__ import annotations

import logging
import os
import stat
import threading
from pathlib import Path

import pytest

from ratchet.core.chat import ChatRequest, ChatResponse, Message
from ratchet.llm.cache import ResponseCache, cache_key
from ratchet.llm.entry_files import _temp_path

ANSWER = ChatResponse(message=Message(role="assistant", content="an answer"))
KEY = cache_key("m", None, ChatRequest.model_validate({"messages": [{"role": "user", "content": "q"}]}))


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*.tmp"))


def test_an_entry_is_whole_readable_and_leaves_no_temp_file(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.put(KEY, ANSWER)
    assert cache.get(KEY) == ANSWER
    assert stat.S_IMODE(cache.path(KEY).stat().st_mode) == 0o644
    assert leftovers(tmp_path) == []


def test_a_temp_file_a_dead_writer_left_is_written_over(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    path = cache.path(KEY)
    path.parent.mkdir(parents=True)
    Path(_temp_path(path)).write_text("half an entry, longer than the whole one will be " * 40, encoding="utf-8")
    cache.put(KEY, ANSWER)
    assert cache.get(KEY) == ANSWER and cache.rejected == 0  # truncated, not appended to
    assert leftovers(tmp_path) == []


def test_a_link_planted_at_the_temp_name_is_not_followed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cache = ResponseCache(tmp_path / "cache")
    path = cache.path(KEY)
    path.parent.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("not the cache's", encoding="utf-8")
    os.symlink(victim, _temp_path(path))
    with caplog.at_level(logging.WARNING, logger="ratchet.llm.cache"):
        cache.put(KEY, ANSWER)
    assert victim.read_text(encoding="utf-8") == "not the cache's"
    assert cache.get(KEY) is None  # not recorded: the answer is used, asked again next time
    assert "cannot record cache entry" in caplog.text


def test_writers_in_two_threads_use_two_names(tmp_path: Path) -> None:
    path = ResponseCache(tmp_path).path(KEY)
    names: list[str] = []
    worker = threading.Thread(target=lambda: names.append(_temp_path(path)))
    worker.start()
    worker.join()
    assert names[0] != _temp_path(path)
