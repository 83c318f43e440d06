"""The cutting game: players cut a sheet of squared paper; cutting out a 1x1 square wins.

Each move takes one sheet and cuts it along a grid line into two sheets. Whoever cuts out
a 1x1 square wins. A cut that leaves a strip one square wide (1xk) hands the opponent
that win, so, as usual, such cuts are not made: a move leaves two sheets of at least 2x2,
and the side to move without such a cut loses (2x2, 2x3 and 3x3 are losses; e.g. POJ
2311, "Cutting Game"). The game is impartial; a position is a sum of sheets, valued by the
xor of the sheets' Grundy values.
"""

from __future__ import annotations

import numpy as np

from tablebase.core.errors import PositionError
from tablebase.core.parameters import Parameter, at_least
from tablebase.generators.sums import SumGame, join_part_moves

Sheets = tuple[tuple[int, int], ...]
"""A sum of sheets: ``(width, height)`` pairs, each with width <= height, sorted."""

Move = tuple[tuple[int, int], tuple[str, int]]
"""``(sheet, ("v" or "h", at))``: the sheet cut, across its width (``v``, a vertical cut
after ``at`` columns) or its height (``h``, after ``at`` rows)."""


def _sheet(width: int, height: int) -> tuple[int, int]:
    """A sheet in normal form: the shorter side first (a sheet may be turned)."""
    return (min(width, height), max(width, height))


class Cutting(SumGame):
    """Sheets of up to ``max`` by ``max`` squares, in the index-space form over single
    sheets: key ``width * (max + 1) + height``, with ``2 <= width <= height <= max``."""

    name = "cutting"
    description = "The cutting game: cut sheets of squared paper in two; cutting out a 1x1 square wins"
    position_syntax = "sheets WxH joined by +, e.g. 5x7+3x3; a move is WxH:vN (cut after N columns) or WxH:hN"
    parameters = (Parameter("max", "int", 30, "longest side of a sheet", at_least(2)),)

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.side = self.params["max"] + 1
        self.size = self.side**2

    def start_positions(self) -> list[Sheets]:
        """One position: a single sheet of ``max`` by ``max``."""
        return [((self.params["max"], self.params["max"]),)]

    def part_moves(self, sheet: tuple[int, int]) -> list[tuple[tuple[str, int], Sheets]]:
        """``((direction, at), two sheets)`` for every cut of a sheet that leaves no strip."""
        width, height = sheet
        across = [(("v", at), (_sheet(at, height), _sheet(width - at, height))) for at in range(2, width - 1)]
        down = [(("h", at), (_sheet(width, at), _sheet(width, height - at))) for at in range(2, height - 1)]
        return across + down

    def legal(self, keys: np.ndarray) -> np.ndarray:
        """bool[n]: keys of sheets with ``2 <= width <= height``."""
        width, height = np.divmod(np.asarray(keys, dtype=np.int64), self.side)
        return (width >= 2) & (width <= height)

    def encode(self, position: Sheets) -> int:
        """A single sheet's key. :raises PositionError: for a sum of several sheets."""
        if len(position) != 1:
            raise PositionError(f"{self.format(position)} is not a single sheet: only single sheets have keys")
        width, height = position[0]
        return width * self.side + height

    def decode(self, key: int) -> Sheets:
        """The sheet of a key."""
        return (divmod(key, self.side),)

    def parse(self, text: str) -> Sheets:
        """Read sheets ``WxH`` joined by ``+``.

        :raises PositionError: for bad syntax, or a side below 2 or above ``max``.
        """
        sheets = []
        for part in text.lower().split("+"):
            try:
                width, height = (int(side) for side in part.split("x"))
            except ValueError:
                raise PositionError(f"bad sheets {text!r}: expected WxH joined by +, e.g. 5x7+3x3") from None
            if not (2 <= width <= self.params["max"] and 2 <= height <= self.params["max"]):
                raise PositionError(f"bad sheet {part!r}: each side is between 2 and {self.params['max']}")
            sheets.append(_sheet(width, height))
        return tuple(sorted(sheets))

    def format(self, position: Sheets) -> str:
        """Sheets ``WxH`` joined by ``+``, e.g. ``3x3+5x7``; ``none`` for no sheet."""
        return "+".join(f"{w}x{h}" for w, h in position) or "none"

    def format_move(self, move: Move) -> str:
        """``WxH:vN`` or ``WxH:hN``, e.g. ``5x7:v2``."""
        (width, height), (direction, at) = move
        return f"{width}x{height}:{direction}{at}"

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized cuts of single sheets: ``(src_index, parts)``, int64[m] and
        int64[m, 2] (the two sheets' keys), sources ascending."""
        width, height = np.divmod(np.asarray(keys, dtype=np.int64), self.side)
        sources, parts = [], []
        for at in range(2, self.params["max"] - 1):
            for cut, other in ((width, height), (height, width)):
                rows = np.flatnonzero(at <= cut - 2)
                pieces = [(np.full(len(rows), at), other[rows]), (cut[rows] - at, other[rows])]
                keys_of = [np.minimum(a, b) * self.side + np.maximum(a, b) for a, b in pieces]
                sources.append(rows)
                parts.append(np.column_stack(keys_of))
        return join_part_moves(sources, parts)
