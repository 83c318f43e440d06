"""A chess layout as the compiled kernels read it: :class:`Spec`, and the piece codes.

The kernels (:mod:`.legality`, :mod:`.moves`, :mod:`.survey`, :mod:`.unmoves`,
:mod:`.children`) take a :class:`~tablebase.generators.chess.layout.Layout` as a
:class:`Spec` of plain arrays: its slots' pieces and colours, its king pairs, the
symmetries that bring the white king into its region (``Layout.lifts``), the digits of
its keys (identical pieces one digit), and the colour flip.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tablebase.generators.chess.layout import Layout

KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN = range(6)
"""Piece codes of :attr:`Spec.pieces`, in the order of ``"KQRBNP"``."""


_MOST_TARGETS = {"K": 8, "Q": 27, "R": 14, "B": 13, "N": 8, "P": 4}
"""The most moves one piece can have (a pawn: push, double push, two captures)."""


class Spec(NamedTuple):
    """A :class:`~tablebase.generators.chess.layout.Layout` as the kernels read it.

    :ivar pieces: int64[slots] piece codes (:data:`KING` ...); ``colours``: int64[slots].
    :ivar king_pairs: int64[K, 2] the kings' squares of each king pair; ``pair_of``:
        int64[4096] the king pair of ``wk * 64 + bk``, or -1.
    :ivar lifts: int64[64, c] the symmetries (rows of
        :data:`~tablebase.generators.chess.tables.SYMMETRIES`) to try per white king square.
    :ivar digits: int64[d, 3] ``(first, end, radix)`` of each digit of a key above its
        king pair (``Layout.digits``).
    :ivar flip: int64[slots] the slots of the colour-flipped position, or int64[0].
    :ivar placements: the number of keys per side to move.
    :ivar most_moves: int64[1] the most moves a position can have.
    :ivar runs: int64[slots, 3] ``(first, end, unit)`` of the digit of each slot but
        the kings': its slots and how much a key grows when the digit grows by one.
    :ivar pawns: int64[2] the pawn slot of each colour for a layout with the en passant
        bit (one pawn on each side), else -1 and -1.
    """

    pieces: np.ndarray
    colours: np.ndarray
    king_pairs: np.ndarray
    pair_of: np.ndarray
    lifts: np.ndarray
    digits: np.ndarray
    flip: np.ndarray
    placements: int
    most_moves: int
    runs: np.ndarray
    pawns: np.ndarray


def spec_of(layout: Layout) -> Spec:
    """The :class:`Spec` of a layout."""
    most = max(sum(_MOST_TARGETS[layout.types[s]] for s in layout.slots(colour)) for colour in (0, 1))
    return Spec(
        np.array(["KQRBNP".index(t) for t in layout.types], dtype=np.int64),
        layout.colours.astype(np.int64),
        layout.king_pairs.astype(np.int64),
        layout.pair_of.astype(np.int64),
        np.ascontiguousarray(layout.lifts, dtype=np.int64),
        layout.digits,
        np.zeros(0, np.int64) if layout.colour_flip is None else layout.colour_flip.astype(np.int64),
        int(layout.placements),
        int(most),
        np.array(
            [(0, 0, 0)] * 2 + [(first, end, layout.stride(first)) for first, end, _radix in layout.digits.tolist() for _slot in range(first, end)],
            dtype=np.int64,
        ),
        np.array([next(s for s in layout.slots(c) if layout.types[s] == "P") for c in (0, 1)] if layout.en_passant else [-1, -1], dtype=np.int64),
    )
