"""The ``buchi`` kind: play never ends; player A (:meth:`~tablebase.core.game.Game.owners`)
wins a play that visits :meth:`~tablebase.core.game.Game.accepting` positions infinitely
often. Each position stores whether its owner, the side to move, wins (a win or a loss),
no remoteness: the winners by iterated attractors (:mod:`tablebase.solve.buchi`; Grädel,
Thomas and Wilke, *Automata, Logics, and Infinite Games*, 2002, chapter 2)."""

from __future__ import annotations

import numpy as np

from tablebase.core.errors import GameError
from tablebase.core.game import Game, Mode
from tablebase.core.values import NOT_TERMINAL, WIN, Outcome
from tablebase.solve.buchi import buchi_winners
from tablebase.solve.exits import ReadOnce, ReadTable
from tablebase.solve.graph import MoveGraph
from tablebase.solve.kinds.base import Finding, StoredValues, ValueKind, register
from tablebase.solve.predecessors import Predecessors
from tablebase.solve.retrograde.state import NO_REMOTENESS, Solution
from tablebase.solve.solved import SolvedGame
from tablebase.util.progress import Stages


class Buchi(ValueKind):
    """Büchi winners (see the module docstring)."""

    name = Mode.BUCHI
    requires = (("owners",), ("accepting",))
    dependencies = False
    remoteness = False

    def solve_graph(self, game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None) -> SolvedGame:
        """:raises GameError: for a position without moves."""
        moves = graph.moves
        assert isinstance(moves, Predecessors)
        if np.any(graph.terminal != NOT_TERMINAL) or np.any(moves.out_degree == 0):
            raise GameError(f"{game.name}: every position of a Büchi game needs a move")
        n = len(graph.keys)
        with stages("solve", n) as advance:
            owner_is_a = np.asarray(game.owners(graph.keys), dtype=bool)
            a_wins = buchi_winners(moves, owner_is_a, np.asarray(game.accepting(graph.keys), dtype=bool))
            advance(n)
        outcome = np.where(a_wins == owner_is_a, Outcome.WIN, Outcome.LOSS).astype(np.int8)
        return SolvedGame(graph.keys, Solution(outcome, np.full(n, NO_REMOTENESS, dtype=np.int32)))

    def verify(self, game: Game, stored: StoredValues, graph: MoveGraph, read: ReadOnce) -> list[Finding]:
        """Positions whose stored winner does not follow from their moves': A wins at an
        A position when some move leads to a position A wins, and at a B position when
        every move does."""
        keys = stored.keys
        src, parts = graph.forward()
        owner_is_a = np.asarray(game.owners(keys), dtype=bool)
        a_wins = (stored.outcome == WIN) == owner_is_a
        child_a = a_wins[parts[:, 0]]
        some = np.bincount(src[child_a], minlength=len(keys)) > 0
        every = np.bincount(src[~child_a], minlength=len(keys)) == 0
        expected = np.where(owner_is_a, some, every)
        wrong = expected != a_wins
        say = {True: "A wins", False: "B wins"}
        return [(int(keys[i]), say[bool(a_wins[i])], say[bool(expected[i])]) for i in np.flatnonzero(wrong).tolist()]


BUCHI_KIND = register(Buchi())
