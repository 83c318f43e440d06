"""Builds on a Dask cluster (``dask.distributed``): the move generation of one tablebase
on every worker, independent tablebases side by side, and the partitioned retrograde
pass of one tablebase.

:func:`build_on_cluster` hands every tablebase the requested one depends on (and a
collection's members but the last), as soon as its own dependencies are complete, to a
free worker, which builds it into the shared
database (a PostgreSQL URL, or an SQLite file that every worker can reach) with the
ordinary :func:`~tablebase.build.builder.build`. The catalog's build reservation keeps two
workers from building the same tablebase, and a build whose worker dies is never served:
Dask runs the task again on another worker, which takes over the dead builder's
reservation. The requested tablebase (a collection's last member) is built last in this
process, which sends its
batches of keys to the workers (:func:`cluster_workers`, through
:class:`~tablebase.solve.workers.Workers`) and solves and writes what comes back; a
batch whose worker dies is run again by Dask on another one.

:func:`solve_by_partitions` (``build --cluster --partitions P``) solves one tablebase with
its positions split into P partitions, each a Dask actor on a worker
(:mod:`tablebase.solve.partitioned`): key ranges of an index space, or for a game found
by forward search the keys a hash gives each one, searched by the partitions together.
Every partition surveys its own keys and generates its own positions' un-moves, so the
driver (this process) holds no move and no state: it runs the rounds of each level,
calling every actor, collecting the updates each one sends and handing each actor
those addressed to it, for each pass of the tablebase's value kind; then the workers
write their own key ranges (PostgreSQL), or the driver reads the values back a range
at a time as the store writes them (SQLite, and the keys of a forward search), both
through :class:`SolvedPartitions`. :func:`solve_on_cluster` does the same over a
move graph built here, each actor given the predecessor lists of its own positions.

Dask is an optional dependency: ``pip install -e ".[dask]"``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from pathlib import Path

import numpy as np

from tablebase.build.builder import BuildResult, build
from tablebase.core.errors import ClusterError, UsageError
from tablebase.core.game import Game
from tablebase.util.progress import Advance, Stages, silent
from tablebase.build.actors import StoredDiscoveredPartition, StoredRangePartition
from tablebase.solve.budget import available_memory, check_size
from tablebase.solve.partitioned.in_process import partition_arguments
from tablebase.solve.partitioned.owners import partition_bounds
from tablebase.solve.partitioned.partition import Partition
from tablebase.solve.partitioned.rounds import Exchange, Traffic, discover, drive, solve_passes
from tablebase.solve.partitioned.surveyed import check_partitions
from tablebase.solve.predecessors import Predecessors
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.retrograde.state import Solution
from tablebase.solve.solved import Batch, Known, SolvedIndex, write_batches
from tablebase.solve.workers import RemoteWorkers
from tablebase.store import Storing, open_store
from tablebase.store.blocks import SPAN_KEYS
from tablebase.core.tally import Tally


def connect(address: str):  # type: ignore[no-untyped-def]
    """A ``distributed.Client`` of the scheduler at ``address`` (e.g. ``tcp://host:8786``).
    Tornado's reports of exceptions in event-loop callbacks (logger ``tornado.application``)
    and the client's warnings (logger ``distributed.client``) are silenced in this process.

    :raises UsageError: if Dask is not installed or the scheduler cannot be reached.
    """
    try:
        from distributed import Client
    except ImportError:
        raise UsageError('clusters need Dask: pip install "tablebase[dask]"') from None
    # Tornado logs the gathers and cancellations that an interrupted build leaves behind
    # in the client's event loop, tracebacks and all, after the CLI's one line.
    logging.getLogger("tornado.application").setLevel(logging.CRITICAL)
    # A gather that an interrupt cut short warns "Couldn't gather N keys, rescheduling"
    # (the client reschedules them itself): noise beside the CLI's one line.
    logging.getLogger("distributed.client").setLevel(logging.ERROR)
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {error}") from None


def cluster_workers(client) -> RemoteWorkers:  # type: ignore[no-untyped-def]
    """The workers of ``client``'s cluster as move generators of one build
    (:class:`~tablebase.solve.workers.RemoteWorkers`): a batch of keys is one task, which
    Dask runs again elsewhere if its worker dies; as many slots as the cluster has
    threads now."""
    return RemoteWorkers(_DaskExecutor(client), slots=max(1, sum(client.nthreads().values())))


class _DaskExecutor(Executor):
    """``client``'s cluster as an executor whose futures are Dask's own (``result`` and
    ``cancel`` are all that :class:`~tablebase.solve.workers.Workers` asks of them).

    Not ``Client.get_executor()``: its ``concurrent.futures`` future never resolves when a
    finished task's result is lost while it is being gathered (its worker killed) and
    the task then fails where it runs again (its ``_cascade_future`` dies of the
    ``KilledWorker``), so a build waited forever instead of failing.
    """

    def __init__(self, client) -> None:  # type: ignore[no-untyped-def]
        self.client = client

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def,override]
        """``fn(*args, **kwargs)`` as one task on the cluster, never merged with an equal one."""
        return self.client.submit(fn, *args, pure=False, **kwargs)


def _build_here(game: Game, location: str, storing: Storing, force: bool, force_size: bool) -> BuildResult:
    """A cluster task: build one tablebase (its dependencies are complete) in this worker,
    or reuse it where it is stored and not ``force``."""
    with open_store(location, storing=storing) as store:
        return build(game, store, force=force, force_size=force_size, workers=1)


def build_on_cluster(  # type: ignore[no-untyped-def]
    client,
    game: Game,
    location: str,
    *,
    storing: Storing = Storing(),
    force: bool = False,
    force_size: bool = False,
    stages: Stages = silent,
    workers: RemoteWorkers | None = None,
    report: Callable[[BuildResult], None] = lambda _result: None,
    partitions: int | None = None,
    notice: Callable[[str], None] = lambda _line: None,
) -> BuildResult:
    """Build a tablebase and its dependencies on the workers of ``client``'s cluster; for
    a collection (chess ``all3``), its members and theirs.

    Every tablebase but the last goes to a free worker as soon as those it depends on are
    complete, and that worker builds it whole: independent ones are built side by side.
    The last, ``game`` itself (a collection's last member), is built by this process, its
    moves (successors, un-moves, surveys) generated batch by batch on all the cluster's
    workers (:func:`cluster_workers`), and written from here.

    :param location: the database every worker writes to (an SQLAlchemy URL, or an
        SQLite path that every worker can reach; a relative one is made absolute).
    :param storing: the storage layout, codec and level of what is built.
    :param force: rebuild ``game`` itself (a collection's members) even if it is stored
        (never their dependencies).
    :param force_size: build even what is estimated too big for a machine's memory.
    :param stages: progress of the last tablebase; its bars count the batches done on
        every worker.
    :param workers: the cluster's workers as move generators (default
        :func:`cluster_workers`); its counters give the bytes exchanged.
    :param report: called in this process with each tablebase's result, as it completes.
    :param partitions: solve ``game``'s own tablebase by :func:`solve_by_partitions`
        over this many key ranges, each held by a worker, instead of in this process.
    :param notice: called with a line when the partitioned pass starts again.
    :returns: the result of ``game``'s tablebase (a collection's last member's).
    :raises GameError, StoreError, TooBigError: as :func:`~tablebase.build.builder.build`, from a
        worker or from here.
    :raises ClusterError: if a task killed every worker that ran it (Dask's
        ``distributed.scheduler.allowed-failures`` plus one).
    :raises UsageError: if ``partitions`` is given for a game the partitioned pass cannot
        solve (:func:`~tablebase.solve.partitioned.surveyed.partitions_unsupported`).
    """
    from distributed import KilledWorker

    if "://" not in location:
        location = str(Path(location).resolve())
    *first, last = game.members()
    if partitions is not None:
        check_partitions(game)

    def partitioned(table: Game, bars: Stages) -> SolvedPartitions:
        return solve_by_partitions(client, table, location, int(partitions), bars, notice=notice, force_size=force_size)[0]

    try:
        with open_store(location, storing=storing) as store:
            others = [*first, *last.dependencies()]
            for result in _side_by_side(client, others, first if force else [], location, storing, force_size):
                report(result)
            remote = workers or cluster_workers(client)
            solver = None if partitions is None else partitioned
            result = build(last, store, force=force, force_size=force_size, stages=stages, workers=remote, solver=solver)
    except KilledWorker as error:
        raise ClusterError(
            f"task {error.task} killed every worker that ran it ({error.allowed_failures + 1}, the last "
            f"{error.last_worker.address}); see the workers' logs"
        ) from None
    report(result)
    return result


def _side_by_side(  # type: ignore[no-untyped-def]
    client, targets: list[Game], rebuild: list[Game], location: str, storing: Storing, force_size: bool
) -> Iterator[BuildResult]:
    """Build ``targets`` and every tablebase they depend on, directly or not, each on a
    free worker as soon as its own dependencies are complete; yields their results as
    they come. Those of ``rebuild`` are rebuilt even if stored. Tasks still running when
    this stops early are cancelled."""
    from distributed import wait

    needs: dict[tuple[str, str], list[tuple[str, str]]] = {}
    games: dict[tuple[str, str], Game] = {}

    def collect(target: Game) -> tuple[str, str]:
        identity = (target.name, target.identity())
        if identity not in games:
            games[identity] = target
            needs[identity] = [collect(dependency) for dependency in target.dependencies()]
        return identity

    for target in targets:
        collect(target)
    forced = {(target.name, target.identity()) for target in rebuild}
    done: set[tuple[str, str]] = set()
    running: dict[object, tuple[str, str]] = {}
    try:
        while len(done) < len(games):
            for identity in [i for i in games if i not in done and i not in running.values()]:
                if all(need in done for need in needs[identity]):
                    task = client.submit(
                        _build_here, games[identity], location, storing, identity in forced, force_size, pure=False
                    )
                    running[task] = identity
            for task in wait(list(running), return_when="FIRST_COMPLETED").done:
                done.add(running.pop(task))
                yield task.result()
    finally:
        client.cancel(list(running))


def solve_on_cluster(
    client, terminal: np.ndarray, graph: Predecessors, partitions: int, exits: Exits | None = None  # type: ignore[no-untyped-def]
) -> tuple[Solution, Traffic]:
    """:func:`~tablebase.solve.partitioned.in_process.solve_partitioned` with each partition held by
    a worker of ``client``'s cluster (a Dask actor).

    :param client: a ``distributed.Client``.
    :param graph: the moves as predecessor lists; each actor receives its own range.
    :returns: the same :class:`Solution` as the single-process pass, and the traffic
        between partitions.
    """
    arguments = partition_arguments(terminal, graph, partitions, exits, sliced=True)
    futures = [client.submit(Partition, *args, actor=True, pure=False) for args in arguments]
    try:
        actors, exchange = _actors(futures)
        traffic = Traffic()
        drive(exchange, partitions, traffic)
        values = [call.result() for call in [actor.values() for actor in actors]]
    finally:
        client.cancel(futures)
    outcome = np.concatenate([part[0] for part in values])
    return Solution(outcome, np.concatenate([part[1] for part in values]).astype(np.int32)), traffic


def _actors(futures: list, stages: Stages = silent) -> tuple[list, Exchange]:  # type: ignore[no-untyped-def]
    """The actors ``futures`` make (a bar counts them as each is made), and the
    :data:`~tablebase.solve.partitioned.rounds.Exchange` that calls a method on all of them.

    :raises OSError: if a partition's worker is lost (as the exchange does).
    """
    with stages("partitions", len(futures)) as advance:
        actors = []
        for future in futures:
            with _lost_actor_as_os_error():
                actors.append(future.result())
            advance(1)

    def exchange(method: str, per_partition: Sequence[object]) -> list[object]:
        with _lost_actor_as_os_error():
            calls = [getattr(actor, method)(*args) for actor, args in zip(actors, per_partition)]
            return [call.result() for call in calls]

    return actors, exchange


@contextlib.contextmanager
def _lost_actor_as_os_error() -> Iterator[None]:
    """Raise the ``RuntimeError`` distributed gives for an actor whose worker died (from
    its future, or from a method looked up on it once the future failed) as the
    ``OSError`` it gives for a call that cannot reach the worker, so that both restart
    the pass."""
    try:
        yield
    except RuntimeError as error:
        if "Worker holding Actor was lost" not in str(error):
            raise
        raise OSError(str(error)) from None


def _solve_surveyed(futures: list, total: int | None, stages: Stages = silent) -> tuple[list, Traffic]:  # type: ignore[no-untyped-def]
    """Every pass over the :class:`~tablebase.solve.partitioned.surveyed.SurveyedPartition`
    partitions ``futures`` make as actors (:func:`~tablebase.solve.partitioned.rounds.solve_passes`),
    over ``total`` positions in all, or, for ``None``, over the positions their forward
    search finds first (:class:`~tablebase.solve.partitioned.discovered.DiscoveredPartition`): the
    actors, holding the values, and the traffic between them. Bars: the partitions as
    each is made, the keys the search finds, then the positions each pass resolves
    (every position once).

    :raises OSError: if a partition's worker is lost.
    """
    actors, exchange = _actors(futures, stages)
    traffic = Traffic()
    if total is None:
        with stages("discover", None) as advance:
            total = discover(exchange, len(actors), traffic, advance)
    solve_passes(exchange, len(actors), traffic, stages, total)
    return actors, traffic


class SolvedPartitions:
    """The values of a partitioned pass as the store writes them (a
    :class:`~tablebase.solve.solved.Solved`: :attr:`positions`, :meth:`batches`,
    :meth:`tally`, :meth:`write`), still held by the partitions' actors: written by the
    actors themselves, or fetched a range at a time in key order, the next range asked
    for while one is written. The actors are released once the last range is read or
    written, or the reading stops.

    :param futures: the actors' futures, in partition order.
    :param bounds: int64[P + 1] the partitions' key ranges over an index space, or
        ``None`` for partitions of keys found by forward search, whose ranges are merged.
    :param location: the database the actors write to (a URL with its password).
    """

    def __init__(self, client, futures: list, actors: list, bounds: np.ndarray | None, location: str) -> None:  # type: ignore[no-untyped-def]
        self.client, self.futures, self.actors, self.bounds, self.location = client, futures, actors, bounds, location
        with _lost_actor_as_os_error():
            tallies = [call.result() for call in [actor.tally() for actor in actors]]
        self._tally = sum(tallies[1:], tallies[0])

    @property
    def positions(self) -> int:
        """How many keys are positions."""
        return self._tally.positions

    def tally(self) -> Tally:
        """The counts the catalog records, summed over the partitions."""
        return self._tally

    def write(self, store, row, known: Known, size: int, advance: Advance) -> None:  # type: ignore[no-untyped-def]
        """:meth:`~tablebase.solve.solved.Solved.write`: into a database that takes
        writes from several processes at once (PostgreSQL), each partition of a key
        range writes its own range from its worker, all at once (the bounds are whole
        blocks of the store); else this process writes them in order, as they are read
        back (:meth:`batches`). The actors are released after. A worker lost while the
        workers write fails the build (the values it held are gone; no restart), once
        every other worker has stopped writing."""
        if self.bounds is None or not store.concurrent_writes:
            write_batches(store, row, known, self.batches(size), advance)
            return
        try:
            calls = [actor.write(self.location, row, size) for actor in self.actors]
            failed: BaseException | None = None
            for call in calls:  # every writer done before the build abandons the row
                try:
                    advance(call.result())
                except BaseException as error:  # the first error is the one to report
                    failed = failed or error
            if failed is not None:
                raise failed
        finally:
            self.client.cancel(self.futures)

    def batches(self, size: int) -> Iterator[Batch]:
        """The positions ``size`` keys at a time (about, merged), in key order."""
        try:
            yield from self._ranges(size) if self.bounds is not None else self._merged(size)
        finally:
            self.client.cancel(self.futures)

    def _ranges(self, size: int) -> Iterator[Batch]:
        """Each partition's key range in turn, ``size`` keys a range."""
        asked = None
        for p, actor in enumerate(self.actors):
            lo, hi = int(self.bounds[p]), int(self.bounds[p + 1])
            for start in range(lo, hi, size):
                call = actor.values(start - lo, min(start + size, hi) - lo)
                if asked is not None:
                    yield from self._read(*asked, size)
                asked = (start, call)
        if asked is not None:
            yield from self._read(*asked, size)

    @staticmethod
    def _read(first: int, call, size: int) -> Iterator[Batch]:  # type: ignore[no-untyped-def]
        """The positions of a range of keys from ``first``, once ``call`` (an actor's
        :meth:`~tablebase.solve.partitioned.surveyed.SurveyedPartition.values`) answers."""
        outcome, remoteness, *extra = call.result()
        return SolvedIndex(outcome, np.array(remoteness), *extra, first=first).batches(size)

    def _merged(self, size: int) -> Iterator[Batch]:
        """The partitions' positions merged by key: each partition's next ``size``
        positions asked for ahead, and every position up to the smallest last key among
        them given at once."""
        sizes = [call.result() for call in [actor.size() for actor in self.actors]]
        ahead = [self.actors[p].stored(0, size) if sizes[p] else None for p in range(len(self.actors))]
        heads: list[tuple[np.ndarray, ...] | None] = [None] * len(self.actors)
        taken = [0] * len(self.actors)
        while True:
            for p, call in enumerate(ahead):
                if heads[p] is None and call is not None:
                    heads[p], taken[p] = call.result(), taken[p] + size
                    ahead[p] = self.actors[p].stored(taken[p], taken[p] + size) if taken[p] < sizes[p] else None
            held = [head for head in heads if head is not None]
            if not held:
                return
            upto = min(int(head[0][-1]) for head in held)
            parts = []
            for p, head in enumerate(heads):
                if head is not None:
                    cut = int(np.searchsorted(head[0], upto, side="right"))
                    parts.append(tuple(column[:cut] for column in head))
                    heads[p] = tuple(column[cut:] for column in head) if cut < len(head[0]) else None
            keys, outcome, remoteness, *extra = (np.concatenate(column) for column in zip(*parts))
            order = np.argsort(keys, kind="stable")
            for start in range(0, len(order), size):
                these = order[start : start + size]
                yield keys[these], outcome[these], remoteness[these].astype(np.int32), extra[0][these].astype(np.int32) if extra else None


RESTARTS = 3
"""How many times :func:`solve_by_partitions` starts its pass again after losing a worker
that held a partition."""


def solve_by_partitions(  # type: ignore[no-untyped-def]
    client,
    game: Game,
    location: str,
    partitions: int,
    stages: Stages = silent,
    batch_size: int = 1 << 16,
    notice: Callable[[str], None] = lambda _line: None,
    force_size: bool = False,
) -> tuple[SolvedPartitions, Traffic]:
    """Solve ``game`` over ``partitions`` key ranges of its index space, each a
    :class:`~tablebase.solve.partitioned.surveyed.RangePartition` held by a worker of
    ``client``'s cluster (a Dask actor) that surveys its own keys and un-moves its own
    positions; this process routes the updates that cross partitions, round by round.
    A worker lost with a partition loses that partition's state: the pass starts again
    from the start on the workers left (at most :data:`RESTARTS` times), after one line
    to ``notice``.

    :param location: the database the dependencies are read from, by every worker.
    :param force_size: solve even where a partition's estimated memory exceeds what the
        cluster's smallest worker has available
        (:func:`~tablebase.solve.budget.partition_estimate`).
    :returns: the values, still held by the workers (:class:`SolvedPartitions`, written
        by them or read by the store a range at a time), and the traffic between
        partitions.
    :raises NotBuiltError: if a dependency is not stored.
    :raises TooBigError: if a partition cannot fit its worker's memory.
    :raises ClusterError: if workers holding partitions are lost more than
        :data:`RESTARTS` times.
    """
    workers_have = [have for have in client.run(available_memory).values() if have is not None]
    check_size(game, force_size, min(workers_have, default=None), partitions)
    bounds = None if game.size is None else partition_bounds(int(game.size), partitions, SPAN_KEYS)
    restarts = 0
    while True:
        if bounds is None:
            made = [StoredDiscoveredPartition, game, location, partitions]
        else:
            made = [StoredRangePartition, game, location, bounds]
        futures = [client.submit(*made, p, batch_size, actor=True, pure=False) for p in range(partitions)]
        try:
            actors, traffic = _solve_surveyed(futures, None if bounds is None else int(game.size), stages)
            return SolvedPartitions(client, futures, actors, bounds, location), traffic
        except OSError as error:  # distributed: "Unable to contact Actor's worker"
            client.cancel(futures)
            restarts += 1
            if restarts > RESTARTS:
                raise ClusterError(f"lost a worker holding a partition {restarts} times ({error})") from None
            notice(f"lost a worker holding a partition ({error}); the partitioned pass starts again")
        except BaseException:
            client.cancel(futures)
            raise
