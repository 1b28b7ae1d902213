"""Ray for sweeps (`--executor ray` of bench run, mutate and watch): reaching a cluster and spreading work on it.

Ray is an optional extra (`pip install 'ratchet[ray]'`): it is imported only here, only when a command is
asked for `--executor ray`, and a missing Ray is one line naming the extra (exit 2) before anything runs.
What is spread, and how its results are merged as the local run merges them, is each command's own
(ratchet/bench/run/ray_exec.py, ratchet/mutate/on_ray.py, ratchet/watch/on_ray.py); this module holds
what they share: the cluster (an existing one at an address, or a local one started on loopback for the
run) and a pool of actors that takes one call per idle actor. See docs/adr/0028-ray-for-sweeps.md.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import socket
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager, suppress
from typing import Any

from ratchet.core.errors import InfraError, InputError

EXECUTORS = ("local", "ray")
RAY_MISSING = "--executor ray needs Ray, an optional extra: pip install 'ratchet[ray]'"
PROBE_TIMEOUT_S = 3.0


def require_ray() -> None:
    """One line (exit 2) when Ray is not installed; nothing is imported."""
    if importlib.util.find_spec("ray") is None:
        raise InputError(RAY_MISSING)


def checked_executor(executor: str, ray_address: str | None) -> None:
    """An unknown executor, or a --ray-address without Ray, is one line (exit 2); so is a missing Ray."""
    if executor not in EXECUTORS:
        raise InputError(f"--executor {executor!r}: give local or ray")
    if ray_address is not None and executor != "ray":
        raise InputError("--ray-address: only with --executor ray")
    if executor == "ray":
        require_ray()


def on_loopback(address: str | None) -> bool:
    """A local Ray started here (None), or a head at 127.x / localhost / ::1."""
    if address is None:
        return True
    host = address.removeprefix("ray://").rsplit(":", 1)[0].strip("[]")
    return host in ("localhost", "::1") or host.startswith("127.")


def _import_ray(loopback: bool) -> Any:
    """Ray, imported now; on loopback it is told so before it reads its constants."""
    require_ray()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if loopback:
        # Ray resolves "this node" (and a 127.0.0.1 head address) to the machine's routable address
        # unless clusters are off, its own switch for a one-machine Ray: then a head it starts listens
        # on 127.0.0.1 only, and a head given at 127.0.0.1 is reached there.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    return importlib.import_module("ray")


def _refuse_silent(address: str) -> None:
    """One line (exit 3) when nothing accepts a connection at `address`: Ray itself retries a wrong address for as
    long as it is left to (minutes), which would hang the run instead of failing it."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"--ray-address {address}: give the head as HOST:PORT (or ray://HOST:PORT)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT_S):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InfraError(
            f"could not reach a Ray cluster at {address}: {reason}; start the head or fix --ray-address"
        ) from None


@contextmanager
def ray_cluster(address: str | None, num_cpus: int) -> Iterator[Any]:
    """The `ray` module, connected to the cluster at `address` (None: a local one of `num_cpus` CPUs started
    here on loopback, and stopped on exit). A Ray already connected in this process is used as it is and
    left connected."""
    ray = _import_ray(loopback=on_loopback(address))
    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        if address is None:
            options.update(address="local", num_cpus=max(1, num_cpus))
        else:
            _refuse_silent(address)
            options["address"] = address
        try:
            ray.init(**options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise InfraError(f"could not reach a Ray cluster at {address or 'local'}: {exc}") from None
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def ratchet_env() -> dict[str, str]:
    """This process's RATCHET_* variables, given to every actor (provider keys are not shipped)."""
    return {key: value for key, value in os.environ.items() if key.startswith("RATCHET_")}


def unwrapped(exc: BaseException) -> BaseException:
    """The worker's own exception (an InputError stays one line), not Ray's wrapper around it."""
    seen = 0
    while seen < 3 and isinstance(getattr(exc, "cause", None), BaseException):
        exc = exc.cause  # type: ignore[attr-defined]
        seen += 1
    return exc


class ActorCalls:
    """Calls of one method on a set of Ray actors, one call per idle actor (`size` in flight at most); a call
    made while every actor is busy waits in order for the next one free. Each call's Future fails with the
    worker's own exception, not Ray's wrapper."""

    def __init__(self, actors: list[Any]) -> None:
        self.size = len(actors)
        self._idle = list(actors)
        self._waiting: deque[tuple[str, tuple[Any, ...], Future[Any]]] = deque()
        self._lock = threading.Lock()

    def call(self, method: str, *args: Any) -> Future[Any]:
        """`method(*args)` on the next idle actor."""
        result: Future[Any] = Future()
        with self._lock:
            if not self._idle:
                self._waiting.append((method, args, result))
                return result
            actor = self._idle.pop()
        self._send(actor, method, args, result)
        return result

    def drop_waiting(self) -> None:
        """Calls not sent yet are cancelled (a run that stopped early: they will not be asked for)."""
        with self._lock:
            waiting, self._waiting = list(self._waiting), deque()
        for _method, _args, result in waiting:
            result.cancel()

    def _send(self, actor: Any, method: str, args: tuple[Any, ...], result: Future[Any]) -> None:
        def finished(ref: Future[Any]) -> None:
            with self._lock:
                following = self._waiting.popleft() if self._waiting else None
                if following is None:
                    self._idle.append(actor)
            if following is not None:
                self._send(actor, *following)
            failure = ref.exception()
            if failure is not None:
                result.set_exception(unwrapped(failure))
            else:
                result.set_result(ref.result())

        getattr(actor, method).remote(*args).future().add_done_callback(finished)


@contextmanager
def ray_actors(ray: Any, worker: type, spec: Any, count: int) -> Iterator[ActorCalls]:
    """`count` actors of class `worker`, each built from `spec` (one CPU each, this process's RATCHET_*
    variables); each one's `close()` is called and the actor killed on exit."""
    actor_class = ray.remote(num_cpus=1, runtime_env={"env_vars": ratchet_env()})(worker)
    actors = [actor_class.remote(spec) for _ in range(max(1, count))]
    calls = ActorCalls(actors)
    try:
        yield calls
    finally:
        calls.drop_waiting()
        closed = [actor.close.remote() for actor in actors]
        with suppress(Exception):  # an actor that failed to start has nothing to close
            ray.get(closed)
        for actor in actors:
            ray.kill(actor)
