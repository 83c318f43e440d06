"""The output arrays of the compiled batch kernels (numba ``@njit``, inlined): each
kernel allocates room for its results and grows it where a round of its loop finds too
little left."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def grown(values, used):
    """``values`` (1-d or 2-d) in an array twice as long, its first ``used`` rows kept."""
    grown = np.empty((2 * len(values),) + values.shape[1:], values.dtype)
    grown[:used] = values[:used]
    return grown


@njit(cache=True, inline="always")
def exit_arrays(rows, count):
    """Room for ``rows`` captures and promotions: their rows, event numbers (int64[rows]
    each) and squares after (int64[rows, count])."""
    return np.empty(rows, np.int64), np.empty(rows, np.int64), np.empty((rows, count), np.int64)


@njit(cache=True, inline="always")
def room_for_exits(exit_row, exit_event, exit_squares, exits, most):
    """The exit arrays, grown (:func:`grown`) where ``exits`` used rows leave no room
    for one more position's ``4 * most`` (every move a promotion to four pieces)."""
    if exits + 4 * most > len(exit_row):
        return grown(exit_row, exits), grown(exit_event, exits), grown(exit_squares, exits)
    return exit_row, exit_event, exit_squares
