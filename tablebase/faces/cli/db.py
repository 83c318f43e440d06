"""The commands of ``tablebase db``: the database's schema (``current``, ``upgrade``) and
its storage (``repack``)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from tablebase.core.errors import UsageError
from tablebase.core.parameters import parse_assignments
from tablebase.faces.cli.options import CODEC_LEVELS, DbOpt, DtmSidesOpt, LayoutOpt, ParamsOpt
from tablebase.read.catalog import filter_class, listings
from tablebase.store import Storing, open_store, schema_revisions, upgrade_schema
from tablebase.tools.repack import repack
from tablebase.util.progress import tqdm_stages

LevelOpt = Annotated[
    Optional[int],
    typer.Option(
        "--level",
        metavar="LEVEL",
        help=f"Write every tablebase of the sided and blocks layouts again at this level of the codec: {CODEC_LEVELS}.",
    ),
]
CodecOpt = Annotated[
    str,
    typer.Option(
        "--codec",
        metavar="zstd|xz",
        help="What compresses the sided and blocks layouts: zstd (as builds write by default) or xz, which keeps chess "
        "20 to 26% smaller, repacks 4 to 5 times slower and reads a block for the first time about twice as slow "
        "(warm probes alike).",
    ),
]


def db_current(db: DbOpt = None) -> None:
    """Print the database's schema revision and the newest one this tablebase knows."""
    current, head = schema_revisions(db)
    state = "up to date" if current == head else "an upgrade is available: tablebase db upgrade"
    typer.echo(f"revision {current or 'none'} (newest {head}): {state}")


def db_upgrade(db: DbOpt = None) -> None:
    """Upgrade the database's schema to the newest revision, in one transaction."""
    before, after = upgrade_schema(db)
    typer.echo(f"revision {before or 'none'} -> {after}" if before != after else f"revision {after}: already up to date")


def db_repack(
    game: Annotated[Optional[str], typer.Argument(metavar="GAME", help="Only this game's tablebases.", show_default=False)] = None,
    param: ParamsOpt = None,
    db: DbOpt = None,
    layout: LayoutOpt = "auto",
    codec: CodecOpt = "zstd",
    level: LevelOpt = None,
    dtm_sides: DtmSidesOpt = "auto",
) -> None:
    """Store every complete tablebase again in a storage layout and codec, without solving
    anything: each copy replaces the old one once complete, so a killed repack loses nothing.

    With GAME, only its tablebases; with -p, only those with these parameters (as `info`
    lists them: `chess -p material=KRPvKR`, or a collection's members).
    """
    given = parse_assignments(param or [])
    filter_class(game, given)  # a bad filter is reported before a missing database
    with open_store(db, create=False, storing=Storing(layout, codec, level, dtm_sides)) as store:
        chosen = None if game is None else [listing.row for listing in listings(store, game, given)]
        if chosen == []:
            raise UsageError(f"no tablebase of {' '.join([game, *(param or [])])} is stored")
        for done in repack(store, tqdm_stages, chosen):
            if done.new is None:
                typer.echo(f"left {done.old.description} as it is: {done.why_not}")
            else:
                verb = "kept" if done.new is done.old else "repacked"
                codec = f", {done.new.codec}" if done.new.codec else ""
                one_side = ", black to move's DTM left out" if done.new.dtm_left_out else ""
                typer.echo(f"{verb} {done.old.description} ({done.new.layout}{codec}{one_side})")
