"""The commands that write a tablebase to a file: ``export`` (its values) and ``plot``
(its histogram)."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from tablebase.core.errors import UsageError
from tablebase.faces.cli.options import DbOpt, GameArg, ParamsOpt, named_game
from tablebase.store import open_store
from tablebase.tools.export import atomic_file, check_format
from tablebase.tools.export import export as export_tablebase
from tablebase.tools.plot import image_format as image_format_of
from tablebase.tools.plot import tablebase_histogram
from tablebase.util.progress import silent, tqdm_stages


def export(
    game: GameArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    file_format: Annotated[str, typer.Option("--format", metavar="csv|parquet", help="csv or parquet.")] = "csv",
    output: Annotated[
        str, typer.Option("--output", "-o", metavar="PATH", help="File to write, replaced only once complete; - for stdout (CSV).")
    ] = "-",
    positions: Annotated[
        bool, typer.Option("--positions/--no-positions", help="Write each position's text.")
    ] = True,
) -> None:
    """Write every stored position with its outcome and remoteness, in key order."""
    instance = named_game(game, param)
    check_format(file_format)  # before opening the database, so a usage error comes first
    with open_store(db, create=False) as store:
        if output == "-":
            if file_format != "csv":
                raise UsageError(f"{file_format} export needs a file: give --output PATH")
            shown = silent if sys.stdout.isatty() else tqdm_stages  # no bar among the rows on a terminal
            try:
                export_tablebase(instance, store, sys.stdout.buffer, file_format, positions, shown)
            except BrokenPipeError:  # the reader has had enough (| head): end quietly
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return
        with atomic_file(output) as out:
            count = export_tablebase(instance, store, out, file_format, positions, tqdm_stages)
    typer.echo(f"wrote {count:,} positions of {instance.describe()} to {output}", err=True)


def plot(
    game: GameArg,
    output: Annotated[str, typer.Option("--output", "-o", metavar="PATH", help="Image file to write: .png or .svg.")],
    param: ParamsOpt = None,
    db: DbOpt = None,
) -> None:
    """Draw a tablebase's histogram of positions per remoteness, by outcome (matplotlib)."""
    instance = named_game(game, param)
    image_format_of(output)  # before opening the database, so a usage error comes first
    with open_store(db, create=False) as store:
        image = tablebase_histogram(instance, store, image_format_of(output))
    with atomic_file(output) as out:
        out.write(image)
    typer.echo(f"wrote the histogram of {instance.describe()} to {output}", err=True)
