"""Boards of the web pages, one drawing per game family: chess as python-chess's SVG
board, the games written as rows of ``x``, ``o`` and ``.`` (tic-tac-toe, Connect Four, Teeko)
as a grid of discs, mancala games as two rows of pits, and any other game as its position text.
"""

from __future__ import annotations

from collections.abc import Callable

import chess
import chess.svg
from markupsafe import Markup, escape

from tablebase.game import Game, Position

BOARD_SIZE = 360
"""Width of a drawn board in CSS pixels."""


def _chess(game: Game, position: Position, flip: bool) -> Markup:
    board = chess.Board(game.format(position))
    return Markup(chess.svg.board(board, size=BOARD_SIZE, flipped=flip))


def _grid(game: Game, position: Position, _flip: bool) -> Markup:
    """A table of cells from rows such as ``x.o/.x./..o`` (top row first; anything after
    a space, as Teeko's side to move, is not a cell)."""
    rows = game.format(position).split(" ")[0].split("/")
    cells = {"x": "x", "o": "o", ".": "empty"}
    body = "".join(
        "<tr>" + "".join(f'<td class="cell {cells.get(mark, "empty")}"></td>' for mark in row) + "</tr>" for row in rows
    )
    return Markup(f'<table class="grid {escape(game.name)}">{body}</table>')


def _pits(game: Game, position: Position, _flip: bool) -> Markup:
    """A mancala board (Kalah) seen by the side to move: its pits along the bottom, left
    to right in sowing order, its store at the right; the opponent's pits along the top,
    right to left, its store at the left. Each pit shows its seeds."""
    seeds = list(position)
    half = len(seeds) // 2

    def pits(row: list[int]) -> str:
        return "".join(f'<td class="pit">{count}</td>' for count in row)

    return Markup(
        f'<table class="pits {escape(game.name)}">'
        f'<tr class="opponent"><td class="store" rowspan="2">their store</td>{pits(seeds[half:][::-1])}'
        f'<td class="store" rowspan="2">store of the side to move</td></tr>'
        f'<tr class="mover">{pits(seeds[:half])}</tr></table>'
    )


def _text(game: Game, position: Position, _flip: bool) -> Markup:
    return Markup(f'<pre class="position">{escape(game.format(position))}</pre>')


DRAWINGS: dict[str, Callable[[Game, Position, bool], Markup]] = {
    "chess": _chess,
    "tictactoe": _grid,
    "connect4": _grid,
    "teeko": _grid,
    "kalah": _pits,
}
"""The drawing of each game family with a board; other games show their text."""


def board_html(game: Game, position: Position, flip: bool = False) -> Markup:
    """The position drawn as HTML (inline SVG for chess), from black's side if ``flip``."""
    return DRAWINGS.get(game.name, _text)(game, position, flip)


def outcome_class(outcome: str, for_mover: bool = False) -> str:
    """The CSS class colouring a value: ``win``, ``draw`` or ``loss``. With ``for_mover``,
    the outcome is a successor's and the class is the mover's (a successor lost for its
    side to move is a win for the player who moved there)."""
    if not for_mover:
        return outcome
    return {"loss": "win", "win": "loss"}.get(outcome, outcome)
