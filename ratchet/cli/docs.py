"""`ratchet docs`: where the documentation installed with Ratchet is.

Why: help, messages and the files `ratchet init` writes name pages as `docs/<page>.md`. The docs
folder ships inside the package (ratchet/data/docs), so an installed Ratchet has every page a
message names; this command says where it is, for a wheel in a venv as for a clone.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import typer

from ratchet.core.errors import InputError


def page_parts(name: str) -> tuple[str, ...]:
    """`world`, `world.md` or `docs/world.md` -> ('world.md',); None of it may leave the docs folder."""
    path = PurePosixPath(name.removeprefix("docs/"))
    if not path.name.endswith(".md"):
        path = path.with_name(f"{path.name}.md")
    if path.is_absolute() or ".." in path.parts:
        return ()
    return path.parts


def register(app: typer.Typer) -> None:
    @app.command()
    def docs(
        page: str | None = typer.Argument(
            None, metavar="PAGE", help="A page, e.g. world or review (docs/world.md, docs/review.md)."
        ),
    ) -> None:
        """Print where a documentation page is installed, or with no PAGE the docs folder.

        Messages name pages as docs/<page>.md; the folder ships inside the package, so an installed
        Ratchet has them: e.g. `less "$(ratchet docs world)"`.
        """
        from ratchet.data import packaged, packaged_file

        if page is None:
            typer.echo(str(packaged_file("docs")))
            return
        parts = page_parts(page)
        if not parts or not packaged("docs", *parts).is_file():
            pages = sorted(
                entry.name.removesuffix(".md")
                for entry in packaged("docs").iterdir()
                if entry.is_file() and entry.name.endswith(".md")
            )
            raise InputError(
                f"no page docs/{page}: `ratchet docs PAGE` takes one of {', '.join(pages)} (or adr/<name>)"
            )
        typer.echo(str(packaged_file("docs", *parts)))
