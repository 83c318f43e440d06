"""Boards of the web pages, one drawing per style that a game names with what it needs
(:meth:`~tablebase.core.game.Game.board_drawing`): chess as python-chess's SVG board, the
games written as rows of ``x``, ``o`` and ``.`` (tic-tac-toe, Connect Four, Teeko) as a
grid of discs, mancala games as two rows of pits, Morris as its squares of lines (SVG),
Dobutsu shogi as a board of named pieces, and any other game as its position text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chess
import chess.svg
from markupsafe import Markup, escape

from tablebase.core.game import Game, Position

BOARD_SIZE = 360
"""Width of a drawn board in CSS pixels."""


def _chess(game: Game, position: Position, flip: bool, _needs: dict[str, Any]) -> Markup:
    board = chess.Board(game.format(position))
    return Markup(chess.svg.board(board, size=BOARD_SIZE, flipped=flip))


def _grid(game: Game, position: Position, _flip: bool, _needs: dict[str, Any]) -> Markup:
    """A table of cells from rows such as ``x.o/.x./..o`` (top row first; anything after
    a space, as Teeko's side to move, is not a cell)."""
    rows = game.format(position).split(" ")[0].split("/")
    cells = {"x": "x", "o": "o", ".": "empty"}
    body = "".join(
        "<tr>" + "".join(f'<td class="cell {cells.get(mark, "empty")}"></td>' for mark in row) + "</tr>" for row in rows
    )
    return Markup(f'<table class="grid {escape(game.name)}">{body}</table>')


def _pits(game: Game, position: Position, _flip: bool, _needs: dict[str, Any]) -> Markup:
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


def _morris(game: Game, position: Position, _flip: bool, needs: dict[str, Any]) -> Markup:
    """A Morris board as SVG: the lines, black's men dark, white's light, and the men in
    each hand written below; ``needs`` the ``points`` and ``lines`` of the board."""
    points = needs["points"]
    black, white, black_hand, white_hand, white_to_move = position
    step = BOARD_SIZE // 6

    def spot(point: int) -> tuple[int, int]:
        column, row = points[point]
        return step * (1 + column), step * (1 + row)

    lines = "".join('<line x1="{}" y1="{}" x2="{}" y2="{}" />'.format(*spot(p), *spot(q)) for p, q in needs["lines"])
    men = "".join(
        f'<circle class="{"x" if black >> p & 1 else "o"}" cx="{spot(p)[0]}" cy="{spot(p)[1]}" r="{step // 3}" />'
        for p in range(len(points)) if (black | white) >> p & 1
    )
    hands = f"in hand: black {black_hand}, white {white_hand}; {'white' if white_to_move else 'black'} to move"
    return Markup(
        f'<svg class="morris" width="{BOARD_SIZE}" height="{BOARD_SIZE}" viewBox="0 0 {BOARD_SIZE} {BOARD_SIZE}">'
        f'<g class="lines">{lines}</g>{men}</svg><p class="hands">{escape(hands)}</p>'
    )


def _shogi(game: Game, position: Position, _flip: bool, needs: dict[str, Any]) -> Markup:
    """A shogi board seen by the side to move (Dobutsu shogi: 4 rows of 3 squares), each
    piece named (the opponent's turned round), and each side's hand beside its home rank;
    ``needs`` the ``columns`` of the board and the ``names`` of the pieces."""
    columns, names = needs["columns"], needs["names"]
    cells, hand = position

    def square(letter: str) -> str:
        if letter == ".":
            return '<td class="square"></td>'
        side = "mine" if letter.isupper() else "theirs"
        return f'<td class="square {side}" title="{names[letter.upper()]}"><span>{letter.upper()}</span></td>'

    def held(mine: bool) -> str:
        pieces = [names[letter.upper()] for letter in hand if letter.isupper() == mine]
        return escape(", ".join(pieces) or "nothing")

    rows = "".join(
        "<tr>" + "".join(square(letter) for letter in cells[r : r + columns]) + "</tr>" for r in range(0, len(cells), columns)
    )
    return Markup(
        f'<p class="hand theirs">opponent holds: {held(False)}</p><table class="shogi {escape(game.name)}">{rows}</table>'
        f'<p class="hand mine">side to move holds: {held(True)}</p>'
    )


def _text(game: Game, position: Position, _flip: bool, _needs: dict[str, Any]) -> Markup:
    return Markup(f'<pre class="position">{escape(game.format(position))}</pre>')


DRAWINGS: dict[str, Callable[[Game, Position, bool, dict[str, Any]], Markup]] = {
    "chess": _chess,
    "grid": _grid,
    "pits": _pits,
    "morris": _morris,
    "shogi": _shogi,
    "text": _text,
}
"""The drawing of each style of :meth:`~tablebase.core.game.Game.board_drawing`, with
what the style needs."""


def board_html(game: Game, position: Position, flip: bool = False) -> Markup:
    """The position drawn as HTML (inline SVG for chess), from black's side if ``flip``,
    in the style the game names (its text for a style not known here)."""
    style, needs = game.board_drawing()
    return DRAWINGS.get(style, _text)(game, position, flip, needs)


def outcome_class(outcome: str, for_mover: bool = False) -> str:
    """The CSS class colouring a value: ``win``, ``draw`` or ``loss``. With ``for_mover``,
    the outcome is a successor's and the class is the mover's (a successor lost for its
    side to move is a win for the player who moved there)."""
    if not for_mover:
        return outcome
    return {"loss": "win", "win": "loss"}.get(outcome, outcome)
