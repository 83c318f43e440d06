"""A move graph held as predecessor lists (CSR), built batch by batch in little memory.

The retrograde pass walks moves backwards, from a resolved position to the positions
that move into it, so the graph is kept grouped by successor: the predecessors of ``v``
are ``preds[offsets[v]:offsets[v + 1]]`` (compressed sparse rows), and each position's
number of moves is kept beside them. The forward lists are not kept.

Moves arrive from the expansion as parts: some source positions, how many moves each has,
and the successors of those moves in source order (4 bytes a move while the parts pile
up). :meth:`PredecessorBuilder.finish` then sorts the moves into one range of successors
at a time, as packed ``(dst << 32) | src`` words, which numpy sorts faster than it
argsorts the destinations. Peak memory is about 8 bytes a move plus one range's words
(:data:`SORT_MOVES`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from tablebase.core.errors import GameError

SORT_MOVES = 1 << 26
"""Moves sorted at once by :meth:`PredecessorBuilder.finish` (512 MiB of packed words)."""


def index_dtype(n: int) -> type[np.signedinteger]:
    """The smallest signed integer dtype that can number ``n`` positions."""
    return np.int32 if n < 2**31 else np.int64


@dataclass(frozen=True)
class Predecessors:
    """Every move of a graph of ``n`` positions, grouped by successor.

    :ivar offsets: int64[n + 1]; the predecessors of ``v`` are
        ``preds[offsets[v]:offsets[v + 1]]``.
    :ivar preds: int32 (int64 past 2**31 positions)[m], one entry per move (a position
        that moves twice into ``v`` is listed twice).
    :ivar out_degree: int32[n], the number of moves of each position.
    """

    offsets: np.ndarray
    preds: np.ndarray
    out_degree: np.ndarray

    def of(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Concatenate the predecessor lists of ``nodes`` (int[k]).

        :returns: ``(predecessors, counts)``: the lists, end to end, and int64[k] how many
            each node contributed (for ``np.repeat`` of per-node values).
        """
        positions, counts = segments(self.offsets, nodes)
        return self.preds[positions], counts

    def parents(self, nodes: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The :class:`~tablebase.solve.retrograde.solver.MoveSource` form of :meth:`of`: one
        part, ``(nodes, predecessors, counts)``."""
        yield (nodes, *self.of(nodes))

    def targets(self) -> np.ndarray:
        """int64[m]: the successor each entry of ``preds`` moves into."""
        return np.repeat(np.arange(len(self.out_degree), dtype=np.int64), np.diff(self.offsets))


def segments(offsets: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The index ranges ``offsets[v]:offsets[v + 1]`` of int[k] ``nodes``, end to end
    (int64), and int64[k] the length of each."""
    starts = offsets[nodes]
    counts = offsets[nodes + 1] - starts
    ends = np.cumsum(counts)
    return np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(starts - (ends - counts), counts), counts


def tally(indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``indices`` and how often each occurs (a sort; faster than ``ufunc.at``)."""
    ordered = np.sort(indices)
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    starts = np.flatnonzero(first)
    counts = np.empty(len(starts), dtype=np.int64)
    counts[:-1] = starts[1:] - starts[:-1]
    counts[-1:] = len(ordered) - starts[-1:]
    return ordered[starts], counts


class PredecessorBuilder:
    """Collects the moves of a graph of ``n`` positions part by part, then makes its
    :class:`Predecessors`.

    :raises GameError: from ``2**31`` positions on (packed words hold 31-bit indices).
    """

    def __init__(self, n: int) -> None:
        if n >= 2**31:
            raise GameError(f"{n:,} positions: a tablebase holds fewer than 2**31")
        self.n = n
        self.out_degree = np.zeros(n, dtype=np.int32)
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def add(self, sources: np.ndarray, counts: np.ndarray, dst: np.ndarray, reward: np.ndarray | None = None) -> None:
        """Record the moves of some positions (the
        :class:`~tablebase.solve.graph.MoveSink` of games whose moves neither split nor
        earn rewards).

        :param sources: int[k] distinct position indices, not recorded before.
        :param counts: int[k] the number of moves of each.
        :param dst: int[sum(counts)] successor indices, the moves of ``sources[0]`` first.
        :param reward: ignored (``None``: these passes have no rewards).
        """
        self.out_degree[sources] = counts
        dtype = index_dtype(self.n)
        self.parts.append((np.asarray(sources, dtype), np.asarray(counts, np.int32), np.asarray(dst, dtype)))

    def finish(self) -> Predecessors:
        """The predecessor lists of everything added (the parts are freed at the end).

        The successors are split into ranges of about :data:`SORT_MOVES` moves; for
        each, the moves into it are gathered from every part as packed
        ``(dst << 32) | src`` words and sorted, which lays out its lists in order.
        """
        total = sum(len(dst) for _sources, _counts, dst in self.parts)
        ranges = -(-total // SORT_MOVES) or 1
        edges = np.linspace(0, self.n, ranges + 1).astype(np.int64)
        offsets = np.zeros(self.n + 1, dtype=np.int64)
        preds = np.empty(total, dtype=index_dtype(self.n))
        for low, high in zip(edges[:-1].tolist(), edges[1:].tolist()):
            packed = self._moves_into(low, high, total if ranges == 1 else None)
            packed.sort()
            start = offsets[low]
            np.cumsum(np.bincount((packed >> 32) - low, minlength=high - low), out=offsets[low + 1 : high + 1])
            offsets[low + 1 : high + 1] += start
            preds[start : start + len(packed)] = np.bitwise_and(packed, 0xFFFFFFFF, out=packed)
        self.parts = []
        return Predecessors(offsets, preds, self.out_degree)

    def _moves_into(self, low: int, high: int, count: int | None) -> np.ndarray:
        """int64[k]: the moves into positions ``low <= v < high`` as packed words
        (``count``, when given, is ``k``: every move is in the range)."""
        if count is None:
            count = sum(int(np.count_nonzero((dst >= low) & (dst < high))) for _sources, _counts, dst in self.parts)
        packed = np.empty(count, dtype=np.int64)
        at = 0
        for sources, counts, dst in self.parts:
            src = np.repeat(sources, counts)
            if low > 0 or high < self.n:
                inside = (dst >= low) & (dst < high)
                src, dst = src[inside], dst[inside]
            words = packed[at : at + len(dst)]
            words[:] = dst
            words <<= 32
            words |= src
            at += len(dst)
        return packed


def predecessors_of(n: int, src: np.ndarray, dst: np.ndarray) -> Predecessors:
    """The :class:`Predecessors` of moves given as two lists.

    :param n: number of positions.
    :param src: int[m] index of each move's position (any order, repeats allowed).
    :param dst: int[m] index of each move's successor.
    """
    builder = PredecessorBuilder(n)
    if np.any(src[1:] < src[:-1]):
        dst = dst[np.argsort(src, kind="stable")]
    builder.add(np.arange(n), np.bincount(src, minlength=n), dst)
    return builder.finish()
