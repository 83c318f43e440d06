"""Distinct ``(src, key)`` pairs (:func:`distinct_pairs`): the moves or un-moves of a
position into one successor counted once."""

import numpy as np
from numba import njit


def distinct_pairs(src: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``(src, key)`` pairs of int64[m] arrays (``src`` and ``keys`` not
    negative), sorted by ``src``. Where ``src`` is already ascending (as a game's batch
    methods give it), each run of one ``src`` is filtered in a compiled loop, its keys
    left in their order; else one sort of packed words, or by two keys where they do not
    fit in 63 bits, and the keys come sorted too."""
    if not len(src):
        return src, keys
    keep, dropped = _first_in_run(src, keys)
    if dropped == 0:  # the usual case: nothing to copy
        return src, keys
    if dropped > 0:
        return src[keep], keys[keep]
    shift = int(keys.max()).bit_length()
    if shift + int(src.max()).bit_length() <= 63:
        packed = np.sort((src << shift) | keys)
        first = np.ones(len(packed), dtype=bool)
        first[1:] = packed[1:] != packed[:-1]
        packed = packed[first]
        return packed >> shift, packed & ((1 << shift) - 1)
    order = np.lexsort((keys, src))
    src, keys = src[order], keys[order]
    first = np.ones(len(src), dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (keys[1:] != keys[:-1])
    return src[first], keys[first]


@njit(cache=True, nogil=True)
def _first_in_run(src: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, int]:
    """``(keep, dropped)``: bool[m] whether each key is the first of its value within its
    run of equal ascending ``src``, and how many are not (-1, and ``keep`` unset, if
    ``src`` is not ascending). Through a small open-addressing hash set in a short run
    (one probe a key; the set is emptied by a new stamp per run, not cleared), a sorted
    copy in a long one."""
    keep = np.ones(len(src), dtype=np.bool_)
    for i in range(1, len(src)):
        if src[i] < src[i - 1]:
            return keep, -1
    slots = np.zeros(256, dtype=np.int64)
    stamps = np.full(256, -1, dtype=np.int64)
    start = 0
    while start < len(src):
        end = start + 1
        while end < len(src) and src[end] == src[start]:
            end += 1
        if end - start <= 128:
            for i in range(start, end):
                h = (np.uint64(keys[i]) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(56)
                while stamps[h] == start and slots[h] != keys[i]:
                    h = (h + np.uint64(1)) & np.uint64(255)
                if stamps[h] == start:
                    keep[i] = False
                else:
                    stamps[h], slots[h] = start, keys[i]
        else:
            order = np.argsort(keys[start:end], kind="mergesort")
            for i in range(1, end - start):
                if keys[start + order[i]] == keys[start + order[i - 1]]:
                    keep[start + order[i]] = False
        start = end
    return keep, len(keep) - np.count_nonzero(keep)
