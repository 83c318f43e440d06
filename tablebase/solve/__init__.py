"""The retrograde engine: move graphs from batches, and their solution.

It knows nothing of SQL: it takes a :class:`~tablebase.core.game.Game` and returns arrays.
"""

from tablebase.solve.graph import DEFAULT_BATCH_SIZE, ExitMoves, MoveGraph, build_graph, index_of
from tablebase.solve.predecessors import Predecessors, predecessors_of
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.retrograde.solver import solve
from tablebase.solve.retrograde.state import NO_REMOTENESS, Solution

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "ExitMoves",
    "Exits",
    "MoveGraph",
    "NO_REMOTENESS",
    "Predecessors",
    "Solution",
    "build_graph",
    "index_of",
    "predecessors_of",
    "solve",
]
