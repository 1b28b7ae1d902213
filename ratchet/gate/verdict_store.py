"""Stored verdicts: a repeat `ratchet check` of the same inputs answers from the verdict it gave before.

The key is everything that can change the answer, read without the gate: the base commit and the head
commit (or the index file for --staged; either pins the tree), the working directory and repository, the
options that change the verdict (gate config, harness, on_error, budget, cache mode, agent model,
live Tavily), the content of a gate config kept outside the repository and of the files it names, the
RATCHET_* and GIT_* environment and PATH (where a harness binary is looked up), and Ratchet's version with a stamp
of its installed files. What the base's ratchet.yaml and configs/ say is pinned by the base commit
(docs/adr/0011). A harness binary (claude, codex) is pinned by its path, size and modification time,
checked on every answer: an upgrade replaces the file, and running `--version` would cost more than the
check this saves.

This module is on `ratchet check`'s fast path, whose goal is the cost of `ratchet --version`: it imports
the standard library only (and, lazily, the response cache's key, which the command line has loaded
already) and asks git with one `rev-parse`. Anything it cannot read is a miss, never an
error: the full check then runs and names the problem.

The key names the commits as shas resolved once: the check is given those shas, and a verdict is stored
only when it names them (and, for --staged, the index is unchanged after the check), so a ref that moves
meanwhile can never file one commit's verdict under another's key. Every entry is signed (HMAC-SHA256)
with the work area's response-cache key (docs/cache.md): an edited, foreign, symlinked or unsigned entry
is a miss, and wiping the work area or moving its `.key` clears the stored verdicts.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import itertools
import json
import os
import stat
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ratchet
from ratchet.core.keyfile import KEY_FILE, read_key

STORE_SCHEMA_VERSION = 2  # 2: signed entries
FOLDER = "verdicts"
ENV_SWITCH = "RATCHET_VERDICT_CACHE"
"""`0`, `off`, `false` or `no` turns stored verdicts off (neither read nor written)."""
_OFF = ("0", "off", "false", "no")
_GIT_TIMEOUT_S = 30.0
_MAX_NAMED_FILES = 200


@dataclass(frozen=True)
class StoreKey:
    """Where a verdict for these inputs is stored: `digest` names the entry under `home`/verdicts."""

    home: Path
    digest: str
    toplevel: Path
    base: str
    head: str | None
    """The head commit's sha; None for --staged (then `index` pins the tree)."""
    index: str | None = None
    index_path: Path | None = None

    @property
    def path(self) -> Path:
        return self.home / FOLDER / f"{self.digest}.json"


@dataclass(frozen=True)
class Stored:
    """A stored verdict: its JSON object and when it was stored."""

    verdict: dict[str, Any]
    stored_at: str
    digest: str

    @property
    def answered_from(self) -> str:
        """The verdict's `answered_from`: which stored verdict answered, e.g. 'a stored verdict of <when> (<id>)'."""
        return f"a stored verdict of {self.stored_at} (entry {self.digest[:12]})"


def enabled() -> bool:
    """False when RATCHET_VERDICT_CACHE turns stored verdicts off."""
    return os.environ.get(ENV_SWITCH, "").strip().lower() not in _OFF


def store_key(
    repo: Path,
    *,
    base: str,
    head: str | None,
    staged: bool,
    home_for: Callable[[Path], Path],
    options: Mapping[str, Any],
) -> StoreKey | None:
    """The key of this check, or None when it cannot be read cheaply (a miss: the full check runs).

    `home_for` gives Ratchet's work area for the repository's top folder: the store is under it.
    """
    revs = [base] if staged else [base, head or "HEAD"]
    if any(not rev or rev.startswith("-") for rev in revs):
        return None
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel", "--git-path", "index", *(f"{rev}^{{commit}}" for rev in revs)],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.splitlines()
    if out.returncode != 0 or len(lines) != 2 + len(revs):
        return None
    toplevel, index, shas = lines[0], lines[1], lines[2:]
    material: dict[str, Any] = {
        "schema": STORE_SCHEMA_VERSION,
        "ratchet": ratchet.__version__,
        "installed": _installed_stamp(),
        "cwd": os.getcwd(),
        "repo": toplevel,
        "base": shas[0],
        "head": shas[1] if not staged else None,
        # The index pins the staged tree (its stat data may make a false miss, never a false hit).
        "index": _file_digest(Path(repo) / index) if staged else None,
        "options": dict(options),
        "config_files": _config_files(str(options.get("config", "")), Path(toplevel)),
        "env": {k: v for k, v in sorted(os.environ.items()) if k.startswith(("RATCHET_", "GIT_")) or k == "PATH"},
    }
    if (staged and material["index"] is None) or material["config_files"] is None:
        return None
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), default=str)
    return StoreKey(
        home=home_for(Path(toplevel)),
        digest=hashlib.sha256(text.encode()).hexdigest(),
        toplevel=Path(toplevel),
        base=shas[0],
        head=material["head"],
        index=material["index"],
        index_path=Path(repo) / index if staged else None,
    )


def checked_under(key: StoreKey, *, base: str, head: str) -> bool:
    """Whether a verdict of `base` -> `head` is the check `key` names: the same commits (for --staged, the
    base and an index unchanged since the key was read). A ref or the index moved during the check: False."""
    if base != key.base:
        return False
    if key.index_path is not None:
        return key.index is not None and _file_digest(key.index_path) == key.index
    return head == key.head


def load(key: StoreKey) -> Stored | None:
    """The verdict stored under `key`; None when absent, unreadable, corrupt, or a binary it ran changed."""
    try:
        # A symlink (the entry or its folder) could point at anything: only a plain file we wrote is read.
        if any(stat.S_ISLNK(os.lstat(p).st_mode) for p in (key.path.parent, key.path)):
            return None
        secret = _secret(key.home, make=False)
        if secret is None:
            return None
        entry = json.loads(key.path.read_text(encoding="utf-8"))
        if entry["schema"] != STORE_SCHEMA_VERSION or entry["key"] != key.digest:
            return None
        mac = entry.pop("mac")
        if not isinstance(mac, str) or not hmac.compare_digest(mac, _mac(secret, entry)):
            return None
        if any(_binary_stamp(Path(path)) != stamp for path, stamp in entry["binaries"]):
            return None
        verdict, stored_at = entry["verdict"], entry["stored_at"]
        if not isinstance(verdict, dict) or not isinstance(stored_at, str):
            return None
        return Stored(verdict=verdict, stored_at=stored_at, digest=key.digest)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(key: StoreKey, verdict: Mapping[str, Any], *, binaries: Sequence[Path] = ()) -> None:
    """Store `verdict` under `key`, atomically; a store that cannot be written is skipped (only speed is lost)."""
    secret = _secret(key.home, make=True)
    if secret is None:
        return
    entry: dict[str, Any] = {
        "schema": STORE_SCHEMA_VERSION,
        "key": key.digest,
        "stored_at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "binaries": [[str(path), _binary_stamp(path)] for path in binaries],
        "verdict": verdict,
    }
    entry["mac"] = _mac(secret, entry)
    try:
        key.path.parent.mkdir(parents=True, exist_ok=True)
        if key.path.parent.is_symlink():
            return
        fd, tmp = tempfile.mkstemp(prefix=f".{key.path.name}.", suffix=".tmp", dir=key.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(entry, handle, sort_keys=True)
            os.replace(tmp, key.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return


def _mac(secret: bytes, entry: Mapping[str, Any]) -> str:
    """HMAC-SHA256 over the whole entry but its mac (the key digest and the verdict included), canonical JSON."""
    text = json.dumps(entry, sort_keys=True, separators=(",", ":"))
    return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()


def _secret(home: Path, *, make: bool) -> bytes | None:
    """The work area's response-cache key (ratchet.llm.cache): made when storing and absent, never when reading."""
    from ratchet.llm.cache import cache_root

    return read_key(cache_root(home) / KEY_FILE, make=make)


def _file_digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _binary_stamp(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _installed_stamp() -> str:
    """A digest of the names, sizes and modification times of Ratchet's installed files: an edited or upgraded
    Ratchet (the packaged gate configs too) misses even when the version string did not move."""
    root = Path(ratchet.__file__).parent
    rows: list[str] = []
    pending = [root]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        pending.append(Path(entry.path))
                elif not entry.name.endswith((".pyc", ".pyo")):
                    st = entry.stat()
                    rows.append(f"{entry.path}\0{st.st_size}\0{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(sorted(rows)).encode()).hexdigest()


def _config_files(config: str, toplevel: Path) -> dict[str, str | None] | None:
    """A gate config given by a path outside the repository, and the files it names: their contents' digests.

    One inside the repository is read at the base, which the base commit pins already (docs/adr/0011). None
    when it names a folder too large to read on the fast path: no stored verdict for such a check.
    """
    path = Path(config).expanduser()
    if not config or not path.is_file():
        return {}
    path = path.resolve()
    if path.is_relative_to(toplevel.resolve()):
        return {}
    found = {str(path): _file_digest(path)}
    try:
        import yaml  # already loaded by the command line; only a config outside the repository reaches here

        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return found
    for value in _strings(data):
        named = (path.parent / value).resolve() if not Path(value).is_absolute() else Path(value)
        files = _files_under(named)
        if files is None:
            return None
        for file in files:
            found[str(file)] = _file_digest(file)
    return found


def _strings(data: Any) -> list[str]:
    if isinstance(data, str):
        return [data] if data and len(data) < 4096 and "\n" not in data else []
    if isinstance(data, dict):
        return [s for value in data.values() for s in _strings(value)]
    if isinstance(data, list):
        return [s for value in data for s in _strings(value)]
    return []


def _files_under(path: Path) -> list[Path] | None:
    """The files `path` names (itself, or those under the folder it is); None past _MAX_NAMED_FILES."""
    try:
        if path.is_file():
            return [path]
        if path.is_dir():
            # Stop at one past the limit: a huge folder is not walked on the fast path only to be refused.
            found = list(itertools.islice((p for p in path.rglob("*") if p.is_file()), _MAX_NAMED_FILES + 1))
            return sorted(found) if len(found) <= _MAX_NAMED_FILES else None
    except (OSError, ValueError):
        return []
    return []
