"""Running the partitioned retrograde pass on a Dask cluster (``dask.distributed``).

Each partition of :mod:`tablebase.solve.partitioned` lives on a cluster worker as a Dask
actor, holding its positions' state and the predecessor lists of its own positions. The
driver (this process) runs the rounds of each level: it calls every actor, collects the
updates each one sends, and hands each actor those addressed to it, so the only traffic
is the updates that cross partitions (through the driver) and a few integers per round.

Dask is an optional dependency: ``pip install -e ".[dask]"``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tablebase.errors import UsageError
from tablebase.solve.partitioned import Partition, Traffic, drive, partition_arguments
from tablebase.solve.retrograde import Exits, MoveSource, Solution


def connect(address: str):  # type: ignore[no-untyped-def]
    """A ``distributed.Client`` of the scheduler at ``address`` (e.g. ``tcp://host:8786``).

    :raises UsageError: if Dask is not installed or the scheduler cannot be reached.
    """
    try:
        from distributed import Client
    except ImportError:
        raise UsageError('clusters need Dask: pip install "tablebase[dask]"') from None
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {error}") from None


def solve_on_cluster(
    client, terminal: np.ndarray, graph: MoveSource, partitions: int, exits: Exits | None = None  # type: ignore[no-untyped-def]
) -> tuple[Solution, Traffic]:
    """:func:`~tablebase.solve.partitioned.solve_partitioned` with each partition held by
    a worker of ``client``'s cluster (a Dask actor).

    :param client: a ``distributed.Client``.
    :param graph: the moves as predecessor lists; each actor receives its own range.
    :returns: the same :class:`Solution` as the single-process pass, and the traffic
        between partitions.
    """
    arguments = partition_arguments(terminal, graph, partitions, exits, sliced=True)
    futures = [client.submit(Partition, *args, actor=True, pure=False) for args in arguments]
    actors = [future.result() for future in futures]

    def exchange(method: str, per_partition: Sequence[object]) -> list[object]:
        calls = [getattr(actor, method)(*args) for actor, args in zip(actors, per_partition)]
        return [call.result() for call in calls]

    traffic = Traffic()
    try:
        drive(exchange, partitions, traffic)
        values = exchange("values", [()] * partitions)
    finally:
        client.cancel(futures)
    outcome = np.concatenate([v[0] for v in values]) if values else np.zeros(0, np.int8)
    remoteness = np.concatenate([v[1] for v in values]) if values else np.zeros(0, np.int32)
    return Solution(outcome, remoteness), traffic
