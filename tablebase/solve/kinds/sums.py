"""The ``sums`` kind: an impartial game whose moves may leave a *sum* of positions
(Kayles: a row knocked in two). The tablebase stores single components with their Grundy
values, the mex over each move of the xor of its parts' (Sprague-Grundy theory); a sum is
valued by the xor of its components', a win where it is not 0. No remoteness, but 0 for a
position without moves. The game implements
:meth:`~tablebase.core.game.Game.components`, and its batch
:meth:`~tablebase.core.game.Game.successors` gives int64[m, k] parts padded with -1.
"""

from __future__ import annotations

import numpy as np

from tablebase.core.game import Game, Mode
from tablebase.core.values import Outcome
from tablebase.solve.acyclic import grundy_values
from tablebase.solve.exits import ReadOnce, ReadTable
from tablebase.solve.graph import MoveGraph
from tablebase.solve.kinds.base import Finding, StoredValues, register
from tablebase.solve.kinds.grundy import Grundy, grundy_findings
from tablebase.solve.movelist import MoveList
from tablebase.solve.retrograde.state import Solution
from tablebase.solve.solved import SolvedGame
from tablebase.util.progress import Stages


class Sums(Grundy):
    """Grundy values of single components (see the module docstring)."""

    name = Mode.SUMS
    requires = (("components",),)
    dependencies = False
    splits = True
    move_list = True
    remoteness = False
    sums_of_positions = False

    def solve_graph(self, game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None) -> SolvedGame:
        moves = graph.moves
        assert isinstance(moves, MoveList)
        with stages("grundy", len(graph.keys)) as advance:
            grundy = grundy_values(len(graph.keys), moves.src, moves.parts, advance)
        outcome = np.select([grundy > 0, grundy == 0], [Outcome.WIN, Outcome.LOSS], Outcome.DRAW).astype(np.int8)
        return SolvedGame(graph.keys, Solution(outcome, moves.end_remoteness()), grundy)

    def verify(self, game: Game, stored: StoredValues, graph: MoveGraph, read: ReadOnce) -> list[Finding]:
        assert stored.extra is not None
        return grundy_findings(stored.keys, *graph.forward(), *stored.extra)


SUMS_KIND = register(Sums())
