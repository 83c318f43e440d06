"""The ``tablebase`` command: a thin typer layer that parses arguments, calls the library
and prints. Errors become one ``error: ...`` line and an exit code in one place,
:class:`~tablebase.faces.cli.group.ErrorReportingGroup`: 2 for a usage error, 1 for any other.

Its commands, in the order the help lists them, live by what they do: building
(``games``, ``build``), querying (``query``, ``line``), files (``export``, ``plot``),
checking (``verify``, ``check``), listing (``info``), serving (``serve``) and db
(``db current``, ``db upgrade``, ``db repack``).
"""

from __future__ import annotations

from importlib.metadata import version as installed_version
from typing import Annotated

import typer

from tablebase.faces.cli import building, checking, db, files, listing, querying, serving
from tablebase.faces.cli.group import Command, ErrorReportingGroup, help_without_command

app = typer.Typer(
    cls=ErrorReportingGroup,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Build and query endgame tablebases of two-player games.",
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"tablebase {installed_version('tablebase')}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def _main(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Build and query endgame tablebases of two-player games."""
    help_without_command(ctx)


for _command in (
    building.games,
    building.build,
    querying.query,
    querying.line,
    files.export,
    checking.verify,
    checking.check,
    listing.info,
    serving.serve,
    files.plot,
):
    app.command(cls=Command)(_command)

db_app = typer.Typer(cls=ErrorReportingGroup, help="Manage the database schema (Alembic).")
app.add_typer(db_app, name="db")


@db_app.callback(invoke_without_command=True)
def _db_main(ctx: typer.Context) -> None:
    """Manage the database schema (Alembic)."""
    help_without_command(ctx)


for _name, _command in (("current", db.db_current), ("upgrade", db.db_upgrade), ("repack", db.db_repack)):
    db_app.command(_name, cls=Command)(_command)


def main() -> None:
    """Entry point of the ``tablebase`` command."""
    app()
