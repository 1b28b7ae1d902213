"""Content-addressed response cache under the project's work area, signed with a local key.

One file per request: <home>/cache/llm/<key[:2]>/<key>.json, written atomically. The key is
the digest of everything that changes the answer and nothing operational. Each entry carries
the sha256 of its response and an HMAC-SHA256 over (schema, request key, that hash) under a
random key made once in <home>/cache/llm/.key (0600). Anyone can compute a hash, so the hash
alone would not stop a rewritten answer; only a holder of the key file can sign one, so an
entry rewritten by hand, copied from another work area or restored from a foreign cache is a
miss. A miss of that kind (or an entry that cannot be read) is counted in `rejected` and
logged at WARNING on the `ratchet.llm.cache` logger, and the answer is asked again (or, under
cache mode `none`, the call fails). Entries of an older schema are quiet misses. See
docs/cache.md. `CacheMode` says when the gateway reads and writes the cache.

Entries are synced in batches, not one by one. `put` renames a whole entry into place without an
fsync: a process that dies (kill -9, a crash) leaves every entry it recorded whole, because the
kernel still holds the written pages, and a rename is all or nothing. What a power cut can
take is the batch not yet synced: `flush` makes every entry recorded so far durable with an fsync of
each file it wrote and of each folder that gained one (never syncfs(2), which would flush other
processes' data too), and only then counts them in `synced`. The gateway ends a batch at its close (one
check), at `Gateway.flush`, and every FLUSH_EVERY entries or FLUSH_AFTER_S seconds, checked at
each put, so a long-lived gateway (the proxy's, a bench run's) still syncs. A model call the gateway
makes syncs the batch while it waits for the model (`syncing`), so the fsyncs are not on its own time.
A power cut can leave an unsynced entry torn: it fails its check like a tampered one and is asked again.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import hmac
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ratchet.core.chat import ChatRequest, ChatResponse
from ratchet.core.errors import InputError
from ratchet.core.jsonio import canonical_dumps, digest, load_json_file
from ratchet.core.keyfile import KEY_BYTES, KEY_FILE, make_key
from ratchet.llm.entry_files import fsync_each, write_unsynced
from ratchet.llm.keychain import chained_key

CACHE_SCHEMA_VERSION = 2
_REQUEST_DIGEST_VERSION = 1  # part of every request digest (goldens keep theirs): bump only to re-key everything
FLUSH_EVERY = 64
"""Entries recorded since the last sync after which a put ends the batch."""
FLUSH_AFTER_S = 5.0
MAX_VERIFIED = 16384
"""Checked entries a cache object keeps in memory before it drops them all (a few KB each)."""
"""Seconds after a batch's first entry after which a put ends the batch."""

_log = logging.getLogger(__name__)


class CacheMode(StrEnum):
    """When a run reads and writes the response cache."""

    ONCE = "once"
    """Replay a recorded answer; call the model (and record) only on a miss."""
    NEW = "new"
    """Always call the model; record only answers not recorded yet."""
    NONE = "none"
    """Replay only: a miss is an error, the model is never called."""
    ALL = "all"
    """Always call the model and re-record every answer."""


def _normal_base(api_base: str | None) -> str | None:
    return api_base.rstrip("/") if api_base else None


def cache_key(model_id: str, api_base: str | None, request: ChatRequest) -> str:
    """sha256 over model, api base and the whole request in canonical (sorted-key) JSON.

    The same bytes as `_whole_key`, hashed in a chain (ratchet.llm.keychain): a conversation's next turn
    hashes only the messages it added, and the tools are serialised once per run, not once per turn."""
    if type(request) is not ChatRequest:  # a subclass may serialise fields of its own: the whole-request way
        return _whole_key(model_id, api_base, request)
    key = chained_key({"v": _REQUEST_DIGEST_VERSION, "model": model_id, "api_base": _normal_base(api_base)}, request)
    return key if key is not None else _whole_key(model_id, api_base, request)


def _whole_key(model_id: str, api_base: str | None, request: ChatRequest) -> str:
    """The key's definition: what `cache_key` hashes, serialised in one piece."""
    return digest(
        {
            "v": _REQUEST_DIGEST_VERSION,
            "model": model_id,
            "api_base": _normal_base(api_base),
            "request": request.model_dump(mode="json"),
        }
    )


class ResponseCache:
    """Record/replay store of ChatResponses by cache key, every entry signed with the local key."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rejected = 0
        """Entries refused this session: failed the integrity check or could not be read."""
        self.synced = 0
        """Entries this session recorded and then made durable (a flush that failed counts none)."""
        self._secret: bytes | None = None
        self._secret_loaded = False
        self._lock = threading.Lock()
        self._pending: list[Path] = []
        self._batch_started = 0.0
        self._flush_lock = threading.Lock()
        self._folders: set[Path] = set()
        """Entry folders this cache object made or found (each is made once, not asked for at every put)."""
        self._verified: dict[str, tuple[tuple[int, ...], str]] = {}
        """Entries checked this session: key -> (the file's identity when checked, the response's JSON)."""

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    @property
    def key_file(self) -> Path:
        return self.root / KEY_FILE

    def get(self, key: str) -> ChatResponse | None:
        """The recorded answer for `key`, or None: absent, old schema, unreadable or not ours.

        An entry that passed its check is kept in memory with its file's identity (device, inode, size,
        mtime, ctime): while the file is the same one, it is served without being read and checked again.
        Any write to it, a rename over it or a removal changes that identity (ctime cannot be set back by
        hand), and the file is then read and checked as the first time. Each hit is a fresh object."""
        path = self.path(key)
        try:
            stat = os.stat(path)
        except OSError:
            return None
        identity = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
        kept = self._verified.get(key)
        if kept is not None and kept[0] == identity:
            return ChatResponse.model_validate_json(kept[1])
        found = self._read(key, path)
        if found is not None:
            if len(self._verified) >= MAX_VERIFIED:
                self._verified.clear()
            self._verified[key] = identity, found.model_dump_json()
        return found

    def _read(self, key: str, path: Path) -> ChatResponse | None:
        try:
            raw = load_json_file(path, error=InputError)  # bounded: a crafted entry cannot recurse us to death
        except InputError as exc:
            self._reject(f"cache entry {path} cannot be read ({exc.message}); treated as a miss")
            return None
        if not isinstance(raw, dict):
            self._reject(f"cache entry {path} is not a cache record; treated as a miss")
            return None
        if raw.get("schema_version") != CACHE_SCHEMA_VERSION:
            return None  # an older Ratchet's entry: re-recorded in the current format
        secret = self._load_secret()
        if secret is None or not self._genuine(secret, key, raw):
            self._reject(
                f"cache entry {path} failed its integrity check (tampered, or written under another key file);"
                " treated as a miss and asked again"
            )
            return None
        try:
            return ChatResponse.model_validate(raw["response"])
        except ValidationError:
            self._reject(f"cache entry {path} holds no valid response; treated as a miss")
            return None

    def put(self, key: str, response: ChatResponse) -> None:
        """Record (sign, write and rename into place), durable at the batch's end (`flush`); an entry
        that cannot be written is logged, not raised. A simulated answer (`response.simulated`, which the
        gateway sets only for `upstream: sim`) joins no batch and is never synced: a power cut may lose it
        and it is then simulated again, for nothing; a kill -9 loses none (the rename is done)."""
        secret = self._load_secret()
        if secret is None:
            return
        path = self.path(key)
        try:
            write_unsynced(path, _record_text(secret, key, response), self._folders)
        except OSError as exc:
            _log.warning(
                "cannot record cache entry %s (%s); the answer is used but not cached",
                path,
                exc.strerror or type(exc).__name__,
            )
            return
        if response.simulated:
            return
        with self._lock:
            if not self._pending:
                self._batch_started = time.monotonic()
            self._pending.append(path)
            full = len(self._pending) >= FLUSH_EVERY or time.monotonic() - self._batch_started >= FLUSH_AFTER_S
        if full:
            self.flush()

    @property
    def pending(self) -> int:
        """Entries recorded but not yet synced: whole after a crash of this process, not after a power cut."""
        with self._lock:
            return len(self._pending)

    def flush(self) -> int:
        """End the batch: every entry recorded so far is durable when this returns; how many it synced.

        A sync that fails is logged and counts nothing: those entries are whole on disk but are not
        reported durable (a later power cut may lose them, and they are then asked again).
        """
        with self._flush_lock:  # one sync at a time; entries recorded meanwhile wait for the next
            with self._lock:
                batch, self._pending = self._pending, []
            if not batch:
                return 0
            try:
                # The files this batch wrote and their folders, never syncfs(2): that flushes the whole
                # filesystem, other processes' writes included, and costs what the neighbours have pending.
                fsync_each(batch)
            except OSError as exc:
                _log.warning(
                    "cannot sync %d cache entries under %s (%s); they may not survive a power cut",
                    len(batch),
                    self.root,
                    exc.strerror or type(exc).__name__,
                )
                return 0
            with self._lock:
                self.synced += len(batch)
            return len(batch)

    @contextmanager
    def syncing(self, *, every_entry: bool) -> Iterator[None]:
        """Sync the batch in a thread while the block runs (an upstream call, which mostly waits), and wait
        for it at the block's end: what was recorded before the block is then as durable as a `flush` makes
        it, without the fsyncs on the call's own time. Only a batch that is due (FLUSH_EVERY entries or
        FLUSH_AFTER_S seconds old), unless `every_entry`: a live call waits hundreds of milliseconds for
        its model, so each syncs every entry recorded before it and the batch left at close is one entry."""
        with self._lock:
            due = bool(self._pending) and (
                every_entry
                or len(self._pending) >= FLUSH_EVERY
                or time.monotonic() - self._batch_started >= FLUSH_AFTER_S
            )
        # A sync already running (another thread's call) will be followed by a later one: not waited for here.
        if not due or self._flush_lock.locked():
            yield
            return
        syncer = threading.Thread(target=self.flush, name="cache-sync", daemon=True)
        syncer.start()
        try:
            yield
        finally:
            syncer.join()

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    @staticmethod
    def _genuine(secret: bytes, key: str, raw: dict[str, Any]) -> bool:
        content, mac = raw.get("response_sha256"), raw.get("mac")
        if raw.get("key") != key or not isinstance(content, str) or not isinstance(mac, str):
            return False
        if not hmac.compare_digest(content, digest(raw.get("response"))):
            return False
        return hmac.compare_digest(mac, _mac(secret, key, content))

    def _reject(self, message: str) -> None:
        with self._lock:
            self.rejected += 1
        _log.warning("%s", message)

    def _load_secret(self) -> bytes | None:
        """The key file's 32 bytes, made once if absent; read once per cache object."""
        with self._lock:
            if not self._secret_loaded:
                self._secret = self._read_or_make_secret()
                self._secret_loaded = True
            return self._secret

    def _read_or_make_secret(self) -> bytes | None:
        path = self.key_file
        try:
            if not path.exists():
                make_key(path)
            secret = path.read_bytes()
        except OSError as exc:
            _log.warning(
                "cache key file %s cannot be used (%s); every cache entry is a miss",
                path,
                exc.strerror or type(exc).__name__,
            )
            return None
        if len(secret) != KEY_BYTES:
            _log.warning(
                "cache key file %s is not a %d-byte key; every cache entry is a miss until it is"
                " moved away (a new key is then made and the old entries are misses)",
                path,
                KEY_BYTES,
            )
            return None
        return secret


def _record_text(secret: bytes, key: str, response: ChatResponse) -> str:
    """canonical_dumps(record, indent=None) of the entry's record, its response serialised once (the same text
    is hashed and written): the keys in sorted order, each value in the same compact canonical JSON."""
    body = canonical_dumps(response.model_dump(mode="json"), indent=None)
    content = hashlib.sha256(body.encode()).hexdigest()
    return (
        f'{{"key":{canonical_dumps(key, indent=None)},"mac":"{_mac(secret, key, content)}","response":{body},'
        f'"response_sha256":"{content}","schema_version":{CACHE_SCHEMA_VERSION}}}'
    )


def _mac(secret: bytes, key: str, content: str) -> str:
    message = canonical_dumps({"v": CACHE_SCHEMA_VERSION, "key": key, "response_sha256": content}, indent=None)
    return hmac.new(secret, message.encode(), hashlib.sha256).hexdigest()


def sync_filesystem(path: Path) -> bool:
    """syncfs(2) on the filesystem holding `path`: one call makes every file and rename on it durable.
    False where there is none (not Linux, no libc symbol); an OSError when the sync itself fails.

    The cache no longer calls it (`flush` fsyncs what it wrote); benchmarks/cache_fsyncs.py still
    measures it as the earlier way."""
    syncfs = _syncfs()
    if syncfs is None:
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        if syncfs(fd) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, os.strerror(errno))
    finally:
        os.close(fd)
    return True


@functools.cache
def _syncfs() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        function: Callable[[int], int] = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    return function


def cache_root(home: Path) -> Path:
    return home / "cache" / "llm"
