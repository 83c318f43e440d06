"""How a solve by un-moves numbers its positions (:class:`PositionIndex`): by key over an
index space, by rank among sorted keys, or one progress level's blocks one after the other
(:class:`LevelIndex`)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numba import njit

from tablebase.core.batches import LevelSplit
from tablebase.solve.keyset import KeyFinder


class PositionIndex:
    """Numbers positions: by key over an index space of ``size`` (``keys`` None), or
    by rank among sorted int64[n] ``keys``."""

    def __init__(self, size: int, keys: np.ndarray | None = None) -> None:
        self.sorted_keys = keys
        self.n = size if keys is None else len(keys)
        self._finder = None if keys is None else KeyFinder(keys)

    def ranges(self, batch_size: int) -> Iterator[np.ndarray]:
        """The keys of every number, ``batch_size`` numbers at a time, in order."""
        for start in range(0, self.n, batch_size):
            yield self.keys(np.arange(start, min(start + batch_size, self.n), dtype=np.int64))

    def keys(self, nodes: np.ndarray) -> np.ndarray:
        """int64[k]: the keys of int[k] position numbers."""
        return nodes.astype(np.int64) if self.sorted_keys is None else self.sorted_keys[nodes]

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``(nodes, hit)``: the number of each int64[k] key, and bool[k] whether it has
        one (``None`` when all of them have)."""
        if self.sorted_keys is None:
            if not len(keys) or (keys.min() >= 0 and keys.max() < self.n):
                return keys, None
            return keys, (keys >= 0) & (keys < self.n)
        return self._finder.find(keys)

    def found(self, src: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(src, nodes)``: the int[k] ``src`` of those of int64[k] ``keys`` that have a
        number (:meth:`find`), and their numbers, in order."""
        nodes, hit = self.find(keys)
        return (src, nodes) if hit is None else (src[hit], nodes[hit])


class LevelIndex(PositionIndex):
    """Numbers the keys of one progress level of an index space of ``size`` keys: its
    blocks (``split.block`` keys each, :class:`~tablebase.core.game.LevelSplit`) one after the other, in key
    order, so a level costs no key array and a key is found by one division."""

    def __init__(self, size: int, split: LevelSplit) -> None:
        self.block, self.size = split.block, size
        self.blocks = np.flatnonzero(split.levels == split.level).astype(np.int64)
        self.local = np.full(len(split.levels), -1, dtype=np.int64)
        self.local[self.blocks] = np.arange(len(self.blocks))
        super().__init__(len(self.blocks) * self.block)

    def keys(self, nodes: np.ndarray) -> np.ndarray:
        keys = np.empty(len(nodes), dtype=np.int64)
        _level_keys(nodes, self.blocks, self.block, keys)
        return keys

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        nodes = np.empty(len(keys), dtype=np.int64)
        hit = np.empty(len(keys), dtype=np.bool_)
        _find_in_level(keys, self.local, self.block, self.size, nodes, hit)
        return nodes, hit

    def found(self, src: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`PositionIndex.found`, in one compiled sweep (no mask, no copies)."""
        return _found_in_level(src, keys, self.local, self.block, self.size)


@njit(cache=True, nogil=True)
def _level_keys(nodes, blocks, block, keys):
    """:meth:`LevelIndex.keys` in one sweep: ``keys[i]`` the key of number ``nodes[i]``."""
    for i in range(len(nodes)):
        keys[i] = blocks[nodes[i] // block] * block + nodes[i] % block


@njit(cache=True, nogil=True, inline="always")
def _level_number(key, local, block, size):
    """The number of ``key`` in its level (:class:`LevelIndex`), or -1 where it lies
    outside the index space or at another level."""
    if not 0 <= key < size:
        return -1
    quotient = key // block
    number = local[quotient]
    return number * block + key - quotient * block if number >= 0 else -1


@njit(cache=True, nogil=True)
def _find_in_level(keys, local, block, size, nodes, hit):
    """:meth:`LevelIndex.find` in one sweep: ``nodes[i]`` the number of ``keys[i]``
    where ``hit[i]``."""
    for i in range(len(keys)):
        number = _level_number(keys[i], local, block, size)
        hit[i] = number >= 0
        nodes[i] = max(number, 0)


@njit(cache=True, nogil=True)
def _found_in_level(src, keys, local, block, size):
    """:meth:`LevelIndex.found` in one sweep: the ``src`` and numbers of the keys of the
    level, in order."""
    kept = np.empty(len(keys), dtype=src.dtype)
    nodes = np.empty(len(keys), dtype=np.int64)
    m = 0
    for i in range(len(keys)):
        number = _level_number(keys[i], local, block, size)
        if number >= 0:
            kept[m], nodes[m] = src[i], number
            m += 1
    return kept[:m], nodes[:m]
