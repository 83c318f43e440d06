"""The stored values of other tablebases as a pass reads them: the successors of moves
that leave a tablebase (captures and promotions in chess) are looked up here.

Two forms serve the same lookups (:meth:`find`, then the value arrays indexed by what it
returns): the keys sorted beside their values (:class:`StoredTable`, any game), and a
number per key of an index space (:class:`IndexedTable`), which holds a 5-piece chess
ending in one byte a key where sorted keys take thirteen a position, and finds a key by
one array access instead of a binary search.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from numba import njit

from tablebase.core.batches import KeyWindow
from tablebase.core.errors import GameError
from tablebase.core.values import TO_DERIVE
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

    def remoteness_of(self, found: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """int32[k] the remoteness of int64[k] ``keys`` that :meth:`find` ``found``."""
        return self.remoteness[found]


Derive = Callable[[np.ndarray, np.ndarray, Callable[[np.ndarray], tuple[np.ndarray, ...]]], np.ndarray]
"""``derive(keys, outcome, held)``: int32[k] the remoteness of int64[k] stored keys whose
remoteness their tablebase leaves out (:data:`~tablebase.core.values.TO_DERIVE`), given
their int8[k] outcomes, valued from their moves (:func:`tablebase.read.derived.derived_remoteness`),
the successors that the table holds read from it (:meth:`IndexedTable.held`)."""


class IndexedTable:
    """A stored tablebase over its index space ``range(size)``: for each key the number
    of its value in a palette of the distinct values the tablebase holds (0 for a key
    that is no position). A chess ending holds a few hundred distinct values, so a key
    costs one byte (uint8 numbers), two past 255 distinct values.

    A tablebase that leaves one side's DTM out (``--dtm-sides``) is held as stored,
    such a key's remoteness :data:`~tablebase.core.values.TO_DERIVE`, and
    :meth:`remoteness_of` values the keys a pass asks for, once each: a pass reaches few
    of a dependency's keys (KPPvKR's promotions into KQPvKR, a queen on the eighth
    rank), and a search of one ply is cheap (benchmarks/RESULTS.md).

    :ivar outcome: int8[v], ``remoteness`` int32[v] and ``dtz`` int32[v] (or ``None``):
        the palette, indexed by what :meth:`find` returns; ``grundy`` is always ``None``.
    """

    grundy = None

    def __init__(
        self, numbers: np.ndarray, palette: Palette, dtz: bool, window: KeyWindow | None = None, derive: Derive | None = None
    ) -> None:
        self.numbers, self.palette, self.with_dtz, self.window, self.derive = numbers, palette, dtz, window, derive
        self._numbering = threading.Lock()  # passes value exits in threads
        self._unpack()

    def _unpack(self) -> None:
        """The palette's values as the arrays :meth:`find`'s numbers index."""
        packed = self.palette.values[: int(self.palette.used[0])]
        self.outcome = (packed & 3).astype(np.int8) - 1
        self.remoteness = ((packed >> 34) + TO_DERIVE).astype(np.int32)
        self.dtz = (((packed >> 2) & 0xFFFFFFFF) - 2**31).astype(np.int32) if self.with_dtz else None

    @staticmethod
    def gather(
        size: int, parts: Iterable[Part], dtz: bool, window: KeyWindow | None = None, derive: Derive | None = None
    ) -> IndexedTable | None:
        """The table of a tablebase read a part at a time.

        :param size: the size of its index space; every key must lie below it.
        :param dtz: whether the parts carry DTZ (then :attr:`dtz` is kept), else
            they have three members.
        :param window: keep only the keys of this window (a byte a key of the window's,
            not of the whole space); :meth:`find` then refuses the others.
        :param derive: values the remoteness the parts give as
            :data:`~tablebase.core.values.TO_DERIVE` (:meth:`remoteness_of`).
        :returns: the table, or ``None`` if the tablebase holds more than 65,535
            distinct values (a sorted :class:`StoredTable` then serves).
        """
        table = IndexedTable(np.zeros(size if window is None else window.size(size), dtype=np.uint8), Palette(), dtz, window, derive)
        for part in parts:
            if window is not None:
                inside = window.contains(part[0])
                part = tuple(values[inside] for values in part)
                part = (window.compact(part[0]),) + part[1:]
            if not table._number(*part):
                return None
        return table

    def _number(self, at: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray, dtz: np.ndarray | None = None) -> bool:
        """Set the numbers at int[k] ``at`` (the window's) to those of these values,
        widening the numbers to uint16 past 255 values; false past 65,535. The value
        arrays grow first, so that a number another thread finds is in them."""
        packed = (np.maximum(remoteness.astype(np.int64), TO_DERIVE) - TO_DERIVE) << 34 | (outcome.astype(np.int64) + 1)
        if self.with_dtz:
            assert dtz is not None
            packed |= (dtz.astype(np.int64) + 2**31) << 2
        found = _numbered(packed, self.palette.slots, self.palette.values, self.palette.used)
        if self.palette.used[0] > np.iinfo(self.numbers.dtype).max + 1:
            if self.palette.used[0] > len(self.palette.values):
                return False
            self.numbers = self.numbers.astype(np.uint16)
        self._unpack()
        self.numbers[at] = found
        return True

    def remoteness_of(self, found: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """int32[k] the remoteness of int64[k] ``keys`` that :meth:`find` ``found``, those
        left out (:data:`~tablebase.core.values.TO_DERIVE`) valued by ``derive``, their
        values kept in the table (so that a key is valued once).

        :raises GameError: if the table holds more than 65,535 distinct values then.
        """
        remoteness = self.remoteness[found]
        left_out = np.flatnonzero(remoteness == TO_DERIVE)
        if len(left_out) == 0 or self.derive is None:
            return remoteness
        unique, first, inverse = np.unique(keys[left_out], return_index=True, return_inverse=True)
        numbers = found[left_out][first]
        derived = self.derive(unique, self.outcome[numbers], self.held)
        at = unique if self.window is None else self.window.compact(unique)
        with self._numbering:
            if not self._number(at, self.outcome[numbers], derived, None if self.dtz is None else self.dtz[numbers]):
                raise GameError("a dependency holds more than 65,535 distinct values with its derived DTM")
        remoteness[left_out] = derived[inverse]
        return remoteness

    def held(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The values this table holds of int64[k] keys of its tablebase:
        ``(have, outcome, remoteness)``, bool[k] false for a key outside its window, not
        a position, or whose remoteness is left out; int8[k]; int32[k]."""
        window = self.window or KeyWindow(1, 0, 0, 0)  # radix 0: no window
        return _held(keys, self.numbers, self.outcome, self.remoteness, window.unit, window.radix, window.low, window.width)

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


class Palette:
    """The distinct values of an :class:`IndexedTable`, packed into int64s:
    ``values[:used[0]]`` (number 0 stands for no position), found by an open-addressing
    hash of their numbers (``slots``, -1 empty)."""

    def __init__(self) -> None:
        self.values = np.zeros(1 << 16, dtype=np.int64)
        self.slots = np.full(1 << 17, -1, dtype=np.int64)
        self.used = np.ones(1, dtype=np.int64)


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


@njit(cache=True, nogil=True)
def _held(keys, numbers, outcome, remoteness, unit, radix, low, width):  # type: ignore[no-untyped-def]
    """:meth:`IndexedTable.held` key by key: each key's number over the window
    (:meth:`~tablebase.core.game.KeyWindow.compact`; the whole space where ``radix`` is 0),
    its palette ``outcome`` and ``remoteness``, and whether it is held."""
    have = np.zeros(len(keys), dtype=np.bool_)
    found_outcome = np.zeros(len(keys), dtype=np.int8)
    found_remoteness = np.full(len(keys), -1, dtype=np.int32)
    for i in range(len(keys)):
        key, at = keys[i], keys[i]
        if radix > 0:
            digit = key // unit % radix
            if digit < low or digit >= low + width:
                continue
            at = key // (unit * radix) * (unit * width) + (digit - low) * unit + key % unit
        if at < 0 or at >= len(numbers) or numbers[at] == 0:
            continue
        number = numbers[at]
        found_outcome[i], found_remoteness[i] = outcome[number], remoteness[number]
        have[i] = remoteness[number] != TO_DERIVE
    return have, found_outcome, found_remoteness
