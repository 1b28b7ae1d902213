"""The `ratchet` command line. Thin: each command parses, calls one public function, prints."""

from __future__ import annotations

# isort: off
from ratchet.cli import interrupt  # first: a Ctrl-C while the rest loads exits 130 in one line (see the module)
# isort: on

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, cast

import typer

from ratchet import __version__
from ratchet.cli import bench, ci, demo, gate, golden, hook, init, mcp, proxy, review, validate
from ratchet.cli import diff as diff_cli
from ratchet.cli import docs as docs_cli
from ratchet.cli import judges as judges_cli
from ratchet.cli import merge as merge_cli
from ratchet.cli import mutate as mutate_cli
from ratchet.cli import store as store_cli
from ratchet.cli import tasks as tasks_cli
from ratchet.cli import triggers as triggers_cli
from ratchet.cli import watch as watch_cli
from ratchet.config.env import debug_enabled
from ratchet.core.errors import RatchetError


def _flags_show_no_type() -> None:
    """A flag takes no value, so --help names none for it.

    Why: typer's rich help prints every option's type, `<bool>` for a flag too (`--staged <bool>`,
    `--help <bool>`), which reads as if the flag wanted `true` or `false` after it. Options that
    take a value keep their type (`--base <str>`). A typer without the hook renders flags bare already.
    """
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "ratchet_flags_bare", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else cast("str | None", shown(self, ctx))

    display_type_rich.ratchet_flags_bare = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flags_show_no_type()

app = typer.Typer(
    name="ratchet",
    help="Pre-merge regression gate for agent skills.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"ratchet {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Pre-merge regression gate for agent skills."""


init.register(app)
validate.register(app)
gate.register(app)
diff_cli.register(app)
merge_cli.register(app)
demo.register(app)
golden.register(app)
hook.register(app)
review.register(app)
ci.register(app)
proxy.register(app)
mcp.register(app)
bench.register(app)
mutate_cli.register(app)
watch_cli.register(app)
triggers_cli.register(app)
store_cli.register(app)
tasks_cli.register(app)
judges_cli.register(app)
docs_cli.register(app)


def _friendly(callback: Callable[..., Any]) -> Callable[..., Any]:
    """RatchetError -> one line on stderr and its exit code, also under CliRunner."""

    @functools.wraps(callback)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except RatchetError as exc:
            if debug_enabled():
                raise
            typer.echo(f"error: {exc.one_line()}", err=True)
            raise typer.Exit(exc.exit_code) from None

    return wrapper


def _wrap_commands(typer_app: typer.Typer) -> None:
    for info in typer_app.registered_commands:
        if info.callback is not None:
            info.callback = _friendly(info.callback)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _wrap_commands(group.typer_instance)


_wrap_commands(app)
interrupt.started()


def main() -> None:
    """Console entry point: RatchetError -> one line on stderr and its exit code; Ctrl-C -> one line, exit 130."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        with interrupt.raising():
            app()
    except RatchetError as exc:
        if debug_enabled():
            raise
        typer.echo(f"error: {exc.one_line()}", err=True)
        sys.exit(exc.exit_code)
    except (interrupt.Interrupted, KeyboardInterrupt):
        typer.echo(interrupt.MESSAGE, err=True)
        sys.exit(interrupt.EXIT_INTERRUPTED)
