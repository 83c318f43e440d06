"""The m,n,k-game: tic-tac-toe generalized to ``k`` in a row on an ``m`` by ``n`` board.

Players x (first) and o alternately fill an empty cell; whoever first gets ``k`` of their
cells in a row, horizontally, vertically or diagonally, wins; a full board otherwise is a
draw (see "m,n,k-game", e.g. J. W. H. M. Uiterwijk and H. J. van den Herik, "The advantage
of the initiative", 2000).
"""

from __future__ import annotations

import operator
from functools import reduce
from math import comb
from typing import Any

import numpy as np

from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.game import Game
from tablebase.core.parameters import Parameter, at_least
from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.generators.bitboards import KeySymmetries, dihedral_maps, popcounts

Board = tuple[int, int]
"""``(x, o)``: bitboards, bit ``c`` set for a stone on cell ``c`` (row-major from the top left)."""

def _column(column: int) -> str:
    """Column name as in spreadsheets: a..z, then aa, ab, ..."""
    return chr(97 + column) if column < 26 else "a" + chr(97 + column - 26)


class TicTacToe(Game):
    """The m,n,k-game, found by forward search from the empty board (discovery form).

    A position is a :data:`Board`; its key is ``x | o << (m * n)``, below ``2**62``. The
    side to move is x when both have as many stones, else o. A move is a cell index.
    With ``symmetry`` on, the canonical position is the one with the smallest key among
    the board's images under its dihedral group (8 maps on a square board, else 4).

    :raises ParameterError: unless ``m * n <= 31`` and ``1 <= k <= max(m, n)``.
    """

    name = "tictactoe"
    description = "The m,n,k-game: tic-tac-toe with k in a row on an m by n board"
    position_syntax = (
        "cells row by row from the top as x, o or ., rows optionally separated by /, "
        "e.g. x.o/.x./..o (x moves first); a move is a cell as column letter and row "
        "number from the top, e.g. b2"
    )
    parameters = (
        Parameter("m", "int", 3, "rows", at_least(1)),
        Parameter("n", "int", 3, "columns", at_least(1)),
        Parameter("k", "int", 3, "stones in a row to win", at_least(1)),
        Parameter("symmetry", "bool", True, "fold positions equal under board symmetries"),
    )

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        m, n, k = self.params["m"], self.params["n"], self.params["k"]
        if m * n > 31:
            raise ParameterError(f"board of {m}x{n} = {m * n} cells: at most 31 allowed")
        if k > max(m, n):
            raise ParameterError(f"k = {k} exceeds the longest side of the {m}x{n} board")
        self.m, self.n, self.k, self.cells = m, n, k, m * n
        self.full = (1 << self.cells) - 1
        self.lines = [
            sum(1 << ((r + i * dr) * n + c + i * dc) for i in range(k))
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
            for r in range(m)
            for c in range(n)
            if 0 <= r + (k - 1) * dr < m and 0 <= c + (k - 1) * dc < n
        ]
        self.maps = dihedral_maps(m, n) if self.params["symmetry"] else [list(range(self.cells))]
        self.symmetries = KeySymmetries.of_boards(self.maps, 2)

    def estimate_positions(self) -> int:
        """Boards where x has as many stones as o or one more, divided by the symmetries
        folded: ``sum over t of C(cells, t) * C(t, ceil(t / 2)) / maps``. It ignores that
        play stops at k in a row (3x3: 756 against 765 stored, 4x4: 1.27M against 1.22M)."""
        boards = sum(comb(self.cells, t) * comb(t, (t + 1) // 2) for t in range(self.cells + 1))
        return boards // len(self.maps)

    # ---- per position

    def start_positions(self) -> list[Board]:
        """One position: the empty board ``(0, 0)``, x to move."""
        return [(0, 0)]

    def x_to_move(self, board: Board) -> bool:
        """Whether x is to move: both sides have as many stones."""
        return bin(board[0]).count("1") == bin(board[1]).count("1")

    def has_line(self, bits: int) -> bool:
        """Whether the bitboard holds ``k`` in a row."""
        return any(bits & line == line for line in self.lines)

    def moves(self, board: Board) -> list[tuple[int, Board]]:
        """The side to move fills each empty cell, in cell order; the move is the cell index."""
        x, o = board
        empty = [cell for cell in range(self.cells) if not (x | o) >> cell & 1]
        if self.x_to_move(board):
            return [(cell, (x | 1 << cell, o)) for cell in empty]
        return [(cell, (x, o | 1 << cell)) for cell in empty]

    def terminal(self, board: Board) -> Outcome | None:
        """``LOSS`` if the side that just moved has ``k`` in a row, ``DRAW`` for another
        full board, else ``None``."""
        x, o = board
        if self.has_line(o if self.x_to_move(board) else x):
            return Outcome.LOSS
        return Outcome.DRAW if x | o == self.full else None

    def encode(self, board: Board) -> int:
        """The key: ``x | o << (m * n)``."""
        return board[0] | board[1] << self.cells

    def decode(self, key: int) -> Board:
        """Inverse of :meth:`encode`: ``(key & full, key >> (m * n))``."""
        return key & self.full, key >> self.cells

    def canonical(self, board: Board) -> Board:
        """The board's image with the smallest key under its symmetries (itself with ``symmetry`` off)."""
        def image(bits: int, cells: list[int]) -> int:
            """The bitboard ``bits`` with each cell ``c`` moved to ``cells[c]``."""
            return sum(1 << cells[c] for c in range(self.cells) if bits >> c & 1)

        return min(((image(board[0], cells), image(board[1], cells)) for cells in self.maps),
                   key=self.encode)

    def parse(self, text: str) -> Board:
        """Read a board. :raises PositionError: for bad characters or size, impossible
        stone counts, or wins that no game reaches (both sides, or play after a win)."""
        rows = "".join(text.split()).lower().split("/")
        cells = "".join(rows)
        if set(cells) - set("xo."):
            raise PositionError(f"bad board {text!r}: cells are x, o or .")
        if len(cells) != self.cells or len(rows) not in (1, self.m) or len({len(r) for r in rows}) > 1:
            raise PositionError(f"bad board {text!r}: expected {self.m} rows of {self.n} cells")
        x = sum(1 << c for c, mark in enumerate(cells) if mark == "x")
        o = sum(1 << c for c, mark in enumerate(cells) if mark == "o")
        if cells.count("x") - cells.count("o") not in (0, 1):
            raise PositionError(f"bad board {text!r}: x moves first, so x has as many stones as o or one more")
        to_move, moved = ("x", o) if self.x_to_move((x, o)) else ("o", x)
        if self.has_line(x if to_move == "x" else o):
            raise PositionError(f"bad board {text!r}: {to_move} is to move but has {self.k} in a row")
        won = [line for line in self.lines if moved & line == line]
        if won and not reduce(operator.and_, won):
            raise PositionError(f"bad board {text!r}: play went on after a win")
        return x, o

    def format(self, board: Board) -> str:
        """Rows from the top as x, o and ., joined by /, e.g. ``x.o/.x./..o``."""
        x, o = board
        marks = ["x" if x >> c & 1 else "o" if o >> c & 1 else "." for c in range(self.cells)]
        return "/".join("".join(marks[r * self.n : (r + 1) * self.n]) for r in range(self.m))

    def board_drawing(self) -> tuple[str, dict[str, Any]]:
        """The rows of :meth:`format` drawn as a grid of discs on the web pages."""
        return "grid", {}

    def format_move(self, move: int) -> str:
        """Column letter and row number from the top, e.g. ``b2``."""
        return f"{_column(move % self.n)}{move // self.n + 1}"

    # ---- batch

    def canonical_keys(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: the canonical key of each of int64[n] keys, by byte lookup tables."""
        return self.symmetries.canonical(keys)

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized moves of non-terminal keys: ``(src_index, dst_key)``, int64[m] each.

        Sources are ascending, each source's moves in cell order as in :meth:`moves`;
        destinations are canonical.
        """
        x, o = keys & self.full, keys >> self.cells
        shift = np.where(popcounts(x, self.cells) == popcounts(o, self.cells), 0, self.cells)
        cells = np.arange(self.cells, dtype=np.int64)
        valid = ((x | o)[:, None] >> cells[None, :] & 1) == 0
        children = keys[:, None] | np.int64(1) << (cells[None, :] + shift[:, None])
        return np.nonzero(valid)[0].astype(np.int64), self.canonical_keys(children[valid])

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Un-moves: lift one stone of the side that just moved (o when both have as many
        stones, else x). ``(src_index, pred_key)``, int64[m] each, canonical keys."""
        x, o = keys & self.full, keys >> self.cells
        shift = np.where(popcounts(x, self.cells) == popcounts(o, self.cells), self.cells, 0)
        cells = np.arange(self.cells, dtype=np.int64)
        stone = np.int64(1) << (cells[None, :] + shift[:, None])
        lifted = (keys[:, None] & stone) != 0
        return np.nonzero(lifted)[0].astype(np.int64), self.canonical_keys((keys[:, None] ^ stone)[lifted])

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: LOSS when the side that just moved has ``k`` in a row, DRAW for
        another full board, else :data:`NOT_TERMINAL`."""
        x, o = keys & self.full, keys >> self.cells
        mover = np.where(popcounts(x, self.cells) == popcounts(o, self.cells), o, x)
        won = np.zeros(len(keys), dtype=bool)
        for line in self.lines:
            won |= (mover & line) == line
        values = np.full(len(keys), NOT_TERMINAL, dtype=np.int8)
        values[(x | o) == self.full] = Outcome.DRAW
        values[won] = Outcome.LOSS
        return values
