"""The stored values of other tablebases as a pass reads them: the successors of moves
that leave a tablebase (captures and promotions in chess) are looked up here.

Two forms serve the same lookups (:meth:`find`, then the value arrays indexed by what it
returns): the keys sorted beside their values (:class:`StoredTable`, any game), and a
number per key of an index space (:class:`IndexedTable`), which holds a 5-piece chess
ending in one byte a key where sorted keys take thirteen a position, and finds a key by
one array access instead of a binary search.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numba import njit

from tablebase.errors import GameError
from tablebase.game import KeyWindow
from tablebase.solve.graph import index_of

Part = tuple[np.ndarray, ...]
"""``(keys, outcome, remoteness)`` of some positions of a stored tablebase, and their
``dtz`` where it stores DTZ: int64[k] keys, int8[k] outcomes, int[k] remoteness (plies,
-1 for none), int[k] signed DTZ."""


@dataclass(frozen=True)
class StoredTable:
    """A stored tablebase, sorted by key: ``keys`` int64[n], ``outcome`` int8[n],
    ``remoteness`` int32[n] (-1 for none), and ``grundy`` int64[n] its Grundy values
    (:data:`~tablebase.solve.acyclic.NO_GRUNDY` where none) or ``None`` when it stores
    none."""

    keys: np.ndarray
    outcome: np.ndarray
    remoteness: np.ndarray
    grundy: np.ndarray | None
    dtz: np.ndarray | None = None
    """int32[n] signed DTZ under the 50-move rule (:mod:`tablebase.solve.dtz`), or ``None``."""

    def find(self, wanted: np.ndarray) -> np.ndarray:
        """int[k]: where the values of int64[k] ``wanted`` keys lie in the value arrays.

        :raises GameError: if a key is not a position of the tablebase.
        """
        return index_of(self.keys, wanted)


class IndexedTable:
    """A stored tablebase over its index space ``range(size)``: for each key the number
    of its value in a palette of the distinct values the tablebase holds (0 for a key
    that is no position). A chess ending holds a few hundred distinct values, so a key
    costs one byte (uint8 numbers), two past 255 distinct values.

    :ivar outcome: int8[v], ``remoteness`` int32[v] and ``dtz`` int32[v] (or ``None``):
        the palette, indexed by what :meth:`find` returns; ``grundy`` is always ``None``.
    """

    grundy = None

    def __init__(self, numbers: np.ndarray, palette: np.ndarray, dtz: bool, window: KeyWindow | None = None) -> None:
        self.numbers, self.window = numbers, window
        self.outcome = (palette & 3).astype(np.int8) - 1
        self.remoteness = ((palette >> 34) - 1).astype(np.int32)
        self.dtz = (((palette >> 2) & 0xFFFFFFFF) - 2**31).astype(np.int32) if dtz else None

    @staticmethod
    def gather(size: int, parts: Iterable[Part], dtz: bool, window: KeyWindow | None = None) -> IndexedTable | None:
        """The table of a tablebase read a part at a time.

        :param size: the size of its index space; every key must lie below it.
        :param dtz: whether the parts carry DTZ (then :attr:`dtz` is kept), else
            they have three members.
        :param window: keep only the keys of this window (a byte a key of the window's,
            not of the whole space); :meth:`find` then refuses the others.
        :returns: the table, or ``None`` if the tablebase holds more than 65,535
            distinct values (a sorted :class:`StoredTable` then serves).
        """
        numbers = np.zeros(size if window is None else window.size(size), dtype=np.uint8)
        slots = np.full(1 << 17, -1, dtype=np.int64)
        palette = np.zeros(1 << 16, dtype=np.int64)
        used = np.ones(1, dtype=np.int64)  # number 0 stands for no position
        for part in parts:
            if window is not None:
                inside = window.contains(part[0])
                part = tuple(values[inside] for values in part)
                part = (window.compact(part[0]),) + part[1:]
            keys, outcome, remoteness = part[:3]
            packed = (np.maximum(remoteness.astype(np.int64), -1) + 1) << 34 | (outcome.astype(np.int64) + 1)
            if dtz:
                packed |= (part[3].astype(np.int64) + 2**31) << 2
            found = _numbered(packed, slots, palette, used)
            if used[0] > np.iinfo(numbers.dtype).max + 1:
                if used[0] > 1 << 16:
                    return None
                numbers = numbers.astype(np.uint16)
            numbers[keys] = found
        return IndexedTable(numbers, palette[: int(used[0])], dtz, window)

    def find(self, wanted: np.ndarray) -> np.ndarray:
        """int[k]: the palette numbers of int64[k] ``wanted`` keys.

        :raises GameError: if a key is not a position of the tablebase.
        """
        if self.window is not None:
            outside = ~self.window.contains(wanted)
            if outside.any():
                raise GameError(f"a move leads to key {int(wanted[outside][0])}, outside the keys its moves can reach (Game.exit_window)")
            at = self.window.compact(wanted)
        else:
            at = wanted
        if len(at) and (at.min() < 0 or at.max() >= len(self.numbers)):
            outside = wanted[(at < 0) | (at >= len(self.numbers))]
            raise GameError(f"a move leads to key {int(outside[0])}, outside the index space of the tablebase")
        found = self.numbers[at]
        if not found.all():
            missing = int(wanted[found == 0][0])
            raise GameError(f"a move leads to key {missing}, which is not a position of the tablebase")
        return found


@njit(cache=True, nogil=True)
def _numbered(packed, slots, palette, used):
    """uint16[k]: the palette number of each int64[k] packed value, found in (or added
    to) an open-addressing hash of ``slots`` (int64[2**17], -1 empty) over ``palette``
    (int64[2**16]); ``used[0]`` counts the palette's entries. Stops adding at 2**16."""
    found = np.zeros(len(packed), dtype=np.uint16)
    mask = len(slots) - 1
    for i in range(len(packed)):
        value = packed[i]
        h = (np.uint64(value) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(47)
        while slots[h] >= 0 and palette[slots[h]] != value:
            h = (h + np.uint64(1)) & np.uint64(mask)
        if slots[h] < 0:
            if used[0] >= len(palette):
                used[0] += 1
                return found
            slots[h] = used[0]
            palette[used[0]] = value
            used[0] += 1
        found[i] = slots[h]
    return found
