"""The ``scored`` kind: a position without moves carries a score for its side to move
and a move may earn a reward; each position stores its negamax value, the best margin
the side to move can secure (the best over its moves of the reward minus the successor's
value), win/draw/loss as its sign, no remoteness but 0 for a position without moves
(:mod:`tablebase.solve.scored`)."""

from __future__ import annotations

import numpy as np

from tablebase.core.game import Game, Mode
from tablebase.core.value import Value
from tablebase.core.values import OUTCOMES, StoredKind
from tablebase.solve.exits import ReadOnce, ReadTable
from tablebase.solve.graph import MoveGraph
from tablebase.solve.kinds.base import Finding, StoredValues, ValueKind, register
from tablebase.solve.movelist import MoveList
from tablebase.solve.ordered import scores_in_key_order
from tablebase.solve.retrograde.state import Solution
from tablebase.solve.scored import scored_values
from tablebase.solve.solved import SolvedGame, SolvedIndex
from tablebase.solve.workers import WorkersChoice
from tablebase.util.progress import Stages


class Score(ValueKind):
    """Negamax values (see the module docstring)."""

    name = Mode.SCORED
    stored = StoredKind.SCORE
    requires = (("score", "terminal_scores", "reward", "move_rewards"),)
    dependencies = False
    move_list = True
    rewards = True
    remoteness = False

    def solve(
        self, game: Game, batch_size: int, stages: Stages, read: ReadTable | None, workers: WorkersChoice
    ) -> SolvedGame | SolvedIndex:
        """Over the move graph, or for an index space in key order
        (:meth:`~tablebase.core.game.Game.key_order_levels`) in one sweep by key
        (:func:`~tablebase.solve.ordered.scores_in_key_order`)."""
        levels = game.key_order_levels() if game.size is not None else None
        if levels is None:
            return super().solve(game, batch_size, stages, read, workers)
        return scores_in_key_order(game, levels, batch_size, stages)

    def solve_graph(self, game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None) -> SolvedGame:
        """:raises GameError: for a cycle with rewards."""
        moves = graph.moves
        assert isinstance(moves, MoveList)
        ended = moves.out_degree == 0
        scores = np.zeros(len(graph.keys), dtype=np.int64)
        scores[ended] = game.terminal_scores(graph.keys[ended])
        with stages("solve", len(graph.keys)) as advance:
            value = scored_values(len(graph.keys), moves.src, moves.parts[:, 0], moves.reward, scores, advance)
        return SolvedGame(graph.keys, Solution(np.sign(value).astype(np.int8), moves.end_remoteness()), value)

    def verify(self, game: Game, stored: StoredValues, graph: MoveGraph, read: ReadOnce) -> list[Finding]:
        """Positions whose stored score is not the best of their moves, or whose outcome
        is not its sign."""
        assert stored.extra is not None
        keys, moves, values, outcome = graph.keys, graph.moves, stored.extra[0], stored.outcome
        assert isinstance(moves, MoveList)
        best = np.full(len(keys), np.iinfo(np.int64).min, dtype=np.int64)
        np.maximum.at(best, moves.src, moves.reward - values[moves.parts[:, 0]])
        ended = moves.out_degree == 0
        best[ended] = np.asarray(game.terminal_scores(keys[ended]), dtype=np.int64)
        wrong = (values != best) | (outcome != np.sign(values))
        return [(int(keys[i]), f"score {values[i]}", f"score {best[i]}") for i in np.flatnonzero(wrong).tolist()]

    def value(self, outcome: int, remoteness: int | None, extra: int | None) -> Value:
        return Value(OUTCOMES[outcome], remoteness, score=extra)


SCORE_KIND = register(Score())
