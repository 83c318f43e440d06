"""Who owns each position of a partitioned pass, and how an update names it: the key ranges
of an index space (:func:`partition_bounds`, :class:`KeyRanges`), or the hash of a key that
forward search finds (:class:`HashedKeys`); a round's messages split and joined by owner."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from tablebase.solve.keyset import locate

Messages = dict[int, tuple[np.ndarray, ...]]
"""Arrays sent by one partition in one round, by the receiving partition's number."""


def partition_bounds(n: int, partitions: int, align: int = 1) -> np.ndarray:
    """int64[P + 1]: the first position of each of ``partitions`` near-equal key ranges of
    ``n`` positions, each a multiple of ``align`` (the store's blocks of keys, so that
    no block is split between partitions), and ``n`` last.

    :raises ValueError: if ``partitions`` is below 1.
    """
    if partitions < 1:
        raise ValueError(f"partitions must be >= 1, not {partitions}")
    bounds = np.minimum(np.round(np.linspace(0, n, partitions + 1) / align) * align, n).astype(np.int64)
    bounds[-1] = n
    return bounds


@njit(cache=True, nogil=True)
def _by_owner(owner, order, cuts):
    """Counting sort of int64[k] ``owner`` (partition numbers): ``order`` (int64[k])
    lists the indices owner by owner, and ``cuts`` (int64[P + 1], zeroed) where each
    owner's begin."""
    for i in range(len(owner)):
        cuts[owner[i] + 1] += 1
    for p in range(len(cuts) - 1):
        cuts[p + 1] += cuts[p]
    at = cuts[:-1].copy()
    for i in range(len(owner)):
        order[at[owner[i]]] = i
        at[owner[i]] += 1


def _split(owner: np.ndarray, partitions: int, payload: Callable[[int, np.ndarray], np.ndarray], *columns: np.ndarray) -> Messages:
    """Parallel arrays split by int64[k] ``owner``: each owner gets ``payload(owner,
    its indices)`` and its entries of ``columns``."""
    order = np.empty(len(owner), dtype=np.int64)
    cuts = np.zeros(partitions + 1, dtype=np.int64)
    _by_owner(owner, order, cuts)
    sent: Messages = {}
    for p in np.flatnonzero(np.diff(cuts)).tolist():
        these = order[cuts[p] : cuts[p + 1]]
        sent[p] = (payload(p, these), *(column[these] for column in columns))
    return sent


class KeyRanges:
    """Who owns a position of an index space: the partition of its key range (positions
    are numbered by key), an update sent as the owner's own offset (uint32).

    :param bounds: int64[P + 1] from :func:`partition_bounds`.
    """

    def __init__(self, bounds: np.ndarray) -> None:
        self.bounds = bounds

    def route(self, targets: np.ndarray, *columns: np.ndarray) -> Messages:
        """int[k] position numbers ``targets`` (and parallel ``columns``) by owner."""
        owner = np.searchsorted(self.bounds, targets, side="right").astype(np.int64) - 1
        return _split(owner, len(self.bounds) - 1, lambda p, these: (targets[these] - self.bounds[p]).astype(np.uint32), *columns)

    def local(self, payload: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The offsets a received payload names, and ``None``: every one is a position."""
        return payload, None


class HashedKeys:
    """Who owns a key found by forward search: the partition its multiplicative hash
    (Knuth, *The Art of Computer Programming*, vol. 3, 6.4) names, so that the
    partitions hold near-equal shares whatever the keys' spread. An update travels as
    the key (int64); its owner numbers it by rank among the keys it holds.

    :param partitions: how many partitions.
    """

    MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / the golden ratio, odd

    def __init__(self, partitions: int) -> None:
        self.partitions = partitions
        self.keys = np.zeros(0, np.int64)  # the owner's keys, ascending, once found

    def owner(self, keys: np.ndarray) -> np.ndarray:
        """int64[k]: the partition that owns each of int64[k] ``keys``."""
        mixed = np.asarray(keys).astype(np.uint64) * self.MULTIPLIER
        return ((mixed >> np.uint64(32)) % np.uint64(self.partitions)).astype(np.int64)

    def route(self, targets: np.ndarray, *columns: np.ndarray) -> Messages:
        """int64[k] keys ``targets`` (and parallel ``columns``) by owner, as uint32 where
        every one fits."""
        wide = np.uint32 if targets.max(initial=0) < 2**32 else np.int64
        return _split(self.owner(targets), self.partitions, lambda _p, these: targets[these].astype(wide), *columns)

    def local(self, payload: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The positions that int[k] received keys name, and bool[k] which are positions
        (an un-move may lead to a key that forward search never reached)."""
        if self.keys.dtype != np.uint32 or payload.dtype == np.uint32:
            return locate(self.keys, payload if payload.dtype == self.keys.dtype else payload.astype(np.int64))
        fits = payload < 2**32  # searched as uint32, no int64 copy of the keys
        at, hit = np.zeros(len(payload), np.int64), np.zeros(len(payload), bool)
        at[fits], hit[fits] = locate(self.keys, payload[fits].astype(np.uint32))
        return at, hit


Owners = KeyRanges | HashedKeys
"""How positions map to partitions and how an update names its position."""


def _joined(received: Sequence[tuple[np.ndarray, ...]], width: int) -> tuple[np.ndarray, ...]:
    """The received arrays of each column end to end (``width`` columns)."""
    if not received:
        return tuple(np.zeros(0, np.uint32) for _ in range(width))
    return tuple(np.concatenate([message[column] for message in received]) for column in range(width))
