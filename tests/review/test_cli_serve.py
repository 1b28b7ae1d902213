"""`ratchet review --serve` as a person starts it: a real process, the URL it prints, loopback only."""

from __future__ import annotations

import subprocess
import sys

import httpx

from ratchet.config.project import Project
from tests.review.conftest import CHANGED_TASK


def test_serve_prints_a_tokened_loopback_url_that_serves_the_page(changed_argument: Project) -> None:
    with subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from ratchet.cli import main; main()",
            "review",
            "--serve",
            "--project",
            str(changed_argument.root),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert first.startswith("reviewing 1 item(s) at http://127.0.0.1:") and "/?token=" in first
            url = first.rsplit(" ", 1)[1].strip()
            page = httpx.get(url, timeout=10)
            assert page.status_code == 200 and f'data-item="{CHANGED_TASK}"' in page.text
            assert httpx.get(url.split("?", 1)[0], timeout=10).status_code == 401
        finally:
            proc.terminate()
            proc.wait(timeout=10)
