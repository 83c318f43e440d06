"""How the commands print: values, states and moves in words, columns, counts, JSON."""

from __future__ import annotations

import json
from typing import Any

import typer

from tablebase.core.game import Game, Position
from tablebase.read.catalog import Listing
from tablebase.read.query import RankedMove, Value


def echo_json(data: Any) -> None:
    """Print ``data`` as JSON on one line."""
    typer.echo(json.dumps(data))


def plural(count: int | None, one: str, many: str) -> str:
    """E.g. ``1 position``, ``2,467,122 positions``: thousands separated, as elsewhere."""
    return f"{count:,} {one if count == 1 else many}" if count is not None else f"{count} {many}"


def say_value(game: Game, value: Value) -> str:
    """E.g. ``win in 19`` (plies), with the game's own reading: ``win in 19 (mate in 10)``."""
    said = value.outcome.label if value.remoteness is None else f"{value.outcome.label} in {value.remoteness}"
    details = {**value.extras(), **game.value_details(value.outcome, value.remoteness)}
    if details:
        said += " (" + ", ".join(f"{key.replace('_', ' ')} {shown}" for key, shown in details.items()) + ")"
    return said


def say_state(game: Game, position: Position, value: Value) -> str:
    """E.g. ``draw in 0, stalemate``: the position's value and the game's facts of it
    that hold (see ``Game.position_details``)."""
    facts = [name.replace("_", " ") for name, holds in game.position_details(position).items() if holds is True]
    return ", ".join([say_value(game, value), *facts])


def say_move(game: Game, move: RankedMove) -> str:
    """The move's text, then its other notations (the details that are text)."""
    text = game.format_move(move.move)
    return " ".join([text, *(v for v in game.move_details(move.move).values() if isinstance(v, str) and v != text)])


def columns(rows: list[list[str]]) -> list[str]:
    """Rows of cells, each column as wide as its widest cell, the last one left ragged."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)] if rows else []
    return ["  ".join([*(cell.ljust(w) for cell, w in zip(row, widths)), row[-1]]) for row in rows]


def counts(listing: Listing) -> str:
    """A listed tablebase's positions, its counts per outcome and, where it stores
    remoteness, its largest."""
    row = listing.row
    said = f"{plural(row.positions, 'position', 'positions')} ({plural(row.wins, 'win', 'wins')}, "
    said += f"{plural(row.draws, 'draw', 'draws')}, {plural(row.losses, 'loss', 'losses')})"
    if listing.has_remoteness and row.max_remoteness is not None:
        said += f", max remoteness {row.max_remoteness}"
    return said
