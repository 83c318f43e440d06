"""Teeko, John Scarne's game of 1937 (J. Scarne, *Scarne on Teeko*, 1955): a placing phase,
then a moving phase, on a 5x5 board.

Black (``x``, moving first) and red (``o``) each have four men. In the placing phase
they drop their men in turn on empty cells; once all eight are down, each turn moves one
of the mover's men to an adjacent empty cell, orthogonally or diagonally. The first to
have their four men in a winning pattern wins:

- ``standard``: four in a row, horizontally, vertically or diagonally, or the four cells
  of a 2x2 square (44 patterns);
- ``advanced``: also the four corners of any larger square with sides along the board,
  3x3, 4x4 or 5x5 (58 patterns).

Endless play is a draw, as in Guy L. Steele Jr.'s solution (1998: standard Teeko is a
draw; advanced Teeko is a first-player win, and a draw when the first drop may not take
the centre). Scarne's encyclopedia forbids black's first drop on the centre; Steele's
solution does not, so ``centre_opening`` (default on) follows Steele.
"""

from __future__ import annotations

from itertools import product
from math import comb
from typing import Any

import numpy as np

from tablebase.core.errors import PositionError
from tablebase.core.game import Game
from tablebase.core.parameters import Parameter, not_one_of
from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.generators.bitboards import KeySymmetries, dihedral_maps, popcounts

SIDE = 5
CELLS = SIDE * SIDE
MEN = 4
FULL = (1 << CELLS) - 1
CENTRE = CELLS // 2
RED_TO_MOVE = 1 << (2 * CELLS)
"""The key's bit telling that red is to move."""

VARIANTS = ("standard", "advanced")

Board = tuple[int, int, bool]
"""``(black, red, red_to_move)``: bitboards, bit ``r * 5 + c`` for the cell in row ``r``
from the top and column ``c`` from the left, and the side to move."""

Move = int | tuple[int, int]
"""A drop (the cell) or a step ``(from, to)``."""

def _cells(cells: list[tuple[int, int]]) -> int:
    return sum(1 << (r * SIDE + c) for r, c in cells)


def winning_patterns(variant: str) -> list[int]:
    """The bitboards of the winning patterns: 44 for ``standard``, 58 for ``advanced``."""
    lines = [
        _cells([(r + i * dr, c + i * dc) for i in range(MEN)])
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
        for r, c in product(range(SIDE), repeat=2)
        if 0 <= r + 3 * dr < SIDE and 0 <= c + 3 * dc < SIDE
    ]
    largest = SIDE - 1 if variant == "advanced" else 1
    squares = [
        _cells([(r, c), (r, c + span), (r + span, c), (r + span, c + span)])
        for span in range(1, largest + 1)
        for r, c in product(range(SIDE - span), repeat=2)
    ]
    return lines + squares


STEPS = [
    (cell, r2 * SIDE + c2)
    for cell in range(CELLS)
    for r2, c2 in product(range(cell // SIDE - 1, cell // SIDE + 2), range(cell % SIDE - 1, cell % SIDE + 2))
    if 0 <= r2 < SIDE and 0 <= c2 < SIDE and (r2, c2) != divmod(cell, SIDE)
]
"""Every step of a man to an adjacent cell, ``(from, to)``, ascending."""


def _cell_name(cell: int) -> str:
    return f"{'abcde'[cell % SIDE]}{cell // SIDE + 1}"


class Teeko(Game):
    """Teeko (see the module docstring), found by forward search from the empty board.

    The key is ``black | red << 25 | red_to_move << 50``. With ``symmetry`` on, the
    canonical position is the smallest key among the board's 8 images under the square's
    symmetries (the winning patterns and steps are the same under each).
    """

    name = "teeko"
    description = "Teeko: four men each, placed then moved, on a 5x5 board; four in a row or in a square wins"
    position_syntax = (
        "rows from the top as x (black), o (red) or ., joined by /, then the side to move "
        "(x or o) where both have four men down, e.g. xo.../...../..x../.o.../..... or "
        "x.o../.x.o./..x../.o.../x.... o; a move is a drop, c3, or a step, c3-d4 (column letter, row from the top)"
    )
    parameters = (
        Parameter("variant", "str", "standard", "winning patterns: standard (44) or advanced (58)",
                  lambda value: None if value in VARIANTS else not_one_of("variant", value, VARIANTS)),
        Parameter("centre_opening", "bool", True, "black's first drop may take the centre (Steele; Scarne forbids it)"),
        Parameter("symmetry", "bool", True, "fold positions equal under the board's 8 symmetries"),
    )

    bytes_per_position = 170
    """Peak bytes a position of a build, measured for its 21.5 million positions
    (benchmarks/RESULTS.md), forward search's widest levels of moves the most of it."""

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.patterns = winning_patterns(str(self.params["variant"]))
        self.maps = dihedral_maps(SIDE, SIDE) if self.params["symmetry"] else [list(range(CELLS))]
        self.symmetries = KeySymmetries.of_boards(self.maps, 2, extra_bits=1)
        self.centre_opening = bool(self.params["centre_opening"])
        self.steps = np.array(STEPS, dtype=np.int64)

    def estimate_positions(self) -> int:
        """Boards of every stage of play, with the side to move where both have four men,
        divided by the symmetries folded (an upper bound: it counts boards past a win)."""
        stages = [(k, k) for k in range(MEN + 1)] + [(k + 1, k) for k in range(MEN)] + [(MEN, MEN)]
        return sum(comb(CELLS, b) * comb(CELLS - b, r) for b, r in stages) // len(self.maps)

    # ---- per position

    def start_positions(self) -> list[Board]:
        """The empty board, black to move."""
        return [(0, 0, False)]

    def won(self, bits: int) -> bool:
        """Whether the bitboard holds a winning pattern."""
        return any(bits & pattern == pattern for pattern in self.patterns)

    def moves(self, position: Board) -> list[tuple[Move, Board]]:
        """Drops on each empty cell while the mover has men in hand, else each step of a
        man to an adjacent empty cell, in cell order."""
        black, red, red_to_move = position
        mover = red if red_to_move else black
        empty = FULL & ~(black | red)
        if bin(mover).count("1") < MEN:
            banned = position == (0, 0, False) and not self.centre_opening
            changes: list[tuple[Move, int]] = [
                (cell, 1 << cell) for cell in range(CELLS) if empty >> cell & 1 and not (banned and cell == CENTRE)
            ]
        else:
            changes = [((a, b), 1 << a | 1 << b) for a, b in STEPS if mover >> a & 1 and empty >> b & 1]
        if red_to_move:
            return [(move, (black, red ^ change, False)) for move, change in changes]
        return [(move, (black ^ change, red, True)) for move, change in changes]

    def terminal(self, position: Board) -> Outcome | None:
        """``LOSS`` when the side that just moved has a winning pattern, else ``None``."""
        black, red, red_to_move = position
        return Outcome.LOSS if self.won(black if red_to_move else red) else None

    def encode(self, position: Board) -> int:
        """``black | red << 25 | red_to_move << 50``."""
        black, red, red_to_move = position
        return black | red << CELLS | (RED_TO_MOVE if red_to_move else 0)

    def decode(self, key: int) -> Board:
        """Inverse of :meth:`encode`."""
        return key & FULL, key >> CELLS & FULL, bool(key & RED_TO_MOVE)

    def canonical(self, position: Board) -> Board:
        """The image with the smallest key under the board's symmetries."""
        return self.decode(int(self.symmetries.canonical(np.array([self.encode(position)], dtype=np.int64))[0]))

    def parse(self, text: str) -> Board:
        """Read rows and, where both have four men, the side to move. :raises
        PositionError: for bad characters or size, impossible counts of men, a missing
        or impossible side to move, or wins that no game reaches."""
        board, _, side = text.strip().lower().partition(" ")
        rows = board.split("/")
        cells = "".join(rows)
        if set(cells) - set("xo.") or len(cells) != CELLS or len(rows) not in (1, SIDE) or len({len(r) for r in rows}) > 1:
            raise PositionError(f"bad board {text!r}: expected 5 rows of 5 cells, each x, o or ., joined by /")
        black = sum(1 << c for c, mark in enumerate(cells) if mark == "x")
        red = sum(1 << c for c, mark in enumerate(cells) if mark == "o")
        blacks, reds = cells.count("x"), cells.count("o")
        if blacks > MEN or blacks - reds not in (0, 1):
            raise PositionError(f"bad board {text!r}: black drops first, so it has as many men as red or one more, four at most")
        if side.strip() not in ("", "x", "o"):
            raise PositionError(f"bad side to move {side.strip()!r}: x or o")
        if blacks == reds == MEN:
            if not side.strip():
                raise PositionError(f"bad board {text!r}: with all men down, say who moves: add x or o")
            red_to_move = side.strip() == "o"
        else:
            red_to_move = blacks > reds
            if side.strip() and (side.strip() == "o") != red_to_move:
                raise PositionError(f"bad board {text!r}: {'red' if red_to_move else 'black'} is to drop next")
        if self.won(red if red_to_move else black):
            raise PositionError(f"bad board {text!r}: the side to move already has four in a winning pattern")
        return black, red, red_to_move

    def format(self, position: Board) -> str:
        """Rows from the top, then the side to move where both have four men down."""
        black, red, red_to_move = position
        marks = ["x" if black >> c & 1 else "o" if red >> c & 1 else "." for c in range(CELLS)]
        rows = "/".join("".join(marks[r * SIDE : (r + 1) * SIDE]) for r in range(SIDE))
        full = bin(black).count("1") == bin(red).count("1") == MEN
        return f"{rows} {'o' if red_to_move else 'x'}" if full else rows

    def board_drawing(self) -> tuple[str, dict[str, Any]]:
        """The rows of :meth:`format` drawn as a grid of discs on the web pages."""
        return "grid", {}

    def format_move(self, move: Move) -> str:
        """A drop as its cell, ``c3``; a step as ``c3-d4``."""
        if isinstance(move, tuple):
            return f"{_cell_name(move[0])}-{_cell_name(move[1])}"
        return _cell_name(move)

    # ---- batch

    def canonical_keys(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: the canonical key of each of int64[n] keys."""
        return self.symmetries.canonical(keys)

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized moves of non-terminal keys: ``(src_index, dst_key)``, int64[m]
        each, sources ascending, each source's moves in the order of :meth:`moves`;
        destinations canonical."""
        keys = np.asarray(keys, dtype=np.int64)
        black, red, red_to_move = keys & FULL, keys >> CELLS & FULL, keys >> (2 * CELLS) & 1
        mover = np.where(red_to_move == 1, red, black)
        empty = FULL & ~(black | red)
        placing = popcounts(mover, CELLS) < MEN
        cells = np.arange(CELLS, dtype=np.int64)
        drops = placing[:, None] & ((empty[:, None] >> cells) & 1 == 1)
        if not self.centre_opening:
            drops[keys == 0, CENTRE] = False
        start, end = self.steps[:, 0], self.steps[:, 1]
        steps = ~placing[:, None] & ((mover[:, None] >> start) & 1 == 1) & ((empty[:, None] >> end) & 1 == 1)
        change = np.concatenate([np.int64(1) << cells, np.int64(1) << start | np.int64(1) << end])
        src, column = np.nonzero(np.concatenate([drops, steps], axis=1))
        flip = change[column]
        red_moves = red_to_move[src] == 1
        children = keys[src] ^ np.where(red_moves, flip << CELLS, flip) ^ RED_TO_MOVE
        return src.astype(np.int64), self.canonical_keys(children)

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Un-moves of the side that just moved: lift a man it dropped (black when it has
        one man more than red, red when they have as many), or, with all eight men down,
        step a man back to an adjacent empty cell. ``(src_index, pred_key)``, int64[m]
        each, canonical keys; predecessors that are terminal are left for the engine to
        ignore."""
        keys = np.asarray(keys, dtype=np.int64)
        black, red, red_to_move = keys & FULL, keys >> CELLS & FULL, keys >> (2 * CELLS) & 1
        moved = np.where(red_to_move == 1, black, red)  # the side that made the last move
        blacks, reds = popcounts(black, CELLS), popcounts(red, CELLS)
        dropped = np.where(red_to_move == 1, blacks == reds + 1, blacks == reds)
        stepped = (blacks == MEN) & (reds == MEN)
        empty = FULL & ~(black | red)
        cells = np.arange(CELLS, dtype=np.int64)
        lifts = dropped[:, None] & ((moved[:, None] >> cells) & 1 == 1)
        if not self.centre_opening:
            lifts[keys == 1 << CENTRE | RED_TO_MOVE, CENTRE] = False  # the empty board may not drop there
        start, end = self.steps[:, 0], self.steps[:, 1]
        backs = stepped[:, None] & ((moved[:, None] >> end) & 1 == 1) & ((empty[:, None] >> start) & 1 == 1)
        change = np.concatenate([np.int64(1) << cells, np.int64(1) << start | np.int64(1) << end])
        src, column = np.nonzero(np.concatenate([lifts, backs], axis=1))
        flip = change[column]
        black_moved = red_to_move[src] == 1
        parents = keys[src] ^ np.where(black_moved, flip, flip << CELLS) ^ RED_TO_MOVE
        return src.astype(np.int64), self.canonical_keys(parents)

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: LOSS where the side that just moved has a winning pattern, else
        :data:`NOT_TERMINAL`."""
        keys = np.asarray(keys, dtype=np.int64)
        moved = np.where(keys & RED_TO_MOVE, keys & FULL, keys >> CELLS & FULL)
        won = np.zeros(len(keys), dtype=bool)
        for pattern in self.patterns:
            won |= (moved & pattern) == pattern
        return np.where(won, np.int8(Outcome.LOSS), np.int8(NOT_TERMINAL)).astype(np.int8)
