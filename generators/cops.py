"""Police and thief on a grid: the classic exercise in retrograde analysis.

The map is a text file: a first line ``N M`` (rows, columns), then ``N`` rows of ``M``
characters: ``.`` a free cell, ``*`` a wall, ``E`` an exit, ``C`` the police's start and
``T`` the thief's start (``E``, ``C`` and ``T`` are free cells; exactly one ``C`` and one
``T``). The police moves first, to any of its 8 neighbouring free cells (a diagonal step
may cut the corner between two walls); the thief moves to any of its 4 orthogonal free
neighbours; either side may pass and stay where it is.

The police wins by reaching the thief's cell; otherwise the thief wins by standing on an
exit. Terminal positions, for the side to move:

- police and thief on one cell: ``loss`` if the thief is to move, ``win`` if the police is;
- else the thief on an exit: ``loss`` if the police is to move, ``win`` if the thief is.

A position is ``(police, thief, side)``: two cell indices ``row * M + column`` (0-based)
and the side to move, 0 for the police and 1 for the thief. Its key is
``(police * cells + thief) * 2 + side`` with ``cells = N * M``; a key is legal when neither
cell is a wall. Users see 1-based rows and columns: ``police=2,3 thief=4,1 move=thief``.
"""

from __future__ import annotations

import re

import numpy as np

from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.game import Game
from tablebase.core.parameters import Parameter
from tablebase.core.values import NOT_TERMINAL, Outcome

Cell = int
"""A cell index ``row * columns + column``, 0-based."""

CopsPosition = tuple[Cell, Cell, int]
"""``(police cell, thief cell, side to move)``; side 0 is the police, 1 the thief."""

POLICE, THIEF = 0, 1

# Each side's steps as (row, column) offsets; the pass (0, 0) comes first.
POLICE_STEPS = ((0, 0), (-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
THIEF_STEPS = ((0, 0), (-1, 0), (0, -1), (0, 1), (1, 0))

MAP_CHARS = ".*ECT"

_POSITION = re.compile(
    r"\s*police\s*=\s*(\d+)\s*,\s*(\d+)\s+thief\s*=\s*(\d+)\s*,\s*(\d+)"
    r"\s+move\s*=\s*(police|thief)\s*",
    re.IGNORECASE,
)


def parse_map(text: str) -> tuple[int, int, str]:
    """Read a map file.

    :param text: the file's text, in the format of the module docstring.
    :returns: ``(rows, columns, cells)``: ``cells`` is the map's characters row by row,
        a string of length ``rows * columns``.
    :raises ParameterError: on a bad size line, a row of the wrong length, an unknown
        character, extra lines, or not exactly one ``C`` and one ``T``; the message names
        the map line.
    """
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        raise ParameterError("map: the file is empty; expected a first line 'N M'")
    size = lines[0].split()
    if len(size) != 2 or not all(part.isdigit() and int(part) > 0 for part in size):
        raise ParameterError(f"map line 1: expected two positive integers 'N M', got {lines[0]!r}")
    rows, columns = int(size[0]), int(size[1])
    if len(lines) - 1 != rows:
        raise ParameterError(f"map: the size line says {rows} rows, but {len(lines) - 1} follow")
    for number, row in enumerate(lines[1:], start=2):
        if len(row) != columns:
            raise ParameterError(f"map line {number}: expected {columns} cells, got {len(row)}")
        bad = set(row) - set(MAP_CHARS)
        if bad:
            raise ParameterError(
                f"map line {number}: unknown cell {min(bad)!r}; expected one of {MAP_CHARS}"
            )
    cells = "".join(lines[1:])
    for char, who in (("C", "police"), ("T", "thief")):
        if cells.count(char) != 1:
            raise ParameterError(f"map: expected exactly one {char!r} ({who} start), got {cells.count(char)}")
    return rows, columns, cells


def neighbour_table(free: np.ndarray, columns: int, steps: tuple[tuple[int, int], ...]) -> np.ndarray:
    """Where one step leads from each cell.

    :param free: bool[cells], the free cells of a map with ``columns`` columns.
    :param steps: ``(row, column)`` offsets.
    :returns: int64[cells, len(steps)]: the destination cell, or -1 where the step leaves
        the map, lands on a wall or starts from a wall.
    """
    rows = len(free) // columns
    row, column = np.divmod(np.arange(len(free)), columns)
    table = np.full((len(free), len(steps)), -1, dtype=np.int64)
    for index, (dr, dc) in enumerate(steps):
        r, c = row + dr, column + dc
        inside = (r >= 0) & (r < rows) & (c >= 0) & (c < columns) & free
        destination = np.where(inside, r * columns + c, 0)
        table[:, index] = np.where(inside & free[destination], destination, -1)
    return table


class Cops(Game):
    """Police and thief on a grid map; see the module docstring for the rules and keys.

    :param map: the map file's text (a ``file`` parameter).
    :raises ParameterError: for a bad map (see :func:`parse_map`).
    """

    name = "cops"
    description = "police (8 directions) chases a thief (4 directions) to a map's exits"
    position_syntax = (
        "police=R,C thief=R,C move=police|thief (rows, columns 1-based); "
        "a move is the destination R,C or pass"
    )
    parameters = (
        Parameter("map", "file", None, "map file: 'N M', then N rows of . * E C T"),
    )

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self.rows, self.columns, self.map = parse_map(self.params["map"])
        self.cells = self.rows * self.columns
        self.size = self.cells * self.cells * 2
        chars = np.frombuffer(self.map.encode("ascii"), dtype="S1")
        self.free = chars != b"*"
        self.exit = chars == b"E"
        self.steps = (
            neighbour_table(self.free, self.columns, POLICE_STEPS),
            neighbour_table(self.free, self.columns, THIEF_STEPS),
        )

    # ---- enumeration

    def legal(self, keys: np.ndarray) -> np.ndarray:
        """bool[n]: neither the police's nor the thief's cell of int64[n] keys is a wall."""
        police, thief, _side = self._split(keys)
        return self.free[police] & self.free[thief]

    def start_positions(self) -> list[CopsPosition]:
        """The map's ``C`` and ``T`` cells, the police to move."""
        return [(self.map.index("C"), self.map.index("T"), POLICE)]

    # ---- per position

    def moves(self, position: CopsPosition) -> list[tuple[Cell | None, CopsPosition]]:
        """The side to move's steps, the pass (move ``None``) first."""
        police, thief, side = position
        mover = thief if side == THIEF else police
        result = []
        for index, cell in enumerate(self.steps[side][mover].tolist()):
            if cell < 0:
                continue
            child = (police, cell, POLICE) if side == THIEF else (cell, thief, THIEF)
            result.append((None if index == 0 else cell, child))
        return result

    def terminal(self, position: CopsPosition) -> Outcome | None:
        """Caught (police wins) before escaped (thief wins); see the module docstring."""
        police, thief, side = position
        if police == thief:
            return Outcome.LOSS if side == THIEF else Outcome.WIN
        if self.exit[thief]:
            return Outcome.WIN if side == THIEF else Outcome.LOSS
        return None

    def encode(self, position: CopsPosition) -> int:
        """The key: ``(police * cells + thief) * 2 + side``."""
        police, thief, side = position
        return (police * self.cells + thief) * 2 + side

    def decode(self, key: int) -> CopsPosition:
        """Inverse of :meth:`encode`: ``(police, thief, side)``."""
        pair, side = divmod(int(key), 2)
        police, thief = divmod(pair, self.cells)
        return police, thief, side

    def parse(self, text: str) -> CopsPosition:
        """Read ``police=R,C thief=R,C move=police|thief`` (1-based, spaces allowed).

        :raises PositionError: for other text, or a cell outside the map or on a wall.
        """
        match = _POSITION.fullmatch(text)
        if not match:
            raise PositionError(f"cannot read position {text!r}: expected {self.position_syntax}")
        cells = []
        for who, row, column in (("police", *match.group(1, 2)), ("thief", *match.group(3, 4))):
            r, c = int(row), int(column)
            if not (1 <= r <= self.rows and 1 <= c <= self.columns):
                raise PositionError(f"{who} cell {r},{c} is outside the {self.rows}x{self.columns} map")
            if not self.free[(r - 1) * self.columns + c - 1]:
                raise PositionError(f"{who} cell {r},{c} is a wall")
            cells.append((r - 1) * self.columns + c - 1)
        side = THIEF if match.group(5).lower() == "thief" else POLICE
        return cells[0], cells[1], side

    def format(self, position: CopsPosition) -> str:
        """``police=R,C thief=R,C move=police|thief``, rows and columns 1-based."""
        police, thief, side = position
        mover = "thief" if side == THIEF else "police"
        return f"police={self._cell(police)} thief={self._cell(thief)} move={mover}"

    def format_move(self, move: Cell | None) -> str:
        """The destination ``R,C`` (1-based), or ``pass``."""
        return "pass" if move is None else self._cell(move)

    # ---- batch

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every step out of int64[n] keys, in :meth:`moves` order; ``src_index`` ascending."""
        police, thief, side = self._split(keys)
        thief_moves = side == THIEF
        destinations = np.full((len(keys), len(POLICE_STEPS)), -1, dtype=np.int64)
        destinations[~thief_moves] = self.steps[POLICE][police[~thief_moves]]
        destinations[thief_moves, : len(THIEF_STEPS)] = self.steps[THIEF][thief[thief_moves]]
        thief_column = thief_moves[:, None]
        new_police = np.where(thief_column, police[:, None], destinations)
        new_thief = np.where(thief_column, destinations, thief[:, None])
        children = (new_police * self.cells + new_thief) * 2 + (1 - side)[:, None]
        valid = destinations >= 0
        return np.nonzero(valid)[0].astype(np.int64), children[valid]

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: :meth:`terminal` of int64[n] keys, ``NOT_TERMINAL`` where ``None``."""
        police, thief, side = self._split(keys)
        values = np.full(len(keys), NOT_TERMINAL, dtype=np.int8)
        thief_moves = side == THIEF
        escaped = self.exit[thief]
        values[escaped] = np.where(thief_moves[escaped], Outcome.WIN, Outcome.LOSS)
        caught = police == thief
        values[caught] = np.where(thief_moves[caught], Outcome.LOSS, Outcome.WIN)
        return values

    # ---- helpers

    def _split(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        keys = np.asarray(keys, dtype=np.int64)
        pair, side = np.divmod(keys, 2)
        police, thief = np.divmod(pair, self.cells)
        return police, thief, side

    def _cell(self, cell: Cell) -> str:
        row, column = divmod(cell, self.columns)
        return f"{row + 1},{column + 1}"
