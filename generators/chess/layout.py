"""The index space of one chess material: keys, their squares, and canonical keys.

A material's pieces sit in *slots*: slot 0 the white king, slot 1 the black king, then
white's other pieces, then black's, each side in ``Q R B N P`` order. White holds the
first side of the material's name (the stronger one).

A key is ::

    key = stm + 2 * (pair(wk, bk) + K * (d2 + r2 * (d3 + r3 * d4))) + ep * 2 * placements

with ``stm`` the side to move (0 white, 1 black), ``wk`` and ``bk`` the kings' squares,
``pair`` their index among the ``K`` *king pairs* of the layout, and ``d2``, ``d3``, ...
the *digits* of the other pieces, slot by slot from slot 2, ``placements = K * r2 * r3
...`` the product of the digits' radices. A piece of its own has the digit of its square
(radix 64); a run of ``k`` identical pieces of one side (slots 2 and 3 of KBBvK, 3 and 4
of KRvKNN, 2 to 4 of KRRRvK) has one digit of radix ``C(64, k)``, the rank of their
squares as a combination, ``C(c1, k) + C(c2, k - 1) + ... + C(ck, 1)`` for the squares
``c1 > c2 > ... > ck`` (the combinatorial number system; Knuth, TAOCP 7.2.1.3): the
first slot of the run holds the highest square. Identical pieces on one square have no
key. The king pairs are those of two kings on distinct squares, not side by side, the
white king in its region, in the order of ``wk * 64 + bk``:

- without pawns, the region is the a1-d1-d4 triangle, and a white king on its diagonal
  (a1, b2, c3, d4) has the black king on or below the a1-h8 diagonal (file >= rank):
  ``K = 462``, the king pairs of Syzygy's and Gaviota's indexing;
- with pawns, the region is files a to d, the black king anywhere: ``K = 1806``.

Keys of impossible king placements (kings side by side, on one square, or a position
that the diagonal's mirror brings into the index) are left out of the index space, 28%
of a pawnless one: an ending of six pieces has ``2 * 462 * 64 ** 4``, 15.5 x 10^9 keys,
where one square of 10 for the white king and 64 for the black would give 21.5 x 10^9;
two identical pieces take ``C(64, 2) = 2016`` digits, not 4096 (KRRvKRB 7.6 x 10^9).

``ep`` is 1 for a position right after a double pawn push, where the pawn can be taken en
passant, else 0. Only a material with one pawn on each side (KPvKP within 4 pieces) has
this bit; its keys with ``ep = 1`` are legal only where that capture is legal. Syzygy
stores no en passant right, but its generator values the position after a double push
with the capture available, so the tablebase needs these positions to agree with it.

The canonical key of a position is the smallest key among its images under the board
symmetries (8 without pawns, the mirror of files with pawns; only the one or two that
bring the white king into its region need trying) that have one, and under the colour
flip (colours swapped, ranks mirrored, the other side to move) when both sides have the
same pieces.
"""

from __future__ import annotations

import math

import numpy as np

from tablebase.generators.chess.tables import QUEENSIDE, SYMMETRIES, TRIANGLE, slots_of

NO_KEY = np.iinfo(np.int64).max
"""The key of a placement outside the index space (the white king outside its region, a
king pair left out, or identical pieces on one square)."""

BINOMIAL = np.array([[math.comb(n, k) for k in range(8)] for n in range(65)], dtype=np.int64)
"""int64[65, 8]: ``C(n, k)``, the radices and ranks of identical pieces' digits."""

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
    :ivar digits: int64[d, 3] ``(first, end, radix)`` of each digit above the king pair:
        a slot of its own (radix 64) or a run of twins (radix ``C(64, end - first)``).
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
        self.digits = _digits(self.count, self.twins)
        self.placements = len(self.king_pairs) * int(np.prod(self.digits[:, 2]))
        self.size = 2 * self.placements * (2 if self.en_passant else 1)
        # plain lists for canonical_key, where a numpy call costs more than a Python step
        self._pairs = self.pair_of.tolist()
        self._digit_list = [tuple(d) for d in self.digits.tolist()]
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
        for first, end, radix in self.digits.tolist():
            rest, digit = np.divmod(rest, radix)
            if end - first == 1:
                squares[:, first] = digit
                continue
            for slot in range(first, end):  # the combination's squares, highest first
                square = np.searchsorted(BINOMIAL[:, end - slot], digit, side="right") - 1
                squares[:, slot] = square
                digit = digit - BINOMIAL[square, end - slot]
        return stm, ep, squares

    def keys_of(self, stm: np.ndarray, ep: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`decode`, the twins ordered canonically.

        :param stm: int64[n] side to move; ``ep``: int64[n] en passant bit (0 or 1).
        :param squares: int64[n, slots] squares, every one on the board.
        :returns: int64[n] keys; :data:`NO_KEY` where the kings are no king pair or
            identical pieces share a square.
        """
        rest = np.zeros(len(stm), dtype=np.int64)
        placed = np.ones(len(stm), dtype=bool)
        for first, end, radix in reversed(self.digits.tolist()):
            ordered = np.sort(squares[:, first:end], axis=1)[:, ::-1]
            placed &= (ordered[:, :-1] > ordered[:, 1:]).all(axis=1)
            digit = sum(BINOMIAL[ordered[:, i], end - first - i] for i in range(end - first))
            rest = rest * radix + digit
        pair = self.pair_of[squares[:, 0] * 64 + squares[:, 1]]
        keys = stm + 2 * (pair + len(self.king_pairs) * rest) + ep * 2 * self.placements
        return np.where((pair >= 0) & placed, keys, NO_KEY)

    def canonical_keys(self, stm: np.ndarray, ep: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """The canonical key of each position (see the module docstring).

        :param stm: int64[n] side to move; ``ep``: int64[n] en passant bit.
        :param squares: int64[n, slots] squares of any placement, in this layout's slots.
        :returns: int64[n] keys; :data:`NO_KEY` where no image has one (kings side by
            side, identical pieces on one square).
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
                rest = 0
                for first, end, radix in reversed(self._digit_list):
                    ordered = sorted(mapped[first:end], reverse=True)
                    if len(set(ordered)) < len(ordered):
                        return NO_KEY  # identical pieces on one square, in every image
                    rest = rest * radix + sum(_BINOMIAL_LISTS[c][end - first - i] for i, c in enumerate(ordered))
                pair = self._pairs[mapped[0] * 64 + mapped[1]]
                if pair >= 0:
                    best = min(best, side + 2 * (pair + len(self.king_pairs) * rest) + ep * 2 * self.placements)
        return best

    def stride(self, slot: int) -> int:
        """How much a key grows when the digit of ``slot`` (not a king) grows by one, the
        others staying: for a piece of its own, one square higher; for a twin, the
        digit of its run."""
        below = [radix for first, end, radix in self._digit_list if end <= slot]
        return 2 * len(self.king_pairs) * math.prod(below)

    def last_rank_digits(self, slot: int, eighth: bool) -> tuple[int, int, int, int] | None:
        """Where a piece just promoted onto ``slot`` lies in a key: ``(unit, radix, low,
        width)``, the keys whose digit ``key // unit % radix`` lies in ``[low, low +
        width)`` (a :class:`~tablebase.core.batches.KeyWindow`), the piece on the eighth
        rank (``eighth``) or the first. A piece of its own: an eighth of its squares. A run
        of twins: the digits whose highest square is on the eighth rank, ``[C(56, k),
        C(64, k))``; ``None`` for the first rank, where the lowest square stands and the
        digits are not one range."""
        first, end, radix = next(d for d in self._digit_list if d[0] <= slot < d[1])
        unit = self.stride(first)
        if end - first == 1:
            return unit, 64, 56 if eighth else 0, 8
        if not eighth:
            return None
        low = math.comb(56, end - first)
        return unit, radix, low, radix - low


def _runs(types: str, colours: np.ndarray) -> list[tuple[int, int]]:
    """``(first, end)`` ranges of two or more consecutive slots with one piece and colour."""
    runs, first = [], 0
    for slot in range(1, len(types) + 1):
        if slot == len(types) or (types[slot], colours[slot]) != (types[first], colours[first]):
            if slot - first > 1:
                runs.append((first, slot))
            first = slot
    return runs


def _digits(count: int, twins: list[tuple[int, int]]) -> np.ndarray:
    """int64[d, 3]: ``(first, end, radix)`` of each digit above the king pair, slot 2 on
    (a run of twins one digit, the others a slot each)."""
    runs = dict(twins)
    digits, slot = [], 2
    while slot < count:
        end = runs.get(slot, slot + 1)
        digits.append((slot, end, math.comb(64, end - slot)))
        slot = end
    return np.array(digits, dtype=np.int64).reshape(-1, 3)


def _image(symmetry: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """int64[n, slots]: each row of ``squares`` mapped by its own row of
    :data:`SYMMETRIES` (int64[n] indices)."""
    return SYMMETRIES.ravel()[symmetry[:, None] * 64 + squares]


_SYMMETRY_LISTS = SYMMETRIES.tolist()
_BINOMIAL_LISTS = BINOMIAL.tolist()


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
