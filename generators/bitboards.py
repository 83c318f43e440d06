"""Bitboards of games on grids of cells: counts of set bits, board symmetries, and
canonical keys under them.

A key holds bitboards (one bit a cell, row-major from the top left) and perhaps other
bits (a side to move); a symmetry moves each cell's bit to its image's and leaves the
other bits alone. The canonical key is the smallest image, found by byte lookup tables:
for every symmetry and every byte of a key, the image of each of the 256 values of that
byte (the method of tic-tac-toe and Teeko solvers alike: a handful of table look-ups a
key instead of a loop over cells).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import reduce

import numpy as np

_BITS_IN_BYTE = np.array([bin(byte).count("1") for byte in range(256)], dtype=np.int64)


def popcounts(bits: np.ndarray, width: int) -> np.ndarray:
    """int64[n]: the set bits among the low ``width`` bits of each of int64[n] ``bits``,
    a byte table look-up a byte."""
    return sum(_BITS_IN_BYTE[(bits >> shift) & 0xFF] for shift in range(0, width, 8))


def dihedral_maps(rows: int, columns: int) -> list[list[int]]:
    """The cell permutations of a ``rows`` by ``columns`` board's symmetry group: 8 maps
    on a square board, else 4 (identity, the two mirrors, the half turn); the identity
    first. ``maps[s][c]`` is the cell that cell ``c`` goes to under symmetry ``s``."""
    images: list[Callable[[int, int], tuple[int, int]]] = [
        lambda r, c: (r, c),
        lambda r, c: (r, columns - 1 - c),
        lambda r, c: (rows - 1 - r, c),
        lambda r, c: (rows - 1 - r, columns - 1 - c),
    ]
    if rows == columns:
        images += [lambda r, c, f=f: f(c, r) for f in images]
    return [[f(r, c)[0] * columns + f(r, c)[1] for r in range(rows) for c in range(columns)] for f in images]


class KeySymmetries:
    """Images of int64 keys under a group of bit permutations.

    :param bit_maps: ``bit_maps[s][b]`` is where bit ``b`` of a key goes under symmetry
        ``s`` (the identity first); bits past a map's length stay where they are.
    :param width: the bits a key uses (at most 63).
    """

    def __init__(self, bit_maps: list[list[int]], width: int) -> None:
        self.count = len(bit_maps)
        chunks = (width + 7) // 8
        self.tables = np.zeros((self.count, chunks, 256), dtype=np.int64)
        for s, image in enumerate(bit_maps):
            for chunk in range(chunks):
                for bit in range(8 * chunk, min(8 * chunk + 8, width)):
                    set_bit = (np.arange(256, dtype=np.int64) >> (bit - 8 * chunk)) & 1
                    self.tables[s, chunk] |= set_bit << (image[bit] if bit < len(image) else bit)

    @classmethod
    def of_boards(cls, cell_maps: list[list[int]], boards: int, extra_bits: int = 0) -> KeySymmetries:
        """The symmetries of keys made of ``boards`` bitboards of ``len(cell_maps[0])``
        cells each, one after the other from bit 0, then ``extra_bits`` bits left alone."""
        cells = len(cell_maps[0])
        bit_maps = [[board * cells + image[c] for board in range(boards) for c in range(cells)] for image in cell_maps]
        return cls(bit_maps, boards * cells + extra_bits)

    def images(self, keys: np.ndarray) -> list[np.ndarray]:
        """int64[n] each: the image of int64[n] ``keys`` under every symmetry, in order."""
        chunks = [(keys >> 8 * chunk) & 0xFF for chunk in range(self.tables.shape[1])]
        return [reduce(operator.or_, map(np.take, tables, chunks)) for tables in self.tables]

    def canonical(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: the smallest image of each of int64[n] ``keys`` (the keys themselves
        when the group is the identity alone)."""
        if self.count == 1:
            return keys
        return reduce(np.minimum, self.images(keys))
