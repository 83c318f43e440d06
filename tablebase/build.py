"""Building a tablebase: enumerate, expand, solve, store, or reuse the one already stored."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from tablebase.game import Game
from tablebase.progress import Stages, silent
from tablebase.solve import DEFAULT_BATCH_SIZE, Solution, build_graph, solve
from tablebase.store import Store, TablebaseRow


@dataclass(frozen=True)
class SolvedGame:
    """Every position of a game with its value.

    :ivar keys: int64[n] canonical keys, ascending.
    :ivar solution: outcome int8[n] and remoteness int32[n] (plies), indexed like ``keys``.
    """

    keys: np.ndarray
    solution: Solution


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build` did: ``reused`` is true when the stored tablebase was kept."""

    row: TablebaseRow
    reused: bool


def solve_game(game: Game, batch_size: int = DEFAULT_BATCH_SIZE, stages: Stages = silent) -> SolvedGame:
    """Enumerate, expand and solve a game in memory, storing nothing.

    :param batch_size: positions per call to the game's batch API; the result does not
        depend on it.
    :raises GameError: if the game breaks the protocol.
    """
    graph = build_graph(game, batch_size, stages)
    with stages("solve", len(graph.keys)) as advance:
        solution = solve(graph.terminal, graph.src, graph.dst, advance)
    return SolvedGame(graph.keys, solution)


def build(
    game: Game,
    store: Store,
    *,
    force: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
    stages: Stages = silent,
) -> BuildResult:
    """Make sure the game's tablebase is complete in the store.

    A complete tablebase of the same game and parameters is reused unless ``force``.
    Otherwise the game is solved, then written in batches, and marked complete last, so
    an interrupted build is never served.
    """
    if not force:
        stored = store.find(game.name, game.identity())
        if stored is not None:
            return BuildResult(stored, reused=True)
    started = time.perf_counter()
    solved = solve_game(game, batch_size, stages)
    row = store.begin_build(game.name, game.identity(), game.describe())
    outcome, remoteness = solved.solution.outcome, solved.solution.remoteness
    with stages("write", len(solved.keys)) as advance:
        store.write(row, solved.keys, outcome, remoteness, advance)
    row = store.complete(row, outcome, remoteness, time.perf_counter() - started)
    return BuildResult(row, reused=False)
