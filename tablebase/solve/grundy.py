"""Grundy values (nimbers) of an impartial game, by a batched retrograde pass.

The Sprague–Grundy theorem (Berlekamp, Conway and Guy, *Winning Ways*, ch. 2; Sprague
1935, Grundy 1939): under normal play every position of an impartial game is equivalent
to a Nim heap of size ``g``, its Grundy value, the mex (least excluded non-negative
integer) of the values of its moves; a sum of games has the xor of its parts' values,
and is lost for the side to move exactly when that xor is 0.

A move may lead to a *sum* of positions (Kayles: knocking pins out of a row leaves two
rows); its value is the xor of its parts' values. The pass works level by level: a
position is ready once every part of every move has its value, and then all positions
ready together get their mex at once (sorting ``(position, move value)`` pairs). Moves
are grouped by position (the forward lists) and by part (to find the positions a newly
valued one makes ready), each once, with numpy. Values exist only on an acyclic game;
a position that can reach a cycle gets none (:data:`NO_GRUNDY`).
"""

from __future__ import annotations

import numpy as np

from tablebase.progress import Advance

NO_GRUNDY = -1
"""The Grundy value of a position that can reach a cycle (none exists)."""


def grundy_values(n: int, src: np.ndarray, parts: np.ndarray, advance: Advance = lambda _count: None) -> np.ndarray:
    """The Grundy value of every position.

    :param n: the number of positions.
    :param src: int[m] the position each move is made from.
    :param parts: int[m, k] the positions each move leads to, as a sum of up to ``k``
        games; -1 pads a move with fewer parts (a move with none leads to the empty sum,
        of value 0). ``k = 1`` for an ordinary game.
    :param advance: called with the number of positions valued at each level.
    :returns: int32[n] Grundy values; :data:`NO_GRUNDY` where a cycle is reachable.
    """
    src = np.asarray(src, dtype=np.int64)
    parts = np.asarray(parts, dtype=np.int64)
    parts = parts.reshape(len(src), parts.shape[-1] if parts.ndim == 2 else 1)
    by_source = np.argsort(src, kind="stable")
    move_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=move_offsets[1:])

    edge_move, edge_part = np.nonzero(parts >= 0)
    edge_target = parts[edge_move, edge_part]
    by_target = np.argsort(edge_target, kind="stable")
    edge_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(edge_target, minlength=n), out=edge_offsets[1:])
    waiting = np.bincount(src[edge_move], minlength=n)

    grundy = np.full(n, NO_GRUNDY, dtype=np.int32)
    ready = np.flatnonzero(waiting == 0)
    while ready.size:
        moves, counts = _segments(move_offsets, ready)
        values = np.bitwise_xor.reduce(np.where(parts[by_source[moves]] >= 0, grundy[parts[by_source[moves]]], 0), axis=1)
        grundy[ready] = _mex(np.repeat(np.arange(len(ready)), counts), values, len(ready))
        advance(len(ready))
        edges, _ = _segments(edge_offsets, ready)
        parents = src[edge_move[by_target[edges]]]
        np.subtract.at(waiting, parents, 1)
        candidates = np.unique(parents)
        ready = candidates[(waiting[candidates] == 0) & (grundy[candidates] == NO_GRUNDY)]
    return grundy


def _segments(offsets: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The concatenated index ranges ``offsets[v]:offsets[v + 1]`` of ``nodes``, and each one's length."""
    starts = offsets[nodes]
    counts = offsets[nodes + 1] - starts
    ends = np.cumsum(counts)
    return np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(starts - (ends - counts), counts), counts


def _mex(segment: np.ndarray, values: np.ndarray, segments: int) -> np.ndarray:
    """int32[segments]: the least non-negative integer missing from each segment's values.

    :param segment: int[k] the segment of each value; ``values``: int[k] non-negative.
    """
    order = np.lexsort((values, segment))
    segment, values = segment[order], values[order]
    distinct = np.ones(len(values), dtype=bool)
    distinct[1:] = (segment[1:] != segment[:-1]) | (values[1:] != values[:-1])
    segment, values = segment[distinct], values[distinct]
    starts = np.searchsorted(segment, np.arange(segments))
    rank = np.arange(len(values)) - starts[segment]
    mex = np.bincount(segment, minlength=segments)  # every value present: mex is the count
    gaps = values != rank  # the first gap in a sorted distinct run is the mex
    first_gap = np.full(segments, np.iinfo(np.int64).max)
    np.minimum.at(first_gap, segment[gaps], rank[gaps])
    return np.minimum(mex, first_gap).astype(np.int32)
