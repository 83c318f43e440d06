"""The ``wdl`` kind: win, draw or loss for the side to move and the remoteness in plies
(chess's DTM), by retrograde analysis; the base of the kinds that add to it.

A game with un-moves (:meth:`~tablebase.core.game.Game.predecessors`) is solved without a move
graph (:mod:`tablebase.solve.unmoves`) unless its index space is small
(:meth:`Wdl.uses_unmoves`); others by the retrograde pass over the move graph
(:mod:`tablebase.solve.retrograde`), with the stored values of moves into other tablebases.

Verify's rules (docs/design.md): a terminal position has its terminal value at
remoteness 0, a position without moves is a loss at 0; a win at ``r`` has a move to a
loss at ``r - 1`` and none to a shorter loss; a loss at ``r`` has only moves to wins, the
longest at ``r - 1``; a draw has no move to a loss, and a move to a draw, its remoteness
1 + the smallest among its moves to draws when each of those has one, none when one of
them has none (it can cycle).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from tablebase.core.game import Game, Mode, provides_unmoves
from tablebase.core.values import DRAW, LOSS, NOT_TERMINAL, WIN, Outcome
from tablebase.solve.exits import ReadOnce, ReadTable, exit_values
from tablebase.solve.graph import ExitMoves, MoveGraph
from tablebase.solve.kinds.base import Finding, StoredValues, ValueKind, register
from tablebase.solve.predecessors import Predecessors
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.retrograde.solver import solve
from tablebase.solve.retrograde.state import Solution
from tablebase.solve.solved import SolvedGame, SolvedIndex
from tablebase.solve.unmoves.plan import UnmovePlan
from tablebase.solve.unmoves.solver import solve_by_unmoves
from tablebase.solve.workers import WorkersChoice
from tablebase.util.progress import Stages

NONE = np.iinfo(np.int64).max
"""Verify's stand-in for "no such move" in a minimum of plies."""

GRAPH_UP_TO = 1 << 25
"""The largest index space solved through the move graph even when the game has
un-moves, unless its batch API is compiled (``Game.threaded``): there the graph fits in a
few GiB and builds faster than the un-move pass in numpy (KQvKR). Forward-search games
and compiled ones always use their un-moves (chess KQvKR: a little slower by un-moves
than by the graph, in much less memory; benchmarks/RESULTS.md)."""


@dataclass(frozen=True)
class PositionValues:
    """Some positions' keys int64[n], terminal values int8[n], and stored outcome
    int8[n], remoteness int[n] (plies, -1 for none) and signed DTZ int[n] (or ``None``)."""

    keys: np.ndarray
    terminal: np.ndarray
    outcome: np.ndarray
    remoteness: np.ndarray
    dtz: np.ndarray | None


@dataclass(frozen=True)
class MoveValues:
    """The moves of those positions within the tablebase: ``src`` int64[m] the position
    each is made from, its successor's stored ``outcome``, ``remoteness`` and ``dtz``
    (int[m] each, ``dtz`` ``None`` without DTZ), whether it is ``zeroing`` (bool[m], a
    DTZ game's progress raised, else ``None``); and the ``exits`` out of the tablebase."""

    src: np.ndarray
    outcome: np.ndarray
    remoteness: np.ndarray
    dtz: np.ndarray | None
    exits: ExitMoves
    zeroing: np.ndarray | None


class Wdl(ValueKind):
    """Win/draw/loss and remoteness (see the module docstring)."""

    name = Mode.WDL

    def uses_unmoves(self, game: Game) -> bool:
        """Whether the game has un-moves and is found by forward search, compiled
        (``threaded``), or over an index space above :data:`GRAPH_UP_TO`."""
        large = game.size is None or game.size > GRAPH_UP_TO or game.threaded
        return provides_unmoves(game) and large

    def solve(
        self, game: Game, batch_size: int, stages: Stages, read: ReadTable | None, workers: WorkersChoice
    ) -> SolvedGame | SolvedIndex:
        """By un-moves where :meth:`uses_unmoves` (:meth:`solve_by_unmoves`), else over
        the move graph."""
        if self.uses_unmoves(game):
            return self.solve_by_unmoves(game, batch_size, stages, read, workers)
        return super().solve(game, batch_size, stages, read, workers)

    def solve_by_unmoves(
        self, game: Game, batch_size: int, stages: Stages, read: ReadTable | None, workers: WorkersChoice
    ) -> SolvedGame | SolvedIndex:
        """The passes of :meth:`unmove_plan` without a move graph
        (:mod:`tablebase.solve.unmoves`)."""
        plan = self.unmove_plan(game, read)
        assert plan is not None
        return solve_by_unmoves(game, plan, batch_size, stages, workers)[-1]

    def unmove_plan(self, game: Game, read: ReadTable | None) -> UnmovePlan | None:
        """The passes by un-moves over one survey (one here, with the draw peel), each
        dependency read once (without its DTZ) and dropped after the survey; ``None``
        where the kind's passes do not share one survey of the whole tablebase."""
        read_once = ReadOnce(game, read, dtz=False)

        def exits(moves: ExitMoves) -> tuple[Exits]:
            return (exit_values(game, moves, read_once)[0],)

        return UnmovePlan(exits, surveyed=read_once.forget, ready=read_once.read_all)

    def solve_graph(self, game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None) -> SolvedGame:
        return SolvedGame(graph.keys, self.graph_pass(game, graph, stages, read)[0])

    def terminal(self, graph: MoveGraph) -> np.ndarray:
        """int8[n] the terminal values the pass starts from: the game's."""
        return graph.terminal

    def graph_pass(
        self, game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None, grundy: bool = False
    ) -> tuple[Solution, tuple[np.ndarray, np.ndarray]]:
        """The retrograde pass over the move graph: the solution, and the moves out of
        the tablebase as ``(src, grundy)`` int64[e] each, their successors' stored Grundy
        values where ``grundy`` (else :data:`~tablebase.solve.acyclic.NO_GRUNDY`)."""
        assert isinstance(graph.moves, Predecessors)
        with stages("lookup", len(graph.exits.src)) as advance:
            exits, exit_grundy = exit_values(game, graph.exits, read, grundy)
            advance(len(graph.exits.src))
        with stages("solve", len(graph.keys)) as advance:
            solution = solve(self.terminal(graph), graph.moves, advance, exits)
        return solution, (exits.src, exit_grundy)

    def by_ranges(self, game: Game) -> bool:
        """Whether verify checks the game a range of its index space at a time
        (:func:`tablebase.tools.verify.verify_game`), with :meth:`findings`."""
        return game.size is not None and self.uses_unmoves(game)

    def verify(self, game: Game, stored: StoredValues, graph: MoveGraph, read: ReadOnce) -> list[Finding]:
        src, parts = graph.forward()
        moves = self.neighbourhood(game, stored, self.terminal(graph), src, stored, parts[:, 0], graph.exits)
        return self.findings(game, read, *moves)

    def neighbourhood(
        self,
        game: Game,
        stored: StoredValues,
        terminal: np.ndarray,
        src: np.ndarray,
        successors: StoredValues,
        dst: np.ndarray,
        exits: ExitMoves,
    ) -> tuple[PositionValues, MoveValues]:
        """What :meth:`findings` reads of the ``stored`` positions, int8[n] ``terminal``
        their terminal values, and their moves within the tablebase: int64[m] ``src``
        rows of ``stored`` and ``dst`` rows of the ``successors``' stored values (the
        same positions in a whole tablebase, others in a range of it); and the
        ``exits``."""
        values = PositionValues(stored.keys, terminal, stored.outcome, stored.remoteness, None)
        return values, MoveValues(src, successors.outcome[dst], successors.remoteness[dst], None, exits, None)

    def findings(self, game: Game, read: ReadOnce, values: PositionValues, moves: MoveValues) -> list[Finding]:
        """The positions whose stored outcome and remoteness (the outcome alone for a
        kind without ``remoteness``) do not follow from their moves' (see the module
        docstring)."""
        exits = exit_values(game, moves.exits, read)[0]
        expected = expected_wdl(values.terminal, moves.src, moves.outcome, moves.remoteness, exits)
        remoteness = values.remoteness
        if not self.remoteness:
            remoteness = np.full(len(values.keys), -1)
            expected = (expected[0], remoteness)
        return [(k, say(o, r), say(*e)) for k, o, r, e in differences(values.keys, values.outcome, remoteness, expected)]


def say(outcome: int, remoteness: int) -> str:
    """A stored outcome and remoteness as verify prints them (``win in 3``)."""
    label = Outcome(outcome).label
    return label if remoteness < 0 else f"{label} in {remoteness}"


def expected_wdl(terminal, src, successor_outcome, successor_remoteness, exits: Exits) -> tuple[np.ndarray, np.ndarray]:
    """The ``(outcome, remoteness)`` each of n positions' moves give, remoteness -1 for
    none: the rules of :func:`tablebase.solve.solve` (a draw's remoteness as its
    ``_draw_remoteness`` gives it), applied to the stored values of the successors.

    :param terminal: int8[n]; ``src`` int64[m] the position of each move within the
        tablebase, ``successor_outcome`` and ``successor_remoteness`` its successor's
        stored values; ``exits`` the moves out of it, valued."""
    n = len(terminal)
    parent = np.concatenate([src, exits.src.astype(np.int64)])
    child_outcome = np.concatenate([successor_outcome, exits.outcome])
    child_remoteness = np.concatenate([successor_remoteness, exits.remoteness]).astype(np.int64)
    moves = np.bincount(parent, minlength=n)
    losses = np.bincount(parent[child_outcome == LOSS], minlength=n)
    to_draw = child_outcome == DRAW
    draws = np.bincount(parent[to_draw], minlength=n)
    endless_draws = np.bincount(parent[to_draw & (child_remoteness < 0)], minlength=n)
    shortest_loss = extreme(np.minimum, n, parent, child_remoteness, child_outcome == LOSS, NONE)
    shortest_draw = extreme(np.minimum, n, parent, child_remoteness, to_draw, NONE)
    longest_win = extreme(np.maximum, n, parent, child_remoteness, child_outcome == WIN, -1)
    draw_remoteness = np.where(endless_draws > 0, -1, shortest_draw + 1)
    expected_outcome = np.select([losses > 0, draws > 0], [WIN, DRAW], LOSS).astype(np.int8)
    expected_remoteness = np.select([losses > 0, draws > 0], [shortest_loss + 1, draw_remoteness], longest_win + 1)
    ended = (terminal != NOT_TERMINAL) | (moves == 0)
    expected_outcome[ended] = np.where(terminal[ended] != NOT_TERMINAL, terminal[ended], LOSS)
    expected_remoteness[ended] = 0
    return expected_outcome, expected_remoteness


def extreme(ufunc, n: int, parent: np.ndarray, values: np.ndarray, chosen: np.ndarray, start: int) -> np.ndarray:
    """int64[n]: ``ufunc`` (np.minimum or np.maximum) of the chosen moves' int64 values
    per parent position, ``start`` where it has none."""
    found = np.full(n, start, dtype=np.int64)
    ufunc.at(found, parent[chosen], values[chosen])
    return found


def differences(keys, outcome, remoteness, expected) -> Iterator[tuple[int, int, int, tuple[int, int]]]:
    """``(key, stored outcome, stored remoteness, (expected outcome, remoteness))`` where they differ."""
    expected_outcome, expected_remoteness = expected
    stored_remoteness = np.maximum(remoteness.astype(np.int64), -1)
    wrong = (outcome != expected_outcome) | (stored_remoteness != expected_remoteness)
    for i in np.flatnonzero(wrong).tolist():
        yield int(keys[i]), int(outcome[i]), int(remoteness[i]), (int(expected_outcome[i]), int(expected_remoteness[i]))


WDL_KIND = register(Wdl())
