"""The partitions of ``build --cluster --partitions P`` as Dask actors make them on a
worker (:func:`tablebase.build.cluster.solve_by_partitions`): from the game, the database the
dependencies are read from, and the partition's number.

This module imports the store only where a partition reads dependencies or writes its
own key range (into PostgreSQL): a worker holding a partition of Connect Four keeps
SQLAlchemy and Alembic out of its memory, a noticeable part of a worker's memory before
its share of the positions (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import numpy as np

from tablebase.core.game import Game
from tablebase.solve.partitioned.discovered import DiscoveredPartition
from tablebase.solve.kinds import kind_of
from tablebase.solve.partitioned.surveyed import RangePartition


class StoredRangePartition(RangePartition):
    """A :class:`~tablebase.solve.partitioned.surveyed.RangePartition` that reads the values of
    its moves out of the tablebase from the database at ``location``."""

    def __init__(self, game: Game, location: str, bounds: np.ndarray, me: int, batch_size: int) -> None:
        from tablebase.store import open_store
        from tablebase.read.stored import stored_tables

        with open_store(location, create=False) as store:
            super().__init__(game, bounds, me, stored_tables(store), batch_size)

    def write(self, location: str, row: object, size: int) -> int:
        """Write its key range's values to ``row`` (a
        :class:`~tablebase.store.schema.TablebaseRow` being built) of the database at
        ``location``, ``size`` keys a transaction. :returns: how many positions."""
        from tablebase.store import open_store

        assert self.solved is not None
        with open_store(location, create=False) as store:
            self.solved.write(store, row, kind_of(self.game).known, size, lambda _count: None)
        return self.solved.positions


class StoredDiscoveredPartition(DiscoveredPartition):
    """A :class:`~tablebase.solve.partitioned.discovered.DiscoveredPartition` that reads the values
    of its moves out of the tablebase from the database at ``location``, in its survey
    (the search reads nothing)."""

    def __init__(self, game: Game, location: str, partitions: int, me: int, batch_size: int) -> None:
        self.location = location
        super().__init__(game, partitions, me, None, batch_size)

    def survey(self) -> int:
        if not self.game.dependencies():
            return super().survey()
        from tablebase.store import open_store
        from tablebase.read.stored import stored_tables

        with open_store(self.location, create=False) as store:
            self.read = stored_tables(store)
            return super().survey()
