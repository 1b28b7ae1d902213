"""Commits in repositories Ratchet owns (the demo's, the benchmark's scratch copies), never the user's.

Made with git itself, not GitPython's index: git reads GIT_AUTHOR_DATE and GIT_COMMITTER_DATE in every
form it documents, where GitPython's commit parses them again and refuses ISO 8601 with an offset. The
user's hooks and signing settings are left out: the repository is Ratchet's, not theirs.
"""

from __future__ import annotations

import os

import git


def commit_all(repo: git.Repo, message: str, author: git.Actor) -> str:
    """Stage everything in the work tree and commit it as `author` (also the committer); the new sha."""
    repo.git.add("-A")
    name, email = author.name or "", author.email or ""
    identity = {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }
    settings = ["-c", "commit.gpgsign=false", "-c", f"core.hooksPath={os.devnull}"]  # none of the user's hooks
    repo.git.execute(["git", *settings, "commit", "-q", "--no-verify", "--allow-empty", "-m", message], env=identity)
    return repo.head.commit.hexsha
