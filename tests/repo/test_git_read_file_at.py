"""read_file_at on bytes that are not UTF-8: one error naming path@rev, not text garbled with U+FFFD."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import ConfigError, InputError
from ratchet.repo.git import INDEX, open_repo
from ratchet.repo.trees import read_file_at
from tests.helpers.gitrepo import git, make_repo


def test_bytes_that_are_not_utf8_are_the_callers_error_naming_path_at_rev(tmp_path: Path) -> None:
    repo_path = make_repo(tmp_path, {"README.md": "hi\n"})
    (repo_path / "ratchet.yaml").write_bytes(b"schema_version: 1\nclock: caf\xe9\n")
    git(repo_path, "add", "ratchet.yaml")
    git(repo_path, "commit", "-q", "--no-verify", "-m", "latin-1 settings")
    sha = git(repo_path, "rev-parse", "HEAD")
    repo = open_repo(repo_path)
    with pytest.raises(ConfigError) as caught:
        read_file_at(repo, sha, "ratchet.yaml", error=ConfigError)
    assert caught.value.one_line() == f"ratchet.yaml@{sha[:10]}:2: not UTF-8 text (byte 28): save the file as UTF-8"
    with pytest.raises(InputError, match=r"^ratchet.yaml@<index>:2: not UTF-8 text"):
        read_file_at(repo, INDEX, "ratchet.yaml")
    assert read_file_at(repo, sha, "README.md") == "hi\n"
