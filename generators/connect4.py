"""Connect Four on a board of any size: drop stones into columns, ``k`` in a row wins.

Players x (first) and o alternately drop a stone into a column that is not full; it falls
to the lowest empty cell. Whoever first has ``k`` stones in a row, horizontally,
vertically or diagonally, wins; a full board otherwise is a draw (J. Tromp, "John's
Connect Four Playground", https://tromp.github.io/c4/c4.html, which also gives the
position counts the tests check).

Positions are bitboards in John Tromp's layout: column ``c`` takes bits
``c * (height + 1)`` up, one bit per cell from the bottom, plus one spare bit on top so
that no line of stones runs from one column into the next. A key holds x's stones and,
in each column, a *sentinel* bit just above its top stone, ``key = x | (mask + bottom)``
(``mask``: every stone; ``bottom``: the lowest bit of each column). Both sides' stones
follow from it, and the side to move from the number of stones.
"""

from __future__ import annotations

from math import comb
from typing import Any

import numpy as np

from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.game import Game
from tablebase.core.parameters import Parameter, at_least
from tablebase.core.values import NOT_TERMINAL, Outcome

Board = tuple[int, int]
"""``(x, o)``: bitboards of each side's stones in Tromp's layout (see the module docstring)."""

MAX_HEIGHT = 15
"""Tallest board: a column's bits are decoded through a table of ``2 ** (height + 1)`` entries."""



def _popcount(bits: int) -> int:
    return bin(bits).count("1")


class ConnectFour(Game):
    """Connect Four, found by forward search from the empty board (discovery form).

    A position is a :data:`Board`; its key is described in the module docstring. The
    side to move is x when both have as many stones. A move is a column index (0 on the
    left). With ``symmetry`` on, a position and its mirror image (columns reversed) share
    the smaller key.

    :raises ParameterError: unless ``width * (height + 1) <= 62``, ``height <= 15`` and
        ``k <= max(width, height)``.
    """

    name = "connect4"
    description = "Connect Four: drop stones into columns, k in a row wins"
    position_syntax = (
        "the columns played so far, 1-based from the left (boards up to 9 wide), e.g. 4453 "
        "(x moves first), or "
        "rows from the top as x, o or . separated by /, e.g. ..../..../.o../.xx.; "
        "a move is a column number"
    )
    parameters = (
        Parameter("width", "int", 7, "columns", at_least(1)),
        Parameter("height", "int", 6, "rows", at_least(1)),
        Parameter("k", "int", 4, "stones in a row to win", at_least(1)),
        Parameter("symmetry", "bool", True, "fold each position with its mirror image"),
    )

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        width, height, k = self.params["width"], self.params["height"], self.params["k"]
        if width * (height + 1) > 62 or height > MAX_HEIGHT:
            raise ParameterError(
                f"board of {width}x{height}: width * (height + 1) must be at most 62 and height at most {MAX_HEIGHT}"
            )
        if k > max(width, height):
            raise ParameterError(f"k = {k} exceeds the longest side of the {width}x{height} board")
        self.width, self.height, self.k = width, height, k
        self.stride = height + 1
        self.cells = width * height
        self.bottom = sum(1 << (c * self.stride) for c in range(width))
        self.board_mask = self.bottom * ((1 << height) - 1)
        self.directions = (1, self.stride, self.stride - 1, self.stride + 1)
        field = np.arange(1 << self.stride)
        self.top_bit = np.where(field > 0, np.floor(np.log2(np.maximum(field, 1))), 0).astype(np.int64)
        """int64[2 ** stride]: the index of the highest set bit of a column field."""

    def estimate_positions(self) -> int:
        """Boards of stacked columns where x has as many stones as o or one more, halved
        with symmetry: ``sum over t of stacks(t) * C(t, ceil(t / 2))``, ``stacks(t)``
        the ways to pile t stones in the columns. It ignores that play stops at k in a
        row, so it overshoots: 1.7x at 6x4 (47.5M stored), 7.9x at 7x6 (4.5e12 positions,
        John Tromp)."""
        stacks = [1]  # stacks[t]: ways to pile t stones in the columns so far
        for _column in range(self.width):
            stacks = [sum(stacks[t - h] for h in range(self.height + 1) if 0 <= t - h < len(stacks))
                      for t in range(len(stacks) + self.height)]
        boards = sum(ways * comb(t, (t + 1) // 2) for t, ways in enumerate(stacks))
        return boards // 2 if self.params["symmetry"] else boards

    # ---- per position

    def start_positions(self) -> list[Board]:
        """One position: the empty board ``(0, 0)``, x to move."""
        return [(0, 0)]

    def x_to_move(self, board: Board) -> bool:
        """Whether x is to move: both sides have as many stones."""
        return _popcount(board[0]) == _popcount(board[1])

    def has_line(self, bits: int) -> bool:
        """Whether the bitboard holds ``k`` stones in a row."""
        for step in self.directions:
            run = bits
            for i in range(1, self.k):
                run &= bits >> (i * step)
            if run:
                return True
        return False

    def _height(self, mask: int, column: int) -> int:
        return _popcount(mask >> (column * self.stride) & ((1 << self.height) - 1))

    def _top_stone(self, mask: int, column: int) -> int:
        """The bit of the column's top stone, 0 for an empty column."""
        height = self._height(mask, column)
        return 1 << (column * self.stride + height - 1) if height else 0

    def moves(self, board: Board) -> list[tuple[int, Board]]:
        """A stone into each column that is not full, left to right; the move is the column index."""
        x, o = board
        found = []
        for column in range(self.width):
            height = self._height(x | o, column)
            if height < self.height:
                stone = 1 << (column * self.stride + height)
                found.append((column, (x | stone, o) if self.x_to_move(board) else (x, o | stone)))
        return found

    def terminal(self, board: Board) -> Outcome | None:
        """``LOSS`` if the side that just moved has ``k`` in a row, ``DRAW`` for another
        full board, else ``None``."""
        x, o = board
        if self.has_line(o if self.x_to_move(board) else x):
            return Outcome.LOSS
        return Outcome.DRAW if _popcount(x | o) == self.cells else None

    def encode(self, board: Board) -> int:
        """The key: ``x | (mask + bottom)``."""
        x, o = board
        return x | ((x | o) + self.bottom)

    def decode(self, key: int) -> Board:
        """Inverse of :meth:`encode`."""
        sentinels = 0
        for column in range(self.width):
            field = key >> (column * self.stride) & ((1 << self.stride) - 1)
            sentinels |= 1 << (column * self.stride + int(self.top_bit[field]))
        mask = sentinels - self.bottom
        return key & mask, mask & ~key

    def _mirror_key(self, key: int) -> int:
        field = (1 << self.stride) - 1
        return sum(
            (key >> (c * self.stride) & field) << ((self.width - 1 - c) * self.stride) for c in range(self.width)
        )

    def canonical(self, board: Board) -> Board:
        """The board or its mirror image, whichever has the smaller key (the board itself
        with ``symmetry`` off)."""
        if not self.params["symmetry"]:
            return board
        return self.decode(min(self.encode(board), self._mirror_key(self.encode(board))))

    def parse(self, text: str) -> Board:
        """Read a position: the columns played (``4453``) or rows from the top.

        :raises PositionError: for bad characters or size, a move into a full column or
            after the game ended, floating stones, impossible stone counts, or wins that
            no game reaches.
        """
        compact = "".join(text.split()).lower()
        if compact.isascii() and (compact.isdecimal() or compact == ""):
            return self._play(compact, text)
        return self._board(compact, text)

    def _play(self, columns: str, text: str) -> Board:
        board: Board = (0, 0)
        for ply, letter in enumerate(columns, start=1):
            column = int(letter) - 1
            if not 0 <= column < self.width:
                raise PositionError(f"bad moves {text!r}: column {letter} at ply {ply}; columns are 1 to {self.width}")
            if self.terminal(board) is not None:
                raise PositionError(f"bad moves {text!r}: the game is over before ply {ply}")
            moves = dict(self.moves(board))
            if column not in moves:
                raise PositionError(f"bad moves {text!r}: column {letter} is full at ply {ply}")
            board = moves[column]
        return board

    def _board(self, compact: str, text: str) -> Board:
        rows = compact.split("/")
        if set(compact) - set("xo./") or len(rows) != self.height or any(len(r) != self.width for r in rows):
            raise PositionError(
                f"bad board {text!r}: expected {self.height} rows of {self.width} cells (x, o or .) separated by /"
            )
        x = o = 0
        for r, row in enumerate(rows):
            for c, mark in enumerate(row):
                bit = 1 << (c * self.stride + self.height - 1 - r)
                x |= bit if mark == "x" else 0
                o |= bit if mark == "o" else 0
        for column in range(self.width):
            stones = (x | o) >> (column * self.stride) & ((1 << self.height) - 1)
            if stones & (stones + 1):
                raise PositionError(f"bad board {text!r}: a stone floats in column {column + 1}")
        if _popcount(x) - _popcount(o) not in (0, 1):
            raise PositionError(f"bad board {text!r}: x moves first, so x has as many stones as o or one more")
        to_move, mover = ("x", o) if self.x_to_move((x, o)) else ("o", x)
        if self.has_line(x if to_move == "x" else o):
            raise PositionError(f"bad board {text!r}: {to_move} is to move but has {self.k} in a row")
        tops = [self._top_stone(x | o, column) for column in range(self.width)]
        if self.has_line(mover) and not any(top & mover and not self.has_line(mover & ~top) for top in tops):
            raise PositionError(f"bad board {text!r}: play went on after a win")
        return x, o

    def format(self, board: Board) -> str:
        """Rows from the top as x, o and ., joined by /, e.g. ``..../..../.o../.xx.``."""
        x, o = board
        rows = []
        for r in reversed(range(self.height)):
            bits = [1 << (c * self.stride + r) for c in range(self.width)]
            rows.append("".join("x" if x & b else "o" if o & b else "." for b in bits))
        return "/".join(rows)

    def board_drawing(self) -> tuple[str, dict[str, Any]]:
        """The rows of :meth:`format` drawn as a grid of discs on the web pages."""
        return "grid", {}

    def format_move(self, move: int) -> str:
        """The column number, 1-based from the left."""
        return str(move + 1)

    # ---- batch

    def _columns(self, keys: np.ndarray) -> np.ndarray:
        """int64[n, width]: the number of stones in each column."""
        field = (1 << self.stride) - 1
        return np.stack([self.top_bit[(keys >> (c * self.stride)) & field] for c in range(self.width)], axis=1)

    def mirror_keys(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: the key of each key's mirror image (its columns in reverse order)."""
        field = (1 << self.stride) - 1
        mirrored = np.zeros_like(keys)
        for c in range(self.width):
            mirrored |= ((keys >> (c * self.stride)) & field) << ((self.width - 1 - c) * self.stride)
        return mirrored

    def canonical_keys(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: the smaller of each key and its mirror image's (the keys themselves
        with ``symmetry`` off)."""
        if not self.params["symmetry"]:
            return keys
        return np.minimum(keys, self.mirror_keys(keys))

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized moves of non-terminal keys: ``(src_index, dst_key)``, int64[m] each,
        sources ascending, each source's moves left to right; destinations canonical.

        Dropping a stone moves the column's sentinel up one: for x the old sentinel bit
        stays as its stone, ``key + (sentinel << 1)``; for o it clears,
        ``key + sentinel``.
        """
        heights = self._columns(keys)
        x_moves = (heights.sum(axis=1) % 2 == 0).astype(np.int64)
        base = np.arange(self.width, dtype=np.int64) * self.stride
        open_ = heights < self.height
        children = keys[:, None] + (np.int64(1) << (base[None, :] + heights + x_moves[:, None]))
        return np.nonzero(open_)[0].astype(np.int64), self.canonical_keys(children[open_])

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Un-moves: lift the top stone of a column where it belongs to the side that
        just moved. ``(src_index, pred_key)``, int64[m] each, canonical keys.

        Lifting moves the column's sentinel down one, the inverse of
        :meth:`successors`: an x stone, ``key - sentinel``; an o stone,
        ``key - sentinel / 2``.
        """
        heights = self._columns(keys)
        o_moved = (heights.sum(axis=1) % 2 == 0)[:, None]
        base = np.arange(self.width, dtype=np.int64) * self.stride
        sentinel = np.int64(1) << (base[None, :] + heights)
        top_is_x = (keys[:, None] & (sentinel >> 1)) != 0
        lifted = (heights > 0) & (top_is_x != o_moved)
        parents = keys[:, None] - np.where(top_is_x, sentinel, sentinel >> 1)
        return np.nonzero(lifted)[0].astype(np.int64), self.canonical_keys(parents[lifted])

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: LOSS when the side that just moved has ``k`` in a row, DRAW for
        another full board, else :data:`NOT_TERMINAL`."""
        heights = self._columns(keys)
        stones = heights.sum(axis=1)
        base = np.arange(self.width, dtype=np.int64) * self.stride
        sentinels = np.bitwise_or.reduce(np.int64(1) << (base[None, :] + heights), axis=1)
        mask = sentinels - self.bottom
        x = keys & mask
        mover = np.where(stones % 2 == 1, x, mask ^ x)
        won = np.zeros(len(keys), dtype=bool)
        for step in self.directions:
            run = mover.copy()
            for i in range(1, self.k):
                run &= mover >> (i * step)
            won |= run != 0
        values = np.full(len(keys), NOT_TERMINAL, dtype=np.int8)
        values[stones == self.cells] = Outcome.DRAW
        values[won] = Outcome.LOSS
        return values
