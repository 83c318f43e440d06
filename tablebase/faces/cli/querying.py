"""The commands that read positions of a built tablebase: ``query`` and ``line``."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from tablebase.core.game import Game
from tablebase.faces.cli.options import DbOpt, GameArg, JsonOpt, ParamsOpt, PositionArg, named_game
from tablebase.faces.cli.saying import columns, echo_json, plural, say_move, say_state, say_value
from tablebase.read.query import DEFAULT_LINE_BOUND, Tablebase, check_metric
from tablebase.read.stream import report_lines
from tablebase.store import open_store, resolve_location
from tablebase.util.cores import usable_cores


def query(
    game: GameArg,
    position: PositionArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    workers: Annotated[
        Optional[int],
        typer.Option("--workers", metavar="N", min=1, help="Processes that answer the lines of `-`  [default: one per core]"),
    ] = None,
) -> None:
    """Print a position's value and every move, best first.

    Each move shows the value of the position it leads to, for the side to move there.
    With `-`, reads positions from stdin, one a line, and prints one JSON report a line,
    in their order.
    """
    instance = named_game(game, param)
    if position == "-":
        _query_stream(instance, db, workers or usable_cores())
        return
    with open_store(db, create=False) as store:
        tablebase = Tablebase(instance, store)
        reader = tablebase.reader(position)
        start = reader.parse(position)
        if as_json:
            echo_json(reader.report(start))
            return
        value, ranked = reader.probe_with_moves(start)
        best = reader.best(ranked)
    shown = reader.game
    typer.echo(f"{shown.format(start)}: {say_state(shown, start, value)}")
    if value.score is not None:
        for name, said in shown.score_details(start, value.score).items():
            typer.echo(f"  {name.replace('_', ' ')}: {said}")
    rows = [
        [
            "*" if move in best else " ",
            say_move(shown, move),
            say_value(shown, move.value) + ("" if move.margin is None else f", margin {move.margin}"),
            f"-> {shown.format(move.position)}",
        ]
        for move in ranked
    ]
    for text in columns(rows):
        typer.echo(f"  {text}")


def _query_stream(game: Game, db: str | None, workers: int) -> None:
    """One JSON object per line of stdin (:func:`tablebase.read.stream.report_lines`). The exit
    code is the worst line's, as if each were queried alone."""
    worst = 0
    for answer, code in report_lines(resolve_location(db), game, sys.stdin, workers):
        typer.echo(answer)
        worst = max(worst, code)
    if worst:
        raise typer.Exit(worst)


def line(
    game: GameArg,
    position: Annotated[str, typer.Argument(metavar="POSITION", help="A position in the game's syntax, or `start`.")],
    param: ParamsOpt = None,
    db: DbOpt = None,
    max_plies: Annotated[
        int, typer.Option("--max-plies", metavar="N", min=1, help="Stop a line that has not ended after N plies.")
    ] = DEFAULT_LINE_BOUND,
    as_json: JsonOpt = False,
    metric: Annotated[
        str, typer.Option("--metric", help="dtm: fastest mate; dtz: DTZ-optimal under the 50-move rule (chess).")
    ] = "dtm",
) -> None:
    """Print the principal variation: best play to the end of the game."""
    instance = named_game(game, param)
    check_metric(metric)  # a usage error before the database
    with open_store(db, create=False) as store:
        reader = Tablebase(instance, store).reader(position)
        played = reader.play(reader.parse(position), max_plies, metric)
    if as_json:
        echo_json(reader.line_json(played))
        return
    shown = reader.game
    typer.echo(f"{shown.format(played.position)}: {say_state(shown, played.position, played.value)}")
    before = [played.position, *(move.position for move in played.moves)]
    rows = [
        [shown.move_number(before[ply - 1], ply).rjust(6), say_move(shown, move), say_state(shown, move.position, move.value), f"-> {shown.format(move.position)}"]
        for ply, move in enumerate(played.moves, 1)
    ]
    for text in columns(rows):
        typer.echo(text)
    if not played.ended:
        typer.echo(f"(cut after {plural(len(played.moves), 'ply', 'plies')}: the game goes on; --max-plies N for more)")
