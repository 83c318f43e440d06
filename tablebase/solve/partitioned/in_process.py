"""The partitioned pass over a move graph (:func:`solve_partitioned`, in one process), and
the arguments of each :class:`~tablebase.solve.partitioned.partition.Partition` of such a
pass, held here or by other processes (:func:`partition_arguments`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from tablebase.solve.partitioned.owners import KeyRanges, partition_bounds
from tablebase.solve.partitioned.partition import Partition
from tablebase.solve.partitioned.rounds import Traffic, drive
from tablebase.solve.predecessors import Predecessors, segments
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.retrograde.state import PositionState, Solution


def partition_arguments(
    terminal: np.ndarray, graph: Predecessors, partitions: int, exits: Exits | None = None, sliced: bool = False
) -> list[tuple[object, ...]]:
    """The arguments of each :class:`Partition` of a pass over a move graph: its
    :class:`PositionState` (terminal values, moves, ``exits`` folded), and with
    ``sliced`` only the predecessor lists of its own positions (a
    :class:`PredecessorRange`, for partitions held elsewhere), else the whole ``graph``.

    :raises ValueError: if ``partitions`` is below 1.
    """
    exits = exits or Exits.none()
    bounds = partition_bounds(len(terminal), partitions)
    owner = np.searchsorted(bounds, exits.src, side="right") - 1
    found = []
    for p in range(partitions):
        lo, hi = int(bounds[p]), int(bounds[p + 1])
        state = PositionState(hi - lo)
        state.outcome[:] = terminal[lo:hi]
        state.count_moves(slice(None), graph.out_degree[lo:hi])
        own = exits.select(owner == p)
        state.fold(Exits(own.src - lo, own.outcome, own.remoteness))
        found.append((KeyRanges(bounds), p, state, PredecessorRange.of(graph, lo, hi) if sliced else graph, lo))
    return found


@dataclass(frozen=True)
class PredecessorRange:
    """The predecessor lists of the positions ``lo <= v < hi`` of a
    :class:`~tablebase.solve.predecessors.Predecessors` graph, for a partition held by
    another process: ``offsets`` int64[hi - lo + 1] into ``preds`` (global indices)."""

    lo: int
    offsets: np.ndarray
    preds: np.ndarray

    @staticmethod
    def of(graph: Predecessors, lo: int, hi: int) -> PredecessorRange:
        """The range ``[lo, hi)`` of ``graph``."""
        start, end = int(graph.offsets[lo]), int(graph.offsets[hi])
        return PredecessorRange(lo, graph.offsets[lo : hi + 1] - start, graph.preds[start:end])

    def parents(self, nodes: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """:meth:`~tablebase.solve.retrograde.solver.MoveSource.parents` of ``nodes`` (global indices within the range)."""
        positions, counts = segments(self.offsets, np.asarray(nodes, np.int64) - self.lo)
        yield nodes, self.preds[positions], counts


def solve_partitioned(
    terminal: np.ndarray, graph: Predecessors, partitions: int, exits: Exits | None = None
) -> tuple[Solution, Traffic]:
    """:func:`~tablebase.solve.retrograde.solver.solve` over ``partitions`` key ranges in this
    process, exchanging updates between them as separate machines would.

    :param terminal: int8[n] terminal values, as for ``solve``.
    :param graph: the moves, as predecessor lists.
    :param partitions: how many key ranges (1 or more).
    :param exits: moves into other tablebases, as for ``solve``.
    :returns: the same :class:`Solution` as ``solve``, and the :class:`Traffic` between
        partitions.
    :raises ValueError: if ``partitions`` is below 1.
    """
    parts = [Partition(*arguments) for arguments in partition_arguments(terminal, graph, partitions, exits)]

    def exchange(method: str, arguments: Sequence[object]) -> list[object]:
        return [getattr(part, method)(*args) for part, args in zip(parts, arguments)]

    traffic = Traffic()
    drive(exchange, partitions, traffic)
    values = exchange("values", [()] * partitions)
    outcome = np.concatenate([part[0] for part in values])
    remoteness = np.concatenate([part[1] for part in values]).astype(np.int32)
    return Solution(outcome, remoteness), traffic
