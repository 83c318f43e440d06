"""The index space of a chess variant's ending (atomic, antichess): :class:`VariantLayout`,
and the plain arrays the compiled kernels read it as (:class:`VariantSpec`).

A key is ``stm + 2 * (lead + regions * (s1 + 64 * (s2 + 64 * ...)))``: the side to move in
its lowest bit (white 0), then the lead slot's square as its number in the region
(:data:`~tablebase.generators.chess.tables.TRIANGLE` without pawns, the files a-d
with them), then the square of every other slot, six bits each. Slots hold white's pieces
then black's, each side in ``KQRBNP`` order; white holds the first side of the material's
normal form. Unlike standard chess's layout there is no king pair: atomic's kings may
stand side by side and antichess has no royal piece, so the lead is slot 0, whatever it
holds.

A position has one canonical key: the least key among its images under the board's
symmetries (eight without pawns, the mirror of files with them) that bring a piece of the
lead's kind and colour into the region, its twins (identical pieces) in rising order of
square; for an ending of like sides (``KRvKR``, ``NvN``) the colour flip is a symmetry
too. Every other key, and every key of an illegal placement, is not a position
(:func:`~tablebase.generators.variants.kernels.legal_kernel`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tablebase.generators.chess.tables import QUEENSIDE, SYMMETRIES, TRIANGLE

PIECES = "KQRBNP"
"""Piece letters; a slot's piece code is its letter's index (as standard chess's kernels)."""


class VariantSpec(NamedTuple):
    """A :class:`VariantLayout` as the kernels read it.

    :ivar pieces: int64[slots] piece codes (0 king ... 5 pawn); ``colours``: int64[slots].
    :ivar group_end: int64[slots] the end slot of each slot's run of twins (one past the
        last identical piece), a slot alone its own slot plus one.
    :ivar region: int64[r] the lead's squares; ``region_of``: int64[64] each square's
        number in it, or -1.
    :ivar symmetries: int64[g, 64] the square permutations canonical forms use.
    :ivar lifts: int64[64, w] the rows of ``symmetries`` that bring each square into the
        region, -1 after them (one or two).
    :ivar sends: int64[64, 64] a bitmask of the rows of ``symmetries`` but the first
        (the identity) that send each square onto each square.
    :ivar flip: int64[slots] the slot each slot becomes under the colour flip (an ending
        of like sides), else int64[0].
    :ivar kings: int64[2] the slot of each colour's king in atomic, -1 in antichess.
    :ivar rules: 0 for atomic, 1 for antichess (:data:`ATOMIC`, :data:`ANTICHESS`).
    :ivar placements: the keys without an en passant right (:attr:`VariantLayout.placements`).
    """

    pieces: np.ndarray
    colours: np.ndarray
    group_end: np.ndarray
    region: np.ndarray
    region_of: np.ndarray
    symmetries: np.ndarray
    lifts: np.ndarray
    sends: np.ndarray
    flip: np.ndarray
    kings: np.ndarray
    rules: int
    placements: int


ATOMIC, ANTICHESS = 0, 1
"""The values of :attr:`VariantSpec.rules`."""


def _sends(symmetries: np.ndarray) -> np.ndarray:
    """:attr:`VariantSpec.sends` of int64[g, 64] ``symmetries``, the identity first."""
    sends = np.zeros((64, 64), dtype=np.int64)
    for row in range(1, len(symmetries)):
        sends[np.arange(64), symmetries[row]] |= 1 << row
    return sends


class VariantLayout:
    """The keys of one ending of a chess variant (see the module docstring).

    :param white: the first side's pieces in ``KQRBNP`` order, e.g. ``"KQ"`` or ``"RR"``.
    :param black: the second side's.
    :param rules: :data:`ATOMIC` or :data:`ANTICHESS`.
    """

    def __init__(self, white: str, black: str, rules: int) -> None:
        self.white, self.black = white, black
        self.types = white + black
        self.count = len(self.types)
        self.colours = np.array([0] * len(white) + [1] * len(black), dtype=np.int64)
        self.pawns = "P" in self.types
        self.region = QUEENSIDE if self.pawns else TRIANGLE
        self.twins = [(first, end) for first, end in self._runs() if end - first > 1]
        """The runs of identical pieces ``(first, end)`` of two or more slots."""
        self.en_passant = "P" in white and "P" in black
        """Whether a position may have an en passant capture: pawns on both sides."""
        self.placements = 2 * len(self.region) * 64 ** (self.count - 1)
        """The keys without an en passant right."""
        self.size = self.placements * (1 + 8 * self.en_passant)
        self.like_sides = white == black
        ends = np.zeros(self.count, dtype=np.int64)
        for first, end in self._runs():
            ends[first:end] = end
        region_of = np.full(64, -1, dtype=np.int64)
        region_of[self.region] = np.arange(len(self.region))
        half = len(white)
        flip = np.array([(s + half) % self.count for s in range(self.count)], dtype=np.int64) if self.like_sides else np.zeros(0, np.int64)
        self.colour_flip = flip if self.like_sides else None
        """The slots each slot becomes under the colour flip, an ending of like sides;
        else None (as standard chess's ``Layout.colour_flip``)."""
        symmetries = np.ascontiguousarray(SYMMETRIES[:2] if self.pawns else SYMMETRIES, dtype=np.int64)
        lifts = np.full((64, 2), -1, dtype=np.int64)
        for square in range(64):
            into = np.flatnonzero(region_of[symmetries[:, square]] >= 0)
            lifts[square, : len(into)] = into
        self.spec = VariantSpec(
            np.array([PIECES.index(t) for t in self.types], dtype=np.int64),
            self.colours,
            ends,
            self.region.astype(np.int64),
            region_of,
            symmetries,
            lifts,
            _sends(symmetries),
            flip,
            np.array([self.types.index("K", 0 if c == 0 else len(white)) if rules == ATOMIC else -1 for c in (0, 1)], dtype=np.int64),
            rules,
            self.placements,
        )

    def _runs(self) -> list[tuple[int, int]]:
        """Every run of slots holding one kind of piece of one colour, ``(first, end)``."""
        runs, first = [], 0
        for slot in range(1, self.count + 1):
            if slot == self.count or self.types[slot] != self.types[first] or self.colours[slot] != self.colours[first]:
                runs.append((first, slot))
                first = slot
        return runs

    def decode(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(stm, ep, squares)`` of int64[n] keys: int64[n] sides to move, int64[n]
        whether it has an en passant right (the shape of standard chess's
        ``Layout.decode``) and int64[n, slots] squares."""
        from tablebase.generators.variants.keys import decode_kernel

        keys = np.asarray(keys, dtype=np.int64)
        squares, stm = decode_kernel(keys, self.spec, self.count)
        return stm, (keys >= self.placements).astype(np.int64), squares

    def stride(self, slot: int) -> int:
        """The keys that share the squares of ``slot`` and every slot after it: the
        side to move and the digits below ``slot``'s (2 for slot 0)."""
        return 2 if slot == 0 else 2 * len(self.region) * 64 ** (slot - 1)

    def slots_of(self, colour: int, letter: str) -> list[int]:
        """The slots of a colour's pieces of one kind (``letter`` upper case)."""
        return [s for s in range(self.count) if self.types[s] == letter and self.colours[s] == colour]
