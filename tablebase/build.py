"""Building a tablebase: enumerate, expand, solve, store, or reuse the one already stored."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tablebase.errors import GameError, NotBuiltError
from tablebase.game import NOT_TERMINAL, Game, Outcome
from tablebase.progress import Stages, silent
from tablebase.solve import (
    DEFAULT_BATCH_SIZE,
    NO_REMOTENESS,
    ExitMoves,
    Exits,
    Solution,
    build_graph,
    index_of,
    solve,
)
from tablebase.solve.acyclic import grundy_values
from tablebase.solve.buchi import buchi_winners
from tablebase.solve.predecessors import predecessors_of
from tablebase.solve.scored import scored_values
from tablebase.store import Store, TablebaseRow
from tablebase.store.schema import GRUNDY, SCORE, WDL


@dataclass(frozen=True)
class SolvedGame:
    """Every position of a game with its value.

    :ivar keys: int64[n] canonical keys, ascending.
    :ivar solution: outcome int8[n] and remoteness int32[n] (plies), indexed like ``keys``.
    :ivar extra: int32[n] Grundy values of an impartial game (-1 where a cycle is
        reachable), int64[n] negamax scores of a scored game, else ``None`` (see
        :func:`value_kind`).
    """

    keys: np.ndarray
    solution: Solution
    extra: np.ndarray | None = None


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build` did: ``reused`` is true when the stored tablebase was kept."""

    row: TablebaseRow
    reused: bool


def solve_game(
    game: Game,
    batch_size: int = DEFAULT_BATCH_SIZE,
    stages: Stages = silent,
    store: Store | None = None,
    workers: int | None = None,
) -> SolvedGame:
    """Enumerate, expand and solve a game in memory, storing nothing.

    :param batch_size: positions per call to the game's batch API; the result does not
        depend on it.
    :param store: where the tablebases of :meth:`~tablebase.game.Game.dependencies` are
        read from; needed only by a game whose moves leave its tablebase.
    :param workers: processes that generate moves (default: one per core).
    :raises GameError: if the game breaks the protocol.
    :raises NotBuiltError: if a dependency is not in the store.
    """
    if game.splits:
        return _solve_sums(game, batch_size, stages)
    if game.scored:
        return _solve_scored(game, batch_size, stages)
    if game.buchi:
        return _solve_buchi(game, batch_size, stages)
    graph = build_graph(game, batch_size, stages, workers)
    with stages("lookup", len(graph.exits.src)) as advance:
        exits = exit_values(game, graph.exits, store)
        advance(len(graph.exits.src))
    with stages("solve", len(graph.keys)) as advance:
        solution = solve(graph.terminal, graph.moves, advance, exits)
    grundy = None
    if game.impartial:
        with stages("grundy", len(graph.keys)) as advance:
            grundy = grundy_values(len(graph.keys), graph.moves.preds, graph.moves.targets(), advance)
    return SolvedGame(graph.keys, solution, grundy)


@dataclass(frozen=True)
class MoveTable:
    """Every move of a game over its index space, for the passes that need each move's
    successors at once (sums, scores): ``keys`` int64[n] ascending; ``terminal`` int8[n];
    ``src`` int64[m]; ``parts`` int64[m, k] successor indices (-1 pads a sum of fewer
    parts); ``reward`` int64[m] (zeros unless the game is scored); ``moving`` bool[n],
    whether a position has a move."""

    keys: np.ndarray
    terminal: np.ndarray
    src: np.ndarray
    parts: np.ndarray
    reward: np.ndarray
    moving: np.ndarray


def move_table(game: Game, batch_size: int, stages: Stages) -> MoveTable:
    """Enumerate the index space and list every move of its non-terminal positions.

    :raises GameError: for a game without an index space, or a successor outside it.
    """
    if game.size is None:
        raise GameError(f"{game.name}: a game with sums, scores or a Büchi condition needs the index-space form (size)")
    size = int(game.size)
    with stages("enumerate", size) as advance:
        every = np.arange(size, dtype=np.int64)
        keys = every[np.asarray(game.legal(every), dtype=bool)]
        advance(size)
    terminal = np.empty(len(keys), dtype=np.int8)
    sources, parts, rewards = [np.zeros(0, np.int64)], [], [np.zeros(0, np.int64)]
    with stages("expand", len(keys)) as advance:
        for start in range(0, len(keys), batch_size):
            batch = keys[start : start + batch_size]
            terminal[start : start + len(batch)] = game.terminal_batch(batch)
            live = np.flatnonzero(terminal[start : start + len(batch)] == NOT_TERMINAL)
            src_index, part_keys = game.successors(batch[live])
            part_keys = np.asarray(part_keys, dtype=np.int64).reshape(len(src_index), -1)
            found = np.full(part_keys.shape, -1, dtype=np.int64)
            present = part_keys >= 0
            found[present] = index_of(keys, part_keys[present])
            sources.append(live[np.asarray(src_index, dtype=np.int64)] + start)
            parts.append(found)
            if game.scored:
                rewards.append(np.asarray(game.move_rewards(batch[live]), dtype=np.int64))
            advance(len(batch))
    src = np.concatenate(sources)
    reward = np.concatenate(rewards) if game.scored else np.zeros(len(src), dtype=np.int64)
    parts_of = np.concatenate(parts) if parts else np.zeros((0, 1), np.int64)
    return MoveTable(keys, terminal, src, parts_of, reward, np.bincount(src, minlength=len(keys)) > 0)


def _solve_sums(game: Game, batch_size: int, stages: Stages) -> SolvedGame:
    """A game whose moves leave sums (``game.splits``): the Grundy values of its single
    components, from which win (value above 0) or loss follows; no remoteness but 0 for
    a position without moves.

    :raises GameError: for a game without an index space, or a part outside it.
    """
    table = move_table(game, batch_size, stages)
    with stages("grundy", len(table.keys)) as advance:
        grundy = grundy_values(len(table.keys), table.src, table.parts, advance)
    outcome = np.select([grundy > 0, grundy == 0], [Outcome.WIN, Outcome.LOSS], Outcome.DRAW).astype(np.int8)
    return SolvedGame(table.keys, Solution(outcome, _ends(table)), grundy)


def _solve_scored(game: Game, batch_size: int, stages: Stages) -> SolvedGame:
    """A scored game: negamax values, with win, draw or loss as their sign; no
    remoteness but 0 for a position without moves (see :mod:`tablebase.solve.scored`).

    :raises GameError: for a game without an index space, or a cycle with rewards.
    """
    table = move_table(game, batch_size, stages)
    ended = ~table.moving
    scores = np.zeros(len(table.keys), dtype=np.int64)
    scores[ended] = game.terminal_scores(table.keys[ended])
    with stages("solve", len(table.keys)) as advance:
        value = scored_values(len(table.keys), table.src, table.parts[:, 0], table.reward, scores, advance)
    outcome = np.sign(value).astype(np.int8)
    return SolvedGame(table.keys, Solution(outcome, _ends(table)), value)


def _solve_buchi(game: Game, batch_size: int, stages: Stages) -> SolvedGame:
    """A Büchi game: a win for the side to move where it is the winner of the play
    (see :mod:`tablebase.solve.buchi`); no remoteness.

    :raises GameError: for a game without an index space, or a position without moves.
    """
    table = move_table(game, batch_size, stages)
    if np.any(table.terminal != NOT_TERMINAL) or not table.moving.all():
        raise GameError(f"{game.name}: every position of a Büchi game needs a move")
    with stages("solve", len(table.keys)) as advance:
        graph = predecessors_of(len(table.keys), table.src, table.parts[:, 0])
        owner_is_a = np.asarray(game.owners(table.keys), dtype=bool)
        a_wins = buchi_winners(graph, owner_is_a, np.asarray(game.accepting(table.keys), dtype=bool))
        advance(len(table.keys))
    outcome = np.where(a_wins == owner_is_a, Outcome.WIN, Outcome.LOSS).astype(np.int8)
    return SolvedGame(table.keys, Solution(outcome, np.full(len(table.keys), NO_REMOTENESS, dtype=np.int32)))


def _ends(table: MoveTable) -> np.ndarray:
    """int32[n] remoteness for the passes that give none: 0 for a position without moves."""
    return np.where(table.moving, NO_REMOTENESS, 0).astype(np.int32)


def exit_values(game: Game, moves: ExitMoves, store: Store | None) -> Exits:
    """The values of the successors of moves that leave the tablebase, read from the store."""
    outcome = np.zeros(len(moves.src), dtype=np.int8)
    remoteness = np.zeros(len(moves.src), dtype=np.int32)
    dependencies = game.dependencies()
    for table in np.unique(moves.table).tolist():
        dependency = dependencies[table]
        if store is None:
            raise NotBuiltError(f"{game.describe()} needs the stored tablebase of {dependency.describe()}")
        row = store.require(dependency.name, dependency.identity(), dependency.build_command())
        keys, stored_outcome, stored_remoteness = store.read_values(row)
        these = moves.table == table
        found = index_of(keys, moves.key[these])
        outcome[these], remoteness[these] = stored_outcome[found], stored_remoteness[found]
    return Exits(moves.src, outcome, remoteness)


def build(
    game: Game,
    store: Store,
    *,
    force: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
    stages: Stages = silent,
    workers: int | None = None,
    report: Callable[[BuildResult], None] = lambda _result: None,
) -> BuildResult:
    """Make sure the game's tablebase, and first those of its dependencies, are complete.

    A complete tablebase of the same game and parameters is reused unless ``force`` (which
    rebuilds only ``game`` itself, never its dependencies). Otherwise the game is solved,
    then written in batches, and marked complete last, so an interrupted build is never
    served.

    :param workers: processes that generate moves (default: one per core).
    :param report: called with the result of each tablebase, dependencies first.
    :raises GameError: if a game breaks the protocol.
    :raises StoreError: if the database fails.
    """
    finished: dict[tuple[str, str], BuildResult] = {}

    def ensure(target: Game, rebuild: bool) -> BuildResult:
        identity = (target.name, target.identity())
        if identity not in finished:
            for dependency in target.dependencies():
                ensure(dependency, rebuild=False)
            finished[identity] = _build_one(target, store, rebuild, batch_size, stages, workers)
            report(finished[identity])
        return finished[identity]

    return ensure(game, force)


def _build_one(
    game: Game, store: Store, force: bool, batch_size: int, stages: Stages, workers: int | None
) -> BuildResult:
    if not force:
        stored = store.find(game.name, game.identity())
        if stored is not None:
            return BuildResult(stored, reused=True)
    started = time.perf_counter()
    kind = value_kind(game)
    row = store.begin_build(game.name, game.identity(), game.describe(), kind)
    try:
        solved = solve_game(game, batch_size, stages, store, workers)
        outcome, remoteness = solved.solution.outcome, solved.solution.remoteness
        with stages("write", len(solved.keys)) as advance:
            known = solved.extra >= 0 if kind == GRUNDY else None
            store.write(row, solved.keys, outcome, remoteness, advance, extra=solved.extra, known=known)
        row = store.complete(row, outcome, remoteness, time.perf_counter() - started)
    except BaseException:
        with contextlib.suppress(Exception):  # the first error is the one to report
            store.abandon(row)
        raise
    return BuildResult(row, reused=False)


def value_kind(game: Game) -> str:
    """What the game's tablebase stores beside outcomes: ``grundy`` for an impartial game,
    ``score`` for a scored one, else ``wdl``."""
    return GRUNDY if game.impartial else SCORE if game.scored else WDL
