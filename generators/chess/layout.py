"""The index space of one chess material: keys, their squares, and canonical keys.

A material's pieces sit in *slots*: slot 0 the white king, slot 1 the black king, then
white's other pieces, then black's, each side in ``Q R B N P`` order. White holds the
first side of the material's name (the stronger one).

A key is ::

    key = stm + 2 * (pair(wk, bk) + K * (s2 + 64 * (s3 + 64 * s4))) + ep * 2 * placements

with ``stm`` the side to move (0 white, 1 black), ``wk``, ``bk``, ``s2``, ``s3`` the
squares of slots 0 to 3 (as many as the material has), ``pair`` the index of the two
kings' squares among the ``K`` *king pairs* of the layout, and ``placements = K * 64 **
(pieces - 2)``. The king pairs are those of two kings on distinct squares, not side by
side, the white king in its region, in the order of ``wk * 64 + bk``:

- without pawns, the region is the a1-d1-d4 triangle, and a white king on its diagonal
  (a1, b2, c3, d4) has the black king on or below the a1-h8 diagonal (file >= rank):
  ``K = 462``, the king pairs of Syzygy's and Gaviota's indexing;
- with pawns, the region is files a to d, the black king anywhere: ``K = 1806``.

Keys of impossible king placements (kings side by side, on one square, or a position
that the diagonal's mirror brings into the index) are left out of the index space, 28%
of a pawnless one: an ending of six pieces has ``2 * 462 * 64 ** 4``, 15.5 x 10^9 keys,
where one square of 10 for the white king and 64 for the black would give 21.5 x 10^9.

``ep`` is 1 for a position right after a double pawn push, where the pawn can be taken en
passant, else 0. Only a material with one pawn on each side (KPvKP within 4 pieces) has
this bit; its keys with ``ep = 1`` are legal only where that capture is legal. Syzygy
stores no en passant right, but its generator values the position after a double push
with the capture available, so the tablebase needs these positions to agree with it.

The canonical key of a position is the smallest key among its images under the board
symmetries (8 without pawns, the mirror of files with pawns; only the one or two that
bring the white king into its region need trying) that have one, and under the colour
flip (colours swapped, ranks mirrored, the other side to move) when both sides have the
same pieces. Identical pieces of one side (slots 2 and 3 of KBBvK, 3 and 4 of KRvKNN, 2
to 4 of KRRRvK) are ordered so the smaller squares go to the later slots, the smaller key.
"""

from __future__ import annotations

import numpy as np

from tablebase.generators.chess.tables import QUEENSIDE, SYMMETRIES, TRIANGLE, slots_of

NO_KEY = np.iinfo(np.int64).max
"""The key of a placement outside the index space (the white king outside its region, or
a king pair left out)."""

WHITE, BLACK = 0, 1


class Layout:
    """The index space of the material ``white`` v ``black`` (sides in normal form).

    :ivar types: the piece letter of each slot, e.g. ``"KKQR"`` for KQvKR.
    :ivar colours: int64[slots], 0 (white) or 1 (black) per slot.
    :ivar count: the number of slots (pieces).
    :ivar king_pairs: int64[K, 2] the squares of the white and the black king of each
        king pair; ``pair_of``: int64[4096] the index of ``wk * 64 + bk``, or -1.
    :ivar size: the number of keys, ``2 * placements`` (twice that with ``ep``).
    :ivar en_passant: whether keys carry the ``ep`` bit (one pawn on each side).
    :ivar twins: the runs of slots that hold identical pieces of one side, as
        ``(first, end)`` slot ranges of two or more.
    :ivar colour_flip: int64[slots], the slots in the colour-flipped position, for a
        material with the same pieces on both sides; else ``None``.
    """

    def __init__(self, white: str, black: str) -> None:
        self.white, self.black = white, black
        self.types = "KK" + white[1:] + black[1:]
        self.colours = np.array([WHITE, BLACK] + [WHITE] * (len(white) - 1) + [BLACK] * (len(black) - 1))
        self.count = len(self.types)
        pawns = "P" in self.types
        self.king_pairs, self.pair_of, self.lifts, self._lift_lists = _REGIONS[pawns]
        self.twins = _runs(self.types, self.colours)
        self.colour_flip = (
            np.array([1, 0] + list(range(len(white) + 1, self.count)) + list(range(2, len(white) + 1)))
            if white == black
            else None
        )
        self.en_passant = white.count("P") == 1 and black.count("P") == 1
        self.placements = len(self.king_pairs) * 64 ** (self.count - 2)
        self.size = 2 * self.placements * (2 if self.en_passant else 1)
        # plain lists for canonical_key, where a numpy call costs more than a Python step
        self._pairs = self.pair_of.tolist()
        self._flip_list = None if self.colour_flip is None else self.colour_flip.tolist()

    def slots(self, colour: int) -> list[int]:
        """The slots of one colour's pieces, the king first."""
        return [slot for slot in range(self.count) if self.colours[slot] == colour]

    def decode(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Split keys into their parts.

        :param keys: int64[n] keys in ``range(size)``.
        :returns: ``(stm, ep, squares)``: int64[n] side to move (0 white, 1 black),
            int64[n] the en passant bit, int64[n, slots] the square of each slot.
        """
        stm = keys & 1
        ep, rest = np.divmod(keys >> 1, self.placements)
        squares = np.empty((len(keys), self.count), dtype=np.int64)
        rest, pair = np.divmod(rest, len(self.king_pairs))
        squares[:, :2] = self.king_pairs[pair]
        for column in range(2, self.count):
            squares[:, column] = rest & 63
            rest = rest >> 6
        return stm, ep, squares

    def keys_of(self, stm: np.ndarray, ep: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`decode`, the twins ordered canonically.

        :param stm: int64[n] side to move; ``ep``: int64[n] en passant bit (0 or 1).
        :param squares: int64[n, slots] squares, every one on the board.
        :returns: int64[n] keys; :data:`NO_KEY` where the kings are no king pair.
        """
        columns = [squares[:, column] for column in range(self.count)]
        for first, end in self.twins:
            ordered = np.sort(squares[:, first:end], axis=1)[:, ::-1]
            columns[first:end] = [ordered[:, k] for k in range(end - first)]
        rest = np.zeros(len(stm), dtype=np.int64)
        for column in reversed(columns[2:]):
            rest = rest * 64 + column
        pair = self.pair_of[columns[0] * 64 + columns[1]]
        keys = stm + 2 * (pair + len(self.king_pairs) * rest) + ep * 2 * self.placements
        return np.where(pair >= 0, keys, NO_KEY)

    def canonical_keys(self, stm: np.ndarray, ep: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """The canonical key of each position (see the module docstring).

        :param stm: int64[n] side to move; ``ep``: int64[n] en passant bit.
        :param squares: int64[n, slots] squares of any placement, in this layout's slots.
        :returns: int64[n] keys.
        """
        images = [(stm, squares)]
        if self.colour_flip is not None:
            images.append((1 - stm, squares[:, self.colour_flip] ^ 56))
        best = np.full(len(stm), NO_KEY, dtype=np.int64)
        for side, placed in images:
            lifts = self.lifts[placed[:, 0]]
            best = np.minimum(best, self.keys_of(side, ep, _image(lifts[:, 0], placed)))
            rows = np.flatnonzero(lifts[:, -1] != lifts[:, 0])
            if len(rows):
                second = self.keys_of(side[rows], ep[rows], _image(lifts[rows, -1], placed[rows]))
                best[rows] = np.minimum(best[rows], second)
        return best


    def canonical_key(self, stm: int, ep: int, squares: list[int]) -> int:
        """:meth:`canonical_keys` of one position, in plain integers: a probe's fast path
        (the same steps, a position at a time; the tests hold the two to each other).

        :param squares: the square of each slot.
        """
        images = [(stm, squares)]
        if self._flip_list is not None:
            images.append((1 - stm, [squares[slot] ^ 56 for slot in self._flip_list]))
        best = NO_KEY
        for side, placed in images:
            for symmetry in self._lift_lists[placed[0]]:
                mapped = [_SYMMETRY_LISTS[symmetry][square] for square in placed]
                for first, end in self.twins:
                    mapped[first:end] = sorted(mapped[first:end], reverse=True)
                rest = 0
                for square in reversed(mapped[2:]):
                    rest = rest * 64 + square
                pair = self._pairs[mapped[0] * 64 + mapped[1]]
                if pair >= 0:
                    best = min(best, side + 2 * (pair + len(self.king_pairs) * rest) + ep * 2 * self.placements)
        return best

    def stride(self, slot: int) -> int:
        """How much a key grows when the piece of ``slot`` (not a king) stands one square
        higher, the others staying: ``2 * K * 64 ** (slot - 2)``."""
        return 2 * len(self.king_pairs) * 64 ** (slot - 2)


def _runs(types: str, colours: np.ndarray) -> list[tuple[int, int]]:
    """``(first, end)`` ranges of two or more consecutive slots with one piece and colour."""
    runs, first = [], 0
    for slot in range(1, len(types) + 1):
        if slot == len(types) or (types[slot], colours[slot]) != (types[first], colours[first]):
            if slot - first > 1:
                runs.append((first, slot))
            first = slot
    return runs


def _image(symmetry: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """int64[n, slots]: each row of ``squares`` mapped by its own row of
    :data:`SYMMETRIES` (int64[n] indices)."""
    return SYMMETRIES.ravel()[symmetry[:, None] * 64 + squares]


_SYMMETRY_LISTS = SYMMETRIES.tolist()


def _regions(pawns: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[list[int]]]:
    """``(king_pairs, pair_of, lifts, lift lists)`` of the white king's region,
    with or without pawns (made once each, in :data:`_REGIONS`): the king pairs as the
    module docstring gives them, the lifts as :func:`_lifts` gives them, and per square
    the distinct ones as a list."""
    region = QUEENSIDE if pawns else TRIANGLE
    lifts = _lifts(SYMMETRIES[:2] if pawns else SYMMETRIES, slots_of(region))
    king_pairs = _king_pairs(region, pawns)
    pair_of = np.full(64 * 64, -1, dtype=np.int64)
    pair_of[king_pairs[:, 0] * 64 + king_pairs[:, 1]] = np.arange(len(king_pairs))
    return king_pairs, pair_of, lifts, [sorted(set(row)) for row in lifts.tolist()]


def _king_pairs(region: np.ndarray, pawns: bool) -> np.ndarray:
    """int64[K, 2]: the ``(wk, bk)`` squares of each king pair, the white king in
    ``region``, in the order of ``wk * 64 + bk`` (the module docstring)."""
    wk, bk = (a.ravel() for a in np.meshgrid(region, np.arange(64), indexing="ij"))
    apart = np.maximum(abs((wk & 7) - (bk & 7)), abs((wk >> 3) - (bk >> 3))) > 1
    if not pawns:  # a white king on the diagonal: the black king on or below it
        apart &= ((wk & 7) != (wk >> 3)) | ((bk & 7) >= (bk >> 3))
    pairs = np.stack([wk[apart], bk[apart]], axis=1)
    return pairs[np.argsort(pairs[:, 0] * 64 + pairs[:, 1], kind="stable")]


def _lifts(symmetries: np.ndarray, region_slot: np.ndarray) -> np.ndarray:
    """int64[64, c]: for each square of the white king, the symmetries (rows of
    :data:`SYMMETRIES`) that bring it into its region, the last repeated to fill ``c``
    columns: 2 without pawns (a king on a diagonal has two), 1 with pawns."""
    inside = region_slot[symmetries] >= 0  # bool[symmetries, 64]
    count = inside.sum(axis=0)
    width = int(count.max())
    first = np.argsort(~inside, axis=0, kind="stable")  # per square, those that bring it in first, in order
    repeated = np.minimum(np.arange(width)[:, None], count - 1)
    return np.take_along_axis(first, repeated, axis=0).T.astype(np.int64)


_REGIONS = {pawns: _regions(pawns) for pawns in (False, True)}
""":func:`_regions` with and without pawns, made at import: an ending's first probe
builds several layouts, and making them for the first with pawns was a noticeable cost
(benchmarks/RESULTS.md)."""
