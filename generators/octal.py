"""Octal games: Kayles, Dawson's chess and their kin, heaps that a move may split in two.

An octal game is named by a code ``.d1 d2 d3 ...`` (Berlekamp, Conway and Guy, *Winning
Ways*, ch. 4): digit ``dj`` says what a move removing ``j`` tokens from one heap may leave
behind, as the sum of the bits 1 (nothing: the heap was exactly ``j``), 2 (one smaller
heap) and 4 (two non-empty heaps). Kayles is ``.77`` (knock down one pin or two adjacent
ones, anywhere in a row: OEIS A002186); Dawson's chess is ``.137`` (OEIS A002187), and
Dawson's Kayles, ``.07``, has its values shifted by one.

A position is a sum of heaps, written ``5+7+12`` (``0`` for the empty sum). The
tablebase stores single heaps ``0..max``, each with its Grundy value; a sum is valued by
the xor of its heaps' values. The side to move with no move loses (normal play).
"""

from __future__ import annotations

import numpy as np

from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.parameters import Parameter, at_least
from tablebase.generators.sums import SumGame, join_part_moves

Heaps = tuple[int, ...]
"""A sum of heaps: their sizes, ascending, none empty."""

Move = tuple[int, tuple[int, Heaps]]
"""``(heap, (taken, left))``: the heap played in, the tokens taken and the heaps left of it."""


def parse_code(text: str) -> tuple[int, ...]:
    """The digits of an octal code such as ``.137`` or ``0.77``.

    :raises ParameterError: for anything else.
    """
    digits = text.strip().removeprefix("0").removeprefix(".")
    if not digits or any(d not in "01234567" for d in digits):
        raise ParameterError(f"bad octal code {text!r}: expected digits 0-7 after a point, e.g. .137")
    return tuple(int(d) for d in digits)


def _check_code(text: str) -> str | None:
    try:
        parse_code(text)
    except ParameterError as error:
        return str(error)
    return None


class OctalGame(SumGame):
    """A heap game given by its octal ``code`` (see the module docstring).

    Index-space form over single heaps: key ``n`` is a heap of ``n`` tokens,
    ``0 <= n <= max``. A move's successor is a sum of at most two heaps.

    :raises ParameterError: for a bad code.
    """

    name = "octal"
    description = "Octal games: a move takes tokens from a heap and may split what is left in two"
    position_syntax = "heap sizes joined by +, e.g. 5+7+12 (0 for none); a move is heap-taken=left, e.g. 12-2=4+6"
    parameters = (
        Parameter("code", "str", ".77", "the octal code, e.g. .77 (Kayles) or .137 (Dawson's chess)", _check_code),
        Parameter("max", "int", 100, "largest heap", at_least(0)),
    )
    fixed_code: str | None = None
    """The code of a named octal game, which then takes no ``code`` parameter."""

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.code = parse_code(self.fixed_code or self.params["code"])
        self.size = self.params["max"] + 1

    # ---- per position

    def start_positions(self) -> list[Heaps]:
        """One position: a single heap of ``max``."""
        return [(self.params["max"],) if self.params["max"] else ()]

    def part_moves(self, heap: int) -> list[tuple[tuple[int, Heaps], Heaps]]:
        """``((taken, left), left)`` for every move in one heap."""
        found = []
        for taken, digit in enumerate(self.code, start=1):
            rest = heap - taken
            leaves = [()] if rest == 0 and digit & 1 else []
            leaves += [(rest,)] if rest >= 1 and digit & 2 else []
            leaves += [(a, rest - a) for a in range(1, rest // 2 + 1)] if rest >= 2 and digit & 4 else []
            found += [((taken, left), left) for left in leaves]
        return found

    def encode(self, position: Heaps) -> int:
        """A single heap's key is its size (the empty sum is 0).

        :raises PositionError: for a sum of several heaps, which is not stored.
        """
        if len(position) > 1:
            raise PositionError(f"{self.format(position)} is a sum: only single heaps have keys")
        return position[0] if position else 0

    def decode(self, key: int) -> Heaps:
        """The heap of a key (the empty sum for 0)."""
        return (key,) if key else ()

    def parse(self, text: str) -> Heaps:
        """Read heap sizes joined by ``+``. :raises PositionError: for a bad or too big heap."""
        try:
            heaps = [int(part) for part in text.split("+")]
        except ValueError:
            raise PositionError(f"bad heaps {text!r}: expected sizes joined by +, e.g. 5+7+12") from None
        if any(not 0 <= heap <= self.params["max"] for heap in heaps):
            raise PositionError(f"bad heaps {text!r}: each heap is between 0 and {self.params['max']}")
        return tuple(sorted(heap for heap in heaps if heap))

    def format(self, position: Heaps) -> str:
        """Heap sizes joined by ``+``, e.g. ``5+7+12``; ``0`` for the empty sum."""
        return "+".join(map(str, position)) or "0"

    def format_move(self, move: Move) -> str:
        """``heap-taken=left``, e.g. ``12-2=4+6``."""
        heap, (taken, left) = move
        return f"{heap}-{taken}={self.format(left)}"

    # ---- batch

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized moves of single heaps: ``(src_index, parts)``, int64[m] and
        int64[m, 2], each move's heaps left (-1 for none), sources ascending."""
        keys = np.asarray(keys, dtype=np.int64)
        sources, parts = [], []
        for taken, digit in enumerate(self.code, start=1):
            rest = keys - taken
            if digit & 1:
                rows = np.flatnonzero(rest == 0)
                sources.append(rows)
                parts.append(np.full((len(rows), 2), -1))
            if digit & 2:
                rows = np.flatnonzero(rest >= 1)
                sources.append(rows)
                parts.append(np.column_stack([rest[rows], np.full(len(rows), -1)]))
            if digit & 4 and len(keys):
                splits = np.arange(1, max(int(rest.max()) // 2, 0) + 1)
                rows, a = np.nonzero(splits[None, :] <= rest[:, None] // 2)
                sources.append(rows)
                parts.append(np.column_stack([splits[a], rest[rows] - splits[a]]))
        return join_part_moves(sources, parts)


class Kayles(OctalGame):
    """Kayles (octal ``.77``): knock down one pin or two adjacent pins of a row."""

    name = "kayles"
    description = "Kayles: knock down one pin or two adjacent pins; rows split in two"
    parameters = (OctalGame.parameters[1],)
    fixed_code = ".77"


class Dawson(OctalGame):
    """Dawson's chess (octal ``.137``), the pawn game of T. R. Dawson, 1934."""

    name = "dawson"
    description = "Dawson's chess (octal .137): Dawson's Kayles (.07) shifted by one"
    parameters = (OctalGame.parameters[1],)
    fixed_code = ".137"
