"""Grouping array entries by a small integer kind in linear time (a counting sort), for
the hot paths that handle each kind apart: a chess survey's captures by the ending
they lead into, exits by the dependency that holds their successors."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def grouped(kinds, count):
    """``(order, starts)``: int64[k] the indices of int[k] ``kinds`` (each in
    ``0..count-1``) stably ordered by kind, and int64[count + 1] where each kind's
    indices begin in ``order`` (kind ``j``'s are ``order[starts[j]:starts[j + 1]]``).

    The same order as ``np.argsort(kinds, kind="stable")``, in one pass to count and
    one to place (a counting sort: Cormen et al., *Introduction to Algorithms*, 8.2).
    """
    starts = np.zeros(count + 1, np.int64)
    for kind in kinds:
        starts[kind + 1] += 1
    for kind in range(count):
        starts[kind + 1] += starts[kind]
    order = np.empty(len(kinds), np.int64)
    fill = starts[:-1].copy()
    for i in range(len(kinds)):
        order[fill[kinds[i]]] = i
        fill[kinds[i]] += 1
    return order, starts
