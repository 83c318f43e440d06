"""A store's reads of its tablebases, whole and probed, in each tablebase's own layout
(:mod:`~tablebase.store.layouts`): the :class:`Reading` part of
:class:`~tablebase.store.database.Store`.

Every value is as stored: where a tablebase leaves a remoteness out (the one-sided
formats of ``--dtm-sides``), a read gives it as
:data:`~tablebase.core.values.TO_DERIVE`, which the read layer values from the
position's moves (:mod:`tablebase.read.filled`); the store reads no game.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from tablebase.store.layout import Value, require_extra, storable
from tablebase.store.layouts import layout_of
from tablebase.store.packed import extra_values, split_codes
from tablebase.store.reader import Reader
from tablebase.store.schema import TablebaseRow


class Reading:
    """Reads of a store's tablebases through its :class:`~tablebase.store.reader.Reader`."""

    _reader: Reader

    def read_values(self, row: TablebaseRow) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A whole tablebase, sorted by key, as arrays (read straight from the DBAPI cursor).

        :returns: ``(keys, outcome, remoteness)``: int64[n], int8[n] and int32[n] (plies;
            -1 where null, :data:`~tablebase.core.values.TO_DERIVE` where the tablebase
            leaves it out).
        :raises StoreError: if the database fails or a stored chunk is damaged.
        """
        return layout_of(row).read_values(self._reader, row)

    def read_extra(self, row: TablebaseRow) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(keys, values, known)`` of a tablebase's Grundy values or scores: int64[n]
        ascending, int64[n], and bool[n] false where a position has none.

        :raises StoreError: if the tablebase stores none, the database fails or a chunk
            is damaged.
        """
        require_extra(row)
        keys, codes = layout_of(row).read_codes(self._reader, row, extra=True)
        return (keys, *extra_values(codes))

    def read_parts(self, row: TablebaseRow, extra: bool = False, known: bool = False) -> Iterator[tuple[np.ndarray, ...]]:
        """A whole tablebase in key order, a part at a time (a stored chunk or block of
        the packed or blocks layout, the whole of the row layout), so that no array of
        all its keys is made.

        :param extra: whether to read its Grundy values, scores or DTZ too.
        :param known: with ``extra``, whether to give bool[k] which positions have one.
        :returns: ``(keys, outcome, remoteness)`` per part as :meth:`read_values` gives
            them, and ``extra`` int64[k] values (0 where a position has none) with
            ``extra``, then ``known`` with ``known``.
        :raises StoreError: if the tablebase stores no extra values but they are asked
            for, the database fails, or a stored chunk is damaged.
        """
        if extra:
            require_extra(row)
        for keys, codes, *extras in layout_of(row).read_parts(self._reader, row, extra):
            beside = extra_values(extras[0])[: 2 if known else 1] if extra else ()
            yield (keys, *split_codes(codes), *beside)

    def probe(self, row: TablebaseRow, keys: Iterable[int]) -> dict[int, Value]:
        """Stored values of the keys that are in the tablebase (absent keys are left out).

        Probes share one held connection, each in a short read transaction.

        :raises StoreError: if the database fails or a stored chunk is damaged.
        """
        return layout_of(row).probe(self._reader, row, storable(keys))

    def probe_extra(self, row: TablebaseRow, keys: Iterable[int]) -> dict[int, int | None]:
        """The stored Grundy value or score (``None`` for none) of each key that is in
        the tablebase.

        :raises StoreError: if the tablebase stores none, the database fails or a chunk
            is damaged.
        """
        require_extra(row)
        return layout_of(row).probe_extra(self._reader, row, storable(keys))

    def probe_both(self, row: TablebaseRow, keys: Iterable[int]) -> dict[int, tuple[Value, int | None]]:
        """:meth:`probe` and :meth:`probe_extra` at once (in the blocks layout, one
        block lookup a key): each stored key's value and its Grundy value, score or DTZ.

        :raises StoreError: as :meth:`probe_extra`.
        """
        require_extra(row)
        return layout_of(row).probe_both(self._reader, row, storable(keys))

    def probe_array(self, row: TablebaseRow, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """The stored values of many keys at once, for scripts that value millions of
        positions: vectorized block by block in the blocks layout, key by key in the others.

        :param keys: int64[n] canonical keys, in any order, repeats allowed.
        :returns: ``(found, outcome, remoteness, extra)``: bool[n]; int8[n] and int32[n]
            (plies, -1 for none, :data:`~tablebase.core.values.TO_DERIVE` where the
            tablebase leaves it out), 0 and -1 where not found; int64[n] Grundy values,
            scores or DTZ (0 where there is none), or None for a tablebase that stores none.
        :raises StoreError: if the database fails or a stored block is damaged.
        """
        return layout_of(row).probe_array(self._reader, row, np.asarray(keys, dtype=np.int64))
