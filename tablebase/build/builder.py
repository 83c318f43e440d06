"""Building a tablebase: the orchestration of dependencies first, solving
(:mod:`tablebase.solve.kinds`), writing, and reuse of the one already stored."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from tablebase.util.compile_cache import CompileTimer
from tablebase.core.game import Game
from tablebase.build.plan import PlannedTable, build_plan
from tablebase.util.progress import Stages, silent
from tablebase.solve.budget import check_size, out_of_memory
from tablebase.solve.solved import Solved, SolvedGame, SolvedIndex
from tablebase.solve.kinds import kind_of, solve_game as solve_by_mode
from tablebase.solve.workers import WorkersChoice
from tablebase.store import Store, TablebaseRow
from tablebase.store.writing import WRITE_BATCH
from tablebase.read.stored import key_shape, stored_tables


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build` did: ``reused`` is true when the stored tablebase was kept."""

    row: TablebaseRow
    reused: bool


Solver = Callable[[Game, Stages], Solved]
"""Solves a game in place of :func:`solve_in_memory`, with its progress bars."""


def solve_in_memory(
    game: Game,
    batch_size: int | None = None,
    stages: Stages = silent,
    store: Store | None = None,
    workers: WorkersChoice = None,
) -> SolvedGame | SolvedIndex:
    """Enumerate, expand and solve a game in memory, storing nothing
    (:func:`tablebase.solve.kinds.solve_game`, reading dependencies from ``store``).

    :param store: where the tablebases of :meth:`~tablebase.core.game.Game.dependencies` are
        read from; needed only by a game whose moves leave its tablebase.
    :raises GameError: if the game breaks the protocol.
    :raises NotBuiltError: if a dependency is not in the store.
    """
    return solve_by_mode(game, batch_size, stages, None if store is None else stored_tables(store), workers)


def build(
    game: Game,
    store: Store,
    *,
    force: bool = False,
    force_size: bool = False,
    batch_size: int | None = None,
    stages: Stages = silent,
    workers: WorkersChoice = None,
    report: Callable[[BuildResult], None] = lambda _result: None,
    solver: Solver | None = None,
) -> BuildResult:
    """Make sure the game's tablebase, and first those of its dependencies, are complete:
    :func:`carry_out` the game's :func:`~tablebase.build.plan.build_plan`. For a collection
    (chess ``all3``), the tablebases of its members. A complete tablebase of the same
    game, version and parameters is reused unless ``force``.

    :param force: rebuild ``game`` itself (a collection's members) even where it is
        stored, never their other dependencies, taking a reservation over from another
        process that is building it.
    :returns: as :func:`carry_out`, whose other parameters these are.
    :raises GameError, ParameterError, TooBigError, StoreError: as :func:`carry_out`.
    """
    plan = build_plan(game, store, force)
    return carry_out(
        plan, store, force_size=force_size, batch_size=batch_size, stages=stages, workers=workers, report=report, solver=solver
    )


def carry_out(
    plan: list[PlannedTable],
    store: Store,
    *,
    force_size: bool = False,
    batch_size: int | None = None,
    stages: Stages = silent,
    workers: WorkersChoice = None,
    report: Callable[[BuildResult], None] = lambda _result: None,
    solver: Solver | None = None,
) -> BuildResult:
    """Build the tablebases of a plan (:func:`~tablebase.build.plan.build_plan`, which the
    CLI prints first) in its order, dependencies first: each one the plan reuses is
    reported with the row the plan found, without looking it up again; the others are
    built (``rebuild`` ones taking a reservation over from another process that is
    building them). A tablebase is solved, then written in batches, and marked complete
    last, so an interrupted build is never served. Before a tablebase is begun, its
    memory is estimated from its parameters (:func:`tablebase.solve.budget.check_size`)
    and a build that cannot fit is refused.

    :param force_size: build even when the estimated memory exceeds what is available.
    :param workers: processes that generate moves (default: one per core), or
        :class:`~tablebase.solve.workers.RemoteWorkers` (a cluster's).
    :param report: called with the result of each tablebase, dependencies first.
    :param solver: solves the plan's last tablebase in place of :func:`solve_in_memory` (the
        partitioned pass on a cluster, :func:`tablebase.build.cluster.solve_by_partitions`,
        which checks each worker's share of the memory in place of the whole build's).
    :returns: the result of the last tablebase of the plan: the game's own, or a
        collection's last member's.
    :raises GameError: if a game breaks the protocol.
    :raises ParameterError: if the game's keys do not fit below 2**63.
    :raises TooBigError: if a build is estimated too big for the memory available (and
        not ``force_size``), or runs out of memory; nothing of it is stored.
    :raises BuildInProgressError: if another live process is building one it does not
        ``rebuild``.
    :raises StoreError: if the database fails.
    """
    result = None
    for number, planned in enumerate(plan, 1):
        last = solver if number == len(plan) else None
        result = _build_one(planned, store, force_size, batch_size, stages, workers, last)
        report(result)
    return result


def _build_one(
    planned: PlannedTable,
    store: Store,
    force_size: bool,
    batch_size: int | None,
    stages: Stages,
    workers: WorkersChoice,
    solver: Solver | None,
) -> BuildResult:
    if planned.reused and planned.row is not None:
        return BuildResult(planned.row, reused=True)
    game, force = planned.game, planned.rebuild
    if solver is None:  # a solver checks its own share of the memory (each partition's, against its worker)
        check_size(game, force_size)
    started = time.perf_counter()
    kind = kind_of(game)
    row = store.begin_build(
        game.name, game.identity(), game.describe(), kind.stored, version=game.version, take_over=force, shape=key_shape(game)
    )
    try:
        with CompileTimer() as compiling:
            solved = solver(game, stages) if solver else solve_in_memory(game, batch_size, stages, store, workers)
            with stages("write", solved.positions) as advance:
                solved.write(store, row, kind.known, WRITE_BATCH, advance)
        row = store.complete_tallied(row, solved.tally(), time.perf_counter() - started - compiling.seconds)
    except BaseException as error:
        with contextlib.suppress(Exception):  # the first error is the one to report
            store.abandon(row)
        if isinstance(error, MemoryError):
            raise out_of_memory(game) from None
        raise
    return BuildResult(row, reused=False)
