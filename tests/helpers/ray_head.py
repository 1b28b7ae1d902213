"""A Ray head on loopback for one test module (`--executor ray` runs reach it through --ray-address).

Ray start is seconds, so a module starts one (module-scoped fixture) and every test in it uses it. The
head runs in a child process on 127.0.0.1 with Ray's token authentication, a token of this test process's
in the environment (nothing is written to ~/.ray); it is stopped with that child. `skip_without_ray` skips
a module when Ray is not installed, except in CI, which installs the extra (scripts/check).
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator

import pytest

_HEAD = """
import os, sys
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # one machine: everything on 127.0.0.1
import ray
ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.read()
ray.shutdown()
"""


def skip_without_ray() -> None:
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI"):
            pytest.fail("CI installs the ray extra (scripts/check): Ray is missing", pytrace=False)
        pytest.skip("Ray is not installed (pip install 'ratchet[ray]')", allow_module_level=True)


_TOKEN = secrets.token_hex(32)
"""One token for every head of this test process: Ray reads its token once per process, so a second
head with another one would be refused to this process (a driver connecting as a client would)."""


def loopback_head() -> Iterator[str]:
    """The address of a Ray head on loopback (wrap it in a module-scoped fixture); stopped when done."""
    auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": _TOKEN}
    mp = pytest.MonkeyPatch()
    for key, value in auth.items():
        mp.setenv(key, value)
    head = subprocess.Popen(
        [sys.executable, "-c", _HEAD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    assert head.stdout is not None and head.stdin is not None
    address = head.stdout.readline().strip()
    try:
        assert address.startswith("127.0.0.1:"), address
        yield address
    finally:
        mp.undo()
        head.stdin.close()
        head.stdout.close()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
