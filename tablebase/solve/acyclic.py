"""Values computed in one retrograde sweep over an acyclic game: Grundy values and negamax scores.

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

from collections.abc import Callable

import numpy as np

from tablebase.solve.predecessors import segments, tally
from tablebase.util.progress import Advance

NO_GRUNDY = -1
"""The Grundy value of a position that can reach a cycle (none exists)."""


def grundy_values(
    n: int,
    src: np.ndarray,
    parts: np.ndarray,
    advance: Advance = lambda _count: None,
    known: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """The Grundy value of every position.

    :param n: the number of positions.
    :param src: int[m] the position each move is made from.
    :param parts: int[m, k] the positions each move leads to, as a sum of up to ``k``
        games; -1 pads a move with fewer parts (a move with none leads to the empty sum,
        of value 0). ``k = 1`` for an ordinary game.
    :param advance: called with the number of positions valued at each level.
    :param known: ``(src, value)``, int[k] each: moves whose successors' values are
        known beforehand (moves into another tablebase), from position ``src[j]`` to a
        successor of value ``value[j]``, :data:`NO_GRUNDY` for one that has none (which
        leaves its position none either).
    :returns: int32[n] Grundy values; :data:`NO_GRUNDY` where a cycle is reachable.
    """
    parts = np.asarray(parts, dtype=np.int64)
    parts = parts.reshape(len(src), parts.shape[-1] if parts.ndim == 2 else 1)
    grundy = np.full(n, NO_GRUNDY, dtype=np.int32)
    known_src, known_value = (np.asarray(a, dtype=np.int64) for a in (known or (np.zeros(0), np.zeros(0))))
    by_known = np.argsort(known_src, kind="stable")
    known_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(known_src, minlength=n), out=known_offsets[1:])

    def valuate(ready: np.ndarray, moves: np.ndarray, counts: np.ndarray) -> None:
        reached = parts[moves]
        values = np.bitwise_xor.reduce(np.where(reached >= 0, grundy[reached], 0), axis=1)
        outside, outside_counts = segments(known_offsets, ready)
        segment = np.repeat(np.arange(len(ready)), counts)
        segment = np.concatenate([segment, np.repeat(np.arange(len(ready)), outside_counts)])
        values = np.concatenate([values, known_value[by_known[outside]]])
        grundy[ready] = mex(segment, values, len(ready))

    _by_levels(n, src, parts, valuate, advance, blocked=known_src[known_value < 0])
    return grundy


def negamax_values(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    reward: np.ndarray,
    terminal_score: np.ndarray,
    advance: Advance = lambda _count: None,
) -> tuple[np.ndarray, np.ndarray]:
    """The negamax value of every position: the best margin the side to move can secure,
    ``max over moves of (reward - value of the successor)``, and a position without moves
    scores its ``terminal_score`` (Knuth and Moore, "An analysis of alpha-beta pruning",
    1975, for the negamax form).

    :param src: int[m], ``dst``: int[m] each move's position and successor.
    :param reward: int[m] what each move earns the side making it.
    :param terminal_score: int[n] the score, for the side to move, of a position without moves.
    :returns: ``(value, valued)``: int64[n] and bool[n]; positions that can reach a cycle
        are not valued.
    """
    dst = np.asarray(dst, dtype=np.int64)
    reward = np.asarray(reward, dtype=np.int64)
    value = np.zeros(n, dtype=np.int64)

    def valuate(ready: np.ndarray, moves: np.ndarray, counts: np.ndarray) -> None:
        options = reward[moves] - value[dst[moves]]
        best = np.asarray(terminal_score, dtype=np.int64)[ready]
        has = counts > 0
        if has.any():
            best[has] = np.maximum.reduceat(options, (np.cumsum(counts) - counts)[has])
        value[ready] = best

    valued = _by_levels(n, src, dst.reshape(-1, 1), valuate, advance)
    return value, valued


def _by_levels(
    n: int,
    src: np.ndarray,
    parts: np.ndarray,
    valuate: Callable[[np.ndarray, np.ndarray, np.ndarray], None],
    advance: Advance,
    blocked: np.ndarray | None = None,
) -> np.ndarray:
    """Hand positions to ``valuate`` level by level, each once all its moves' parts are valued.

    ``valuate(ready, moves, counts)`` values the positions ``ready`` (int64[r]) from
    their moves, ``moves`` (int64[sum(counts)] indices into ``src``, ``ready[0]``'s
    first) with ``counts`` (int64[r]) moves each. The ``blocked`` positions (int[b]) are
    never valued, nor is anything that moves into them.

    :returns: bool[n], the positions valued (the others can reach a cycle).
    """
    src = np.asarray(src, dtype=np.int64)
    by_source = np.argsort(src, kind="stable")
    move_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=move_offsets[1:])

    edge_move, edge_part = np.nonzero(parts >= 0)
    edge_target = parts[edge_move, edge_part]
    by_target = np.argsort(edge_target, kind="stable")
    edge_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(edge_target, minlength=n), out=edge_offsets[1:])
    waiting = np.bincount(src[edge_move], minlength=n)
    if blocked is not None:
        waiting[blocked] += 1

    valued = np.zeros(n, dtype=bool)
    ready = np.flatnonzero(waiting == 0)
    while ready.size:
        moves, counts = segments(move_offsets, ready)
        valuate(ready, by_source[moves], counts)
        valued[ready] = True
        advance(len(ready))
        edges, _ = segments(edge_offsets, ready)
        parents = src[edge_move[by_target[edges]]]
        candidates, hits = tally(parents)
        waiting[candidates] -= hits
        ready = candidates[(waiting[candidates] == 0) & ~valued[candidates]]
    return valued


def mex(segment: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """int32[count]: the least non-negative integer missing from each segment's values.

    :param segment: int[k] the segment (0 to ``count - 1``) of each value; ``values``: int[k] non-negative.
    """
    order = np.lexsort((values, segment))
    segment, values = segment[order], values[order]
    distinct = np.ones(len(values), dtype=bool)
    distinct[1:] = (segment[1:] != segment[:-1]) | (values[1:] != values[:-1])
    segment, values = segment[distinct], values[distinct]
    starts = np.searchsorted(segment, np.arange(count))
    rank = np.arange(len(values)) - starts[segment]
    present = np.bincount(segment, minlength=count)  # no gap: the mex is the count
    gaps = values != rank  # the first gap in a sorted distinct run is the mex
    first_gap = np.full(count, np.iinfo(np.int64).max)
    np.minimum.at(first_gap, segment[gaps], rank[gaps])
    return np.minimum(present, first_gap).astype(np.int32)
