"""Sorted arrays of distinct keys: found, located, and grown in place by forward search.

A forward search (:func:`search_forward`) holds the keys it has seen as one ascending int64
array. Growing that array by ``np.insert`` holds the old and the new array at once, and
gathering a level's successors before removing their duplicates holds every move of the
level (Connect Four 7x4: up to a billion keys a level). Here the seen keys grow in place
(``ndarray.resize`` reallocates, which for an array this large moves its pages without
copying them, then a compiled merge runs from the back), and a level's successors are
merged group by group into the next level's keys, so a search holds its keys, the level
it expands and the level it finds, 8 bytes each, and one group of moves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from numba import njit

GROUP_KEYS = 1 << 25
"""Successor keys gathered (in the batches the workers return, each sorted and distinct)
before they are made distinct together and merged into the level's keys: 256 MiB, and a
merge per ``GROUP_KEYS`` moves, each as long as the level found so far."""


def sorted_unique(keys: np.ndarray) -> np.ndarray:
    """The distinct keys, ascending (``np.sort`` is much faster than ``np.unique`` here)."""
    ordered = np.sort(keys)
    keep = np.ones(len(ordered), dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def locate(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(at, hit)``: where each wanted key sorts into ``keys``, and whether it is there.

    Unsorted ``wanted`` keys are searched in sorted order, which numpy's binary search
    does several times faster (each search starts from where the last one ended;
    benchmarks/RESULTS.md).
    """
    if np.any(wanted[1:] < wanted[:-1]):
        order = np.argsort(wanted)
        at = np.empty(len(wanted), dtype=np.int64)
        at[order] = np.searchsorted(keys, wanted[order])
    else:
        at = np.searchsorted(keys, wanted)
    hit = at < len(keys)
    hit[hit] = keys[at[hit]] == wanted[hit]
    return at, hit


@njit(cache=True, nogil=True)
def _merge_from_back(keys, count, new):
    """Merge ascending ``new`` into ascending ``keys[:count]``, in place: ``keys`` holds
    ``count + len(new)`` slots, filled from the last one back, so no key is overwritten
    before it is moved."""
    i, j = count - 1, len(new) - 1
    for k in range(count + len(new) - 1, -1, -1):
        if j < 0:
            break
        if i >= 0 and keys[i] > new[j]:
            keys[k] = keys[i]
            i -= 1
        else:
            keys[k] = new[j]
            j -= 1


@njit(cache=True, nogil=True)
def _keep(keys, keep):
    """Move the keys where ``keep`` holds to the front of ``keys``, in order; their count."""
    count = 0
    for k in range(len(keys)):
        if keep[k]:
            keys[count] = keys[k]
            count += 1
    return count


KEYS_A_BUCKET = 32
"""Sorted keys per bucket of :class:`KeyFinder`'s table, at least, on average: its table
takes at most half a byte a key."""


class KeyFinder:
    """Finds keys among int64[n] distinct ascending ``keys`` by a table of where each
    bucket of key values (their top bits) starts, then a binary search within the
    bucket: a few probes of memory close together, where a binary search over all the
    keys misses the cache at each of its first steps, and wanted keys in any order
    (:func:`locate` sorts them first): faster than an argsort, then ``np.searchsorted``
    (benchmarks/RESULTS.md).

    :param keys: int64[n] distinct keys, ascending, none negative.
    """

    def __init__(self, keys: np.ndarray) -> None:
        self.keys = keys
        top = int(keys[-1]) if len(keys) else 0
        bits = max(1, (len(keys) // KEYS_A_BUCKET).bit_length())
        self.shift = max(0, top.bit_length() - bits)
        self.starts = _bucket_starts(keys, self.shift, (top >> self.shift) + 1)

    def find(self, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(at, hit)`` of int64[k] wanted keys, as :func:`locate` gives them: where each
        sorts into the keys (int64[k]), and whether it is there (bool[k])."""
        at = np.empty(len(wanted), dtype=np.int64)
        hit = np.empty(len(wanted), dtype=np.bool_)
        _find_in_buckets(self.keys, self.starts, self.shift, np.ascontiguousarray(wanted, dtype=np.int64), at, hit)
        return at, hit


@njit(cache=True, nogil=True)
def _bucket_starts(keys, shift, buckets):
    """int64[buckets + 1]: the index of the first key of each bucket (``key >> shift``),
    and ``len(keys)`` last."""
    starts = np.empty(buckets + 1, dtype=np.int64)
    bucket = 0
    for i in range(len(keys)):
        top = keys[i] >> shift
        while bucket <= top:
            starts[bucket] = i
            bucket += 1
    while bucket <= buckets:
        starts[bucket] = len(keys)
        bucket += 1
    return starts


@njit(cache=True, nogil=True)
def _find_in_buckets(keys, starts, shift, wanted, at, hit):
    last = len(starts) - 1
    for j in range(len(wanted)):
        key = wanted[j]
        if key < 0:
            at[j], hit[j] = 0, False
            continue
        bucket = key >> shift
        if bucket >= last:
            at[j], hit[j] = len(keys), False
            continue
        low, high = starts[bucket], starts[bucket + 1]
        while low < high:
            middle = (low + high) >> 1
            if keys[middle] < key:
                low = middle + 1
            else:
                high = middle
        at[j] = low
        hit[j] = low < len(keys) and keys[low] == key


class KeySet:
    """Distinct int64 keys, ascending, grown in place.

    :param keys: int64[n] distinct keys, ascending; the set takes a copy.
    """

    def __init__(self, keys: np.ndarray | None = None) -> None:
        self.keys = np.array(keys if keys is not None else (), dtype=np.int64)

    def add(self, new: np.ndarray) -> None:
        """Add int64[m] ``new`` keys, ascending, distinct and none of them in the set."""
        count = len(self.keys)
        if not len(new):
            return
        self.keys.resize(count + len(new), refcheck=False)
        _merge_from_back(self.keys, count, new)

    def add_unseen(self, new: np.ndarray) -> None:
        """Add those of int64[m] ``new`` keys (ascending, distinct) not in the set."""
        self.add(new[~locate(self.keys, new)[1]])

    def drop(self, other: KeySet) -> None:
        """Remove the keys that ``other`` holds, in place."""
        count = _keep(self.keys, ~locate(other.keys, self.keys)[1])
        self.keys.resize(count, refcheck=False)


def search_forward(starts: np.ndarray, successors: Callable[[np.ndarray], Iterable[np.ndarray]],
             advance: Callable[[int], object] = lambda _count: None) -> np.ndarray:
    """Every key reachable from ``starts``, by breadth-first forward search.

    :param starts: int64[s] the start keys, ascending and distinct.
    :param successors: given a level's keys (int64, ascending), yields int64 arrays of
        their successors' keys, each ascending and distinct (one per batch, as
        :meth:`~tablebase.solve.workers.Workers.map` returns them).
    :param advance: told how many keys each level expanded.
    :returns: int64[n] the keys reached, ``starts`` among them, ascending.
    """
    seen = KeySet(starts)
    frontier = seen.keys.copy()
    while frontier.size:
        level = KeySet()
        group: list[np.ndarray] = []
        gathered = 0
        for found in successors(frontier):
            group.append(found)
            gathered += len(found)
            if gathered >= GROUP_KEYS:
                level.add_unseen(sorted_unique(np.concatenate(group)))
                group, gathered = [], 0
        if group:
            level.add_unseen(sorted_unique(np.concatenate(group)))
        del group
        advance(len(frontier))
        level.drop(seen)
        frontier = level.keys
        del level
        seen.add(frontier)
    return seen.keys
