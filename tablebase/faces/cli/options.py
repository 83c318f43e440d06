"""The arguments and options that several commands share, and the game they name."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from tablebase.core.game import Game
from tablebase.core.parameters import parse_assignments
from tablebase.solve.registry import load_game

GameArg = Annotated[
    str, typer.Argument(metavar="GAME", help="A registered game (see `tablebase games`).", show_default=False)
]
ParamsOpt = Annotated[
    Optional[list[str]],
    typer.Option("--param", "-p", metavar="NAME=VALUE", help="A game parameter; repeatable.", show_default=False),
]
DbOpt = Annotated[
    Optional[str],
    typer.Option(
        "--db", metavar="PATH_OR_URL", help="SQLite path or SQLAlchemy URL.", show_default="$TABLEBASE_DB or tablebase.sqlite"
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON (schemas in README).")]
LayoutOpt = Annotated[
    str,
    typer.Option(
        "--layout",
        metavar="auto|sided|blocks|packed|rows",
        help="Storage layout: sided (blocks with each side to move's keys apart, the smallest for chess), blocks "
        "(values over ranges of keys), packed (chunks with their keys) or rows; auto: over an index space sided "
        "where keys alternate sides to move, else blocks; packed elsewhere.",
    ),
]
CODEC_LEVELS = "zstd's 1-22 (default 9; 15 keeps chess about 12% smaller and writes 3 times slower), xz's 0-9 (default 6)"
DtmSidesOpt = Annotated[
    str,
    typer.Option(
        "--dtm-sides",
        metavar="auto|both|one",
        help="Whose DTM the sided layout keeps of a chess ending of unlike sides with DTZ (chess's default metric): "
        "both sides to move's, or `one`, white to move's alone, black to move's then valued from one ply of moves when "
        "read (KRPvKR in 0.27 bytes a position with zstd, against 0.39; such a DTM takes hundreds of microseconds to "
        "probe, ranking white's moves by DTM about a millisecond); `auto` (default): `one` for the endings of five "
        "pieces where white alone has pawns (KRPvKR), `both` elsewhere.",
    ),
]
PositionArg = Annotated[
    str, typer.Argument(metavar="POSITION", help="A position in the game's syntax, `start`, or `-` for stdin.")
]


def named_game(name: str, params: list[str] | None) -> Game:
    """The game of a GAME argument and its ``-p NAME=VALUE`` options.

    :raises UnknownGameError: for an unknown game.
    :raises ParameterError: for an unknown parameter or a bad value.
    """
    return load_game(name, parse_assignments(params or []))
