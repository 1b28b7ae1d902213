"""The demo's changed-argument edit, recorded as a pending trace over the blessed demo repository."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import git
import pytest

from ratchet.bless.record import record_tasks
from ratchet.config.project import Project, load_project
from ratchet.setup.demo import EDITS, apply_edit

CHANGED_TASK = "github-triage-02"  # labelled priority/normal by its golden, priority/medium under the edit
CHROMIUM = Path("/usr/bin/chromium")
UNDER_CI = bool(os.environ.get("CI"))  # read at import: the demo_repo fixture unsets CI for the gate's sake


@pytest.fixture
def changed_argument(demo_repo: Path) -> Project:
    """The demo repo on its changed-argument branch, with a pending trace of CHANGED_TASK."""
    edit = next(e for e in EDITS if e.branch == "edit/changed-argument")
    apply_edit(demo_repo, edit)
    git.Repo(demo_repo).git.checkout("-q", edit.branch)
    project = load_project(demo_repo)
    result = record_tasks(project, [CHANGED_TASK])
    assert result.written == [CHANGED_TASK] and not result.errors
    return project


@pytest.fixture
def chromium() -> Iterator[object]:
    """A headless Debian Chromium driven by Playwright (never a downloaded browser).

    Skipped when /usr/bin/chromium is absent outside CI; under CI (env CI set) its absence fails:
    scripts/install_chromium.sh must have run.
    """
    if not CHROMIUM.is_file():
        if not UNDER_CI:
            pytest.skip("no /usr/bin/chromium: run scripts/install_chromium.sh (as root) to run the browser tests")
        pytest.fail("CI is set but /usr/bin/chromium is missing: scripts/install_chromium.sh did not run")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield browser
        finally:
            browser.close()


from tests.bench.conftest import bench_project, built_template  # noqa: E402  (the bench's small built project)

__all__ = ["bench_project", "built_template"]
