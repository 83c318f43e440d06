"""The ``impartial`` kind: both players have the same moves and the player without one
loses; beside win/draw/loss and remoteness, each position's Grundy value (nimber), the
mex of its moves' (Sprague-Grundy theory: Berlekamp, Conway and Guy, *Winning Ways*,
chapter 2), moves into other tablebases counted by their stored Grundy values. A query
adds up positions (``a+b``) by the xor of theirs.
"""

from __future__ import annotations

import numpy as np

from tablebase.core.game import Game, Mode
from tablebase.core.value import Value
from tablebase.core.values import OUTCOMES, StoredKind
from tablebase.solve.acyclic import grundy_values, mex
from tablebase.solve.exits import ReadOnce, ReadTable, exit_values
from tablebase.solve.graph import MoveGraph
from tablebase.solve.kinds.base import Finding, StoredValues, register
from tablebase.solve.kinds.wdl import Wdl
from tablebase.solve.solved import SolvedGame
from tablebase.solve.unmoves.plan import UnmovePlan
from tablebase.util.progress import Stages


class Grundy(Wdl):
    """Win/draw/loss, remoteness and the Grundy value (see the module docstring)."""

    name = Mode.IMPARTIAL
    stored = StoredKind.GRUNDY
    sums_of_positions = True

    def uses_unmoves(self, game: Game) -> bool:
        return False

    def unmove_plan(self, game: Game, read: ReadTable | None) -> UnmovePlan | None:
        """``None``: the Grundy values come from the move graph, not from un-moves."""
        return None

    def solve_graph(self, game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None) -> SolvedGame:
        solution, known = self.graph_pass(game, graph, stages, read, grundy=True)
        n = len(graph.keys)
        with stages("grundy", n) as advance:
            grundy = grundy_values(n, graph.moves.preds, graph.moves.targets(), advance, known)  # type: ignore[union-attr]
        return SolvedGame(graph.keys, solution, grundy)

    def verify(self, game: Game, stored: StoredValues, graph: MoveGraph, read: ReadOnce) -> list[Finding]:
        assert stored.extra is not None
        src, parts = graph.forward()
        exits, exit_grundy = exit_values(game, graph.exits, read, grundy=True)
        outside = (exits.src, exit_grundy)
        return super().verify(game, stored, graph, read) + grundy_findings(stored.keys, src, parts, *stored.extra, outside)

    def value(self, outcome: int, remoteness: int | None, extra: int | None) -> Value:
        return Value(OUTCOMES[outcome], remoteness, grundy=extra)

    def known(self, extra: np.ndarray) -> np.ndarray:
        """Where the Grundy value is known (a draw has none: -1)."""
        return extra >= 0


def grundy_findings(keys, src, parts, values, known, outside=None) -> list[Finding]:
    """Positions whose stored Grundy value is not the mex of their moves' values (a
    sum's value the xor of its parts'): int64[n] ``keys``, ``values`` and bool[n]
    ``known``; ``src`` int64[m] and ``parts`` int64[m, k] (-1 padding) the moves;
    ``outside``: ``(src, value)`` of moves into other tablebases, -1 for no value."""
    reached = np.where(parts >= 0, values[np.maximum(parts, 0)], 0)
    move_values = np.bitwise_xor.reduce(reached, axis=1) if len(parts) else np.zeros(0, np.int64)
    if outside is not None:
        known = known.copy()
        known[outside[0][outside[1] < 0]] = False
        src = np.concatenate([src, outside[0].astype(np.int64)])
        move_values = np.concatenate([move_values, np.maximum(outside[1], 0)])
    expected = mex(src, move_values, len(keys)).astype(np.int64)
    wrong = known & (values != expected)
    return [(int(keys[i]), f"grundy {values[i]}", f"grundy {expected[i]}") for i in np.flatnonzero(wrong).tolist()]


GRUNDY_KIND = register(Grundy())
