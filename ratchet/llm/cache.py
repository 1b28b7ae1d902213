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
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import tempfile
import threading
from contextlib import suppress
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ratchet.errors import InputError
from ratchet.jsonio import atomic_write_text, canonical_dumps, digest, load_json_file
from ratchet.llm.types import ChatRequest, ChatResponse

CACHE_SCHEMA_VERSION = 2
_REQUEST_DIGEST_VERSION = 1  # part of every request digest (goldens keep theirs): bump only to re-key everything
KEY_FILE = ".key"
_KEY_BYTES = 32

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
    """sha256 over model, api base and the whole request in canonical (sorted-key) JSON."""
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
        self._secret: bytes | None = None
        self._secret_loaded = False
        self._lock = threading.Lock()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    @property
    def key_file(self) -> Path:
        return self.root / KEY_FILE

    def get(self, key: str) -> ChatResponse | None:
        """The recorded answer for `key`, or None: absent, old schema, unreadable or not ours."""
        path = self.path(key)
        if not path.exists():
            return None
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
        """Record (sign and write atomically); an entry that cannot be written is logged, not raised."""
        secret = self._load_secret()
        if secret is None:
            return
        body = response.model_dump(mode="json")
        content = digest(body)
        record = {"schema_version": CACHE_SCHEMA_VERSION, "key": key, "response": body,
                  "response_sha256": content, "mac": _mac(secret, key, content)}
        try:
            atomic_write_text(self.path(key), canonical_dumps(record))
        except OSError as exc:
            _log.warning("cannot record cache entry %s (%s); the answer is used but not cached",
                         self.path(key), exc.strerror or type(exc).__name__)

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
                _make_secret(path)
            secret = path.read_bytes()
        except OSError as exc:
            _log.warning("cache key file %s cannot be used (%s); every cache entry is a miss",
                         path, exc.strerror or type(exc).__name__)
            return None
        if len(secret) != _KEY_BYTES:
            _log.warning("cache key file %s is not a %d-byte key; every cache entry is a miss until it is"
                         " moved away (a new key is then made and the old entries are misses)", path, _KEY_BYTES)
            return None
        return secret


def _mac(secret: bytes, key: str, content: str) -> str:
    message = canonical_dumps({"v": CACHE_SCHEMA_VERSION, "key": key, "response_sha256": content}, indent=None)
    return hmac.new(secret, message.encode(), hashlib.sha256).hexdigest()


def _make_secret(path: Path) -> None:
    """Write a fresh key, private from its first byte; the first of racing writers wins (link, no replace)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".key.", suffix=".tmp", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(_KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        with suppress(FileExistsError):  # another process made it first: use theirs
            os.link(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def cache_root(home: Path) -> Path:
    return home / "cache" / "llm"
