"""`ratchet proxy --model-alias`: a bad alias is refused in one line before the proxy serves."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    "alias, message",
    [
        (
            "claude-sonnet-4-5",
            "error: --model-alias 'claude-sonnet-4-5': write NAME=TIER, e.g. --model-alias claude-sonnet-4-5=agent\n",
        ),
        (
            "claude-*=wizard",
            "error: --model-alias claude-*=wizard: 'wizard' is not a configured tier "
            "(agent, injector, nano, super, ultra)\n",
        ),
    ],
)
def test_a_bad_model_alias_is_refused_before_serving(tmp_path: Path, alias: str, message: str) -> None:
    # The port is taken, so a proxy that wrongly started would fail to bind (exit 1), not hang.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        result = runner.invoke(
            app,
            [
                "proxy",
                "--port",
                port,
                "--model-alias",
                alias,
                "--project",
                str(tmp_path),
                "--work",
                str(tmp_path / "home"),
            ],
        )
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message)
