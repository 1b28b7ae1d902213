"""Parsed files kept on disk by content, so a fresh process does not parse or tokenize them again.

Why: at 10,000 goldens a check's first selection spent most of its time parsing tasks.yaml and
tokenizing every prompt, work that gives the same answer for the same bytes every time. An entry
is named by a digest of its kind, Ratchet's version, the reader's own version and the content it
was made from (a git blob id, or a digest of the text), so a changed file or a newer Ratchet asks
for another name: a stale entry can never be served. Each entry starts with an HMAC-SHA256 of its
name and body under a random key made once in <home>/cache/parsed/.key (0600), as the response
cache signs its entries (docs/cache.md): what selection reads decides which goldens are replayed,
so an entry anyone could write would choose verdicts. An entry that does not match its MAC (torn,
truncated, edited, copied from another work area) or does not parse is ignored and written again.
Writes go to a temp file renamed into place: readers never see half an entry. No fsync: a lost or
torn entry costs a rebuild, never a wrong answer.

Under the work area (RATCHET_HOME or --work): <home>/cache/parsed/<2 hex>/<digest>.json.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ratchet.core.keyfile import KEY_FILE, read_key
from ratchet.core.labels import __version__

PARSED_DIR = ("cache", "parsed")


def blob_id(data: bytes) -> str:
    """Git's blob id of these bytes (what `git hash-object` prints), for content read from disk."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class ParsedCache:
    """Values (JSON) by (kind, reader version, content id), under a work area."""

    def __init__(self, home: Path) -> None:
        self.root = home.joinpath(*PARSED_DIR)
        self._secret: bytes | None = None

    def _path(self, kind: str, version: int, content: str) -> Path:
        name = hashlib.sha256(json.dumps([kind, version, __version__, content]).encode()).hexdigest()
        return self.root / name[:2] / f"{name}.json"

    def _key(self, *, make: bool) -> bytes | None:
        """The work area's key (made when `make` and there is none); None when there is none to use."""
        if self._secret is None:
            self._secret = read_key(self.root / KEY_FILE, make=make)
        return self._secret

    def _mac(self, secret: bytes, path: Path, body: bytes) -> bytes:
        return hmac.new(secret, path.name.encode() + b"\n" + body, hashlib.sha256).hexdigest().encode()

    def get(self, kind: str, version: int, content: str) -> Any | None:
        """The stored value, or None when there is none or it is damaged (then put() writes it again)."""
        path = self._path(kind, version, content)
        try:
            raw = path.read_bytes()
            secret = self._key(make=False)
            mac, _, body = raw.partition(b"\n")
            if secret is None or not hmac.compare_digest(self._mac(secret, path, body), mac):
                return None
            return json.loads(body)
        except (OSError, ValueError):
            return None

    def put(self, kind: str, version: int, content: str, value: Any) -> None:
        """Store a value; a work area that cannot be written to only means no cache (never an error)."""
        path = self._path(kind, version, content)
        try:
            body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
            secret = self._key(make=True)
            if secret is None:
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(self._mac(secret, path, body) + b"\n" + body)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except (OSError, ValueError):  # ValueError: a value JSON cannot carry (no such value is ever cached)
            return
