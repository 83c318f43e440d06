"""The ``tablebase`` command: a thin typer layer that parses arguments, calls the library
and prints. Errors become one ``error: ...`` line and an exit code in one place,
:class:`~tablebase.faces.cli.group.ErrorReportingGroup`: 2 for a usage error, 1 for any other.

Its commands, in the order the help lists them (:data:`COMMANDS`), live by what they do:
building (``games``, ``build``), querying (``query``, ``line``), files (``export``,
``plot``), checking (``verify``, ``check``), listing (``info``), serving (``serve``) and db
(``db current``, ``db upgrade``, ``db repack``). A command line imports only its command's
module (:func:`main`): ``query`` leaves the builder, the checker and the server unloaded.
:data:`app` is the whole command, every command registered.
"""

from __future__ import annotations

import importlib
import sys
from importlib.metadata import version as installed_version
from typing import Annotated

import typer

from tablebase.faces.cli.group import Command, ErrorReportingGroup, help_without_command

COMMANDS = {
    "games": "building",
    "build": "building",
    "query": "querying",
    "line": "querying",
    "export": "files",
    "verify": "checking",
    "check": "checking",
    "info": "listing",
    "serve": "serving",
    "plot": "files",
    "db": "db",
}
"""Each command's module of this package, in the order the help lists them."""

DB_COMMANDS = ("current", "upgrade", "repack")
"""The commands of ``tablebase db``: ``db_current`` and so on in module ``db``."""


def make_app(only: str | None = None) -> typer.Typer:
    """The ``tablebase`` command as a typer app: every command of :data:`COMMANDS`, or
    only the one named ``only``, whose module alone is then imported.

    :raises KeyError: if ``only`` names no command.
    """
    app = typer.Typer(
        cls=ErrorReportingGroup,
        add_completion=False,
        pretty_exceptions_enable=False,
        help="Build and query endgame tablebases of two-player games.",
    )
    app.callback(invoke_without_command=True)(_main)
    for name in [only] if only else COMMANDS:
        module = importlib.import_module(f"{__name__}.{COMMANDS[name]}")
        if name == "db":
            app.add_typer(_db_app(module), name="db")
        else:
            app.command(cls=Command)(getattr(module, name))
    return app


def _db_app(module: object) -> typer.Typer:
    """``tablebase db``'s group of :data:`DB_COMMANDS`."""
    db_app = typer.Typer(cls=ErrorReportingGroup, help="Manage the database schema (Alembic).")
    db_app.callback(invoke_without_command=True)(_db_main)
    for name in DB_COMMANDS:
        db_app.command(name, cls=Command)(getattr(module, f"db_{name}"))
    return db_app


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"tablebase {installed_version('tablebase')}")
        raise typer.Exit()


def _main(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Build and query endgame tablebases of two-player games."""
    help_without_command(ctx)


def _db_main(ctx: typer.Context) -> None:
    """Manage the database schema (Alembic)."""
    help_without_command(ctx)


def main() -> None:
    """Entry point of the ``tablebase`` command: the app of the command that
    ``sys.argv`` names first, or of every command (help, a mistyped name: "did you
    mean")."""
    named = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] in COMMANDS else None
    make_app(named)()


def __getattr__(name: str) -> typer.Typer:
    """:data:`app`, made at its first use (PEP 562): the whole command, for tests and
    for Python callers (``typer.testing.CliRunner().invoke(app, ...)``)."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()["app"] = whole = make_app()
    return whole
