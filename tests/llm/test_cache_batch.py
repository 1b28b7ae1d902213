"""Cache entries are synced once per batch: whole after kill -9 at once, durable after the batch's flush."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ratchet.config.project import Project
from ratchet.core.chat import ChatRequest, ChatResponse, Message
from ratchet.llm import cache as cache_module
from ratchet.llm.cache import FLUSH_EVERY, ResponseCache, cache_key, cache_root
from ratchet.llm.fake import ScriptedModel
from ratchet.llm.gateway import Gateway
from ratchet.store.db import Store
from tests.helpers.gateways import sim_gateway
from tests.llm.live_fixtures import MODEL as LIVE_MODEL
from tests.llm.live_fixtures import injected_live_project

REPO = Path(__file__).resolve().parents[2]


def req(text: str) -> ChatRequest:
    return ChatRequest.model_validate({"messages": [{"role": "user", "content": text}]})


def answer(text: str) -> ChatResponse:
    return ChatResponse(message=Message(role="assistant", content=text))


def key(n: int) -> str:
    return cache_key("m", None, req(f"question {n}"))


def made_key_file(cache: ResponseCache) -> None:
    """One entry recorded and synced, so the key file's own fsync is not counted."""
    cache.put(key(-99), answer("first"))
    assert cache.flush() == 1


class Syncs:
    """Counts the cache's syncs (syncfs and fsync) while still making them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.syncfs = 0
        self.fsync = 0
        real_syncfs, real_fsync = cache_module.sync_filesystem, os.fsync

        def syncfs(path: Path) -> bool:
            done = real_syncfs(path)
            self.syncfs += done  # only a syncfs that was made: False means there is none here
            return done

        def fsync(fd: int) -> None:
            self.fsync += 1
            real_fsync(fd)

        monkeypatch.setattr(cache_module, "sync_filesystem", syncfs)
        monkeypatch.setattr(os, "fsync", fsync)


def test_a_batch_is_readable_at_once_and_durable_after_one_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ResponseCache(tmp_path / "llm")
    made_key_file(cache)
    syncs = Syncs(monkeypatch)
    for n in range(5):
        cache.put(key(n), answer(f"a{n}"))
    assert (cache.pending, cache.synced, syncs.syncfs, syncs.fsync) == (5, 1, 0, 0)
    other = ResponseCache(tmp_path / "llm")  # another reader (or process) sees every entry whole already
    assert [other.get(key(n)) for n in range(5)] == [answer(f"a{n}") for n in range(5)]
    assert cache.flush() == 5
    assert (cache.pending, cache.synced) == (0, 6)
    folders = len({cache.path(key(n)).parent for n in range(5)})
    syncs_made = 5 + folders + 1  # the files written, their folders and the root: never a syncfs
    assert (syncs.syncfs, syncs.fsync) == (0, syncs_made)
    assert cache.flush() == 0  # nothing pending: no sync at all
    assert syncs.syncfs + syncs.fsync == syncs_made
    assert not list((tmp_path / "llm").rglob("*.tmp"))


def test_without_syncfs_each_entry_and_folder_is_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ResponseCache(tmp_path / "llm")
    made_key_file(cache)
    monkeypatch.setattr(cache_module, "_syncfs", lambda: None)
    syncs = Syncs(monkeypatch)
    keys = [key(n) for n in range(4)]
    for k in keys:
        cache.put(k, answer("x"))
    assert cache.flush() == 4
    folders = {cache.path(k).parent for k in keys}
    assert (syncs.syncfs, syncs.fsync) == (0, 4 + len(folders) + 1)  # no syncfs: each file, each folder, the root


def test_a_failed_sync_reports_nothing_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    cache = ResponseCache(tmp_path / "llm")
    cache.put(key(1), answer("x"))

    def broken(_fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken)
    with caplog.at_level(logging.WARNING, logger="ratchet.llm.cache"):
        assert cache.flush() == 0
    assert (cache.pending, cache.synced) == (0, 0)
    assert [r.getMessage() for r in caplog.records] == [
        f"cannot sync 1 cache entries under {tmp_path / 'llm'} (Input/output error); they may not survive a power cut"
    ]
    assert cache.get(key(1)) == answer("x")  # still whole and served: only not reported durable


def test_a_full_batch_or_an_old_one_ends_at_the_next_put(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ResponseCache(tmp_path / "llm")
    for n in range(FLUSH_EVERY + 1):
        cache.put(key(n), answer("x"))
    assert (cache.synced, cache.pending) == (FLUSH_EVERY, 1)
    monkeypatch.setattr(cache_module, "FLUSH_AFTER_S", 0.0)
    cache.put(key(-1), answer("y"))
    assert (cache.synced, cache.pending) == (FLUSH_EVERY + 2, 0)


def test_a_power_cut_torn_entry_is_refused_and_re_recorded(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "llm")
    cache.put(key(1), answer("whole"))
    text = cache.path(key(1)).read_bytes()
    for torn in (b"", text[: len(text) // 2], text[:-2]):  # what an unsynced rename can leave
        cache.path(key(1)).write_bytes(torn)
        assert ResponseCache(tmp_path / "llm").get(key(1)) is None
    fresh = ResponseCache(tmp_path / "llm")
    assert fresh.get(key(1)) is None and fresh.rejected == 1
    fresh.put(key(1), answer("whole"))
    assert fresh.get(key(1)) == answer("whole")


KILLED = """
import os, signal, sys
sys.path.insert(0, {repo!r})
from pathlib import Path
from ratchet.llm.cache import ResponseCache, cache_key
from ratchet.core.chat import ChatRequest, ChatResponse, Message
cache = ResponseCache(Path(sys.argv[1]))
for n in range(20):
    request = ChatRequest.model_validate({{"messages": [{{"role": "user", "content": f"question {{n}}"}}]}})
    cache.put(cache_key("m", None, request), ChatResponse(message=Message(role="assistant", content=f"a{{n}}")))
assert cache.pending == 20 and cache.synced == 0
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_kill_9_before_the_flush_leaves_every_entry_whole(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", KILLED.format(repo=str(REPO)), str(tmp_path / "llm")], capture_output=True, text=True
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    cache = ResponseCache(tmp_path / "llm")
    assert [cache.get(key(n)) for n in range(20)] == [answer(f"a{n}") for n in range(20)]
    assert cache.rejected == 0
    assert not list((tmp_path / "llm").rglob("*.tmp"))


def test_the_gateway_syncs_its_batch_at_close(tmp_path: Path, store: Store) -> None:
    live_project = injected_live_project(tmp_path)
    fake = ScriptedModel(LIVE_MODEL, [answer("one"), answer("two")])
    gw = Gateway(live_project, store, run_id="r", upstream_models={"nano": fake})
    model = gw.model("nano", "judge-nano")
    model.complete(req("q1"))
    model.complete(req("q2"))  # a live call syncs the entries recorded before it while it waits
    assert model.complete(req("q1")).cache_hit  # a hit records nothing, so adds nothing to sync
    assert (gw.cache.pending, gw.cache.synced) == (1, 1)
    assert [row.cache_hit for row in store.ledger("r")] == [False, False]  # rows first; the batch syncs later
    gw.close()
    assert (gw.cache.pending, gw.cache.synced) == (0, 2)
    reader = ResponseCache(cache_root(live_project.home))
    slots = sorted(path.stem for path in cache_root(live_project.home).rglob("*.json"))
    answers = [reader.get(slot) for slot in slots]
    assert sorted(str(a.message.content) for a in answers if a is not None) == ["one", "two"]


def test_a_simulated_answer_is_recorded_but_never_synced(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano", [answer("one")])
    with sim_gateway(sim_project, store, run_id="r", upstream_models={"nano": fake}) as gw:
        gw.model("nano", "judge-nano").complete(req("q1"))
        assert (gw.cache.pending, gw.flush()) == (0, 0)  # free to ask again: a power cut may take it
        assert gw.model("nano", "judge-nano").complete(req("q1")).cache_hit
    assert gw.cache.synced == 0


def test_gateway_flush_ends_the_batch_early(tmp_path: Path, store: Store) -> None:
    live_project = injected_live_project(tmp_path)
    fake = ScriptedModel(LIVE_MODEL, [answer("one")])
    with Gateway(live_project, store, run_id="r", upstream_models={"nano": fake}) as gw:
        gw.model("nano", "judge-nano").complete(req("q1"))
        assert gw.flush() == 1
        assert gw.flush() == 0
    assert gw.cache.synced == 1
