"""How a tablebase's values lie in its tables: the :class:`Layout` of each
``format_version``, so that the store branches on it nowhere (one module a family of
layouts: :mod:`~tablebase.store.packed_layout`, :mod:`~tablebase.store.rows_layout`,
:mod:`~tablebase.store.blocks_layout`; :mod:`~tablebase.store.layouts` says which a
tablebase is in). A layout reads through a :class:`~tablebase.store.reader.Reader` and
writes what :class:`Writes` keeps; both are the store's."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import sqlalchemy as sa

from tablebase.core.errors import StoreError
from tablebase.store.block_writer import BlockWriter
from tablebase.store.packed import extra_value_of, split_codes, value_of
from tablebase.store.reader import Reader
from tablebase.store.schema import EXTRA_KINDS, TablebaseRow

Value = tuple[int, "int | None"]
"""A stored value: outcome (-1, 0, 1 for the side to move) and remoteness in plies (None
for none; :data:`~tablebase.core.values.TO_DERIVE` where the tablebase leaves it out)."""

Part = tuple[np.ndarray, ...]
"""``(keys, codes)`` or ``(keys, codes, extra codes)``, int64[k] each, in key order."""


class Writes:
    """What a store's writes keep from one call to the next (:meth:`Layout.records`).

    :param level: the codec's level of the blocks the store writes; None for its default.
    """

    def __init__(self, level: int | None) -> None:
        self.level = level
        self.block_writers: dict[int, BlockWriter] = {}
        """The writer of each tablebase being written in a blocks layout, by catalog row
        id, which holds the last span of its keys until the store's writes of it end."""


_VALUES_TABLES: weakref.WeakKeyDictionary[TablebaseRow, sa.Table] = weakref.WeakKeyDictionary()
""":meth:`Layout.values_table` of each catalog row object still in use (kept beside the
rows, not on them: a row travels pickled to a cluster's workers)."""


def once_per_row(made: weakref.WeakKeyDictionary[TablebaseRow, Any], row: TablebaseRow, make: Callable[[TablebaseRow], Any]) -> Any:
    """What ``make`` makes of a catalog row object, made once and kept in ``made``."""
    found = made.get(row)
    if found is None:
        found = made[row] = make(row)
    return found


def storable(keys: Iterable[int]) -> list[int]:
    """The distinct keys that can be stored (in ``[0, 2**63)``), ascending."""
    distinct = sorted(set(keys))
    if distinct and (distinct[0] < 0 or distinct[-1] >= 2**63):
        return [k for k in distinct if 0 <= k < 2**63]
    return distinct


def require_extra(row: TablebaseRow) -> None:
    """:raises StoreError: for a tablebase that stores no Grundy values, scores or DTZ."""
    if row.value_kind not in EXTRA_KINDS:
        raise StoreError(f"the {row.description} tablebase stores no Grundy values, scores or DTZ")


class Layout:
    """How a tablebase's values lie in its tables, one subclass a ``format_version``
    (:func:`~tablebase.store.layouts.layout_of`): what one batch of a build writes, and
    how the values are read whole and probed. This base reads and probes through the
    methods each layout has (:meth:`records`, :meth:`read_codes`, :meth:`read_parts` and
    :meth:`codes`); each value it gives is as stored (a remoteness the tablebase leaves
    out :data:`~tablebase.core.values.TO_DERIVE`)."""

    table: Callable[[str], sa.Table]
    """The values table of a tablebase by its name."""
    in_key_order = True
    """Whether a build writes its keys in ascending order, one call after another."""
    separate_extra = True
    """Whether extra values have a table of their own (else they lie beside the values)."""

    def values_table(self, row: TablebaseRow) -> sa.Table:
        """The table of a tablebase's values, made once for each catalog row object (a
        warm probe asks for it each time, and reading the row's mapped columns would be a
        noticeable part of the probe, benchmarks/RESULTS.md; its format, name and value
        kind never change)."""
        return once_per_row(_VALUES_TABLES, row, self.make_table)

    def make_table(self, row: TablebaseRow) -> sa.Table:
        """:meth:`values_table`, made."""
        return self.table(row.table_name)

    def records(
        self, writes: Writes, row: TablebaseRow, keys: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray, extra: np.ndarray | None
    ) -> Iterable[tuple[object, ...]]:
        """The rows of :meth:`values_table` for one batch of a build's values (int64[k]
        ascending keys, int8[k] outcomes, int32[k] remoteness), with int64[k] extra
        codes where they lie beside the values."""
        raise NotImplementedError

    def read_values(self, reader: Reader, row: TablebaseRow) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`~tablebase.store.reading.Reading.read_values`."""
        keys, codes = self.read_codes(reader, row, extra=False)
        return (keys, *split_codes(codes))

    def read_codes(self, reader: Reader, row: TablebaseRow, extra: bool) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(key, code)`` of a tablebase, in key order: of its values, or with
        ``extra`` of its Grundy values, scores or DTZ."""
        raise NotImplementedError

    def read_parts(self, reader: Reader, row: TablebaseRow, extra: bool) -> Iterator[Part]:
        """A tablebase's codes a stored part at a time, with its extra codes where ``extra``."""
        raise NotImplementedError

    def probe(self, reader: Reader, row: TablebaseRow, wanted: list[int]) -> dict[int, Value]:
        """:meth:`~tablebase.store.reading.Reading.probe` of distinct storable keys."""
        return {key: value_of(code) for key, code in self.codes(reader, row, wanted, extra=False).items()}

    def probe_extra(self, reader: Reader, row: TablebaseRow, wanted: list[int]) -> dict[int, int | None]:
        """:meth:`~tablebase.store.reading.Reading.probe_extra` of distinct storable keys."""
        return {key: extra_value_of(code) for key, code in self.codes(reader, row, wanted, extra=True).items()}

    def codes(self, reader: Reader, row: TablebaseRow, wanted: list[int], extra: bool) -> dict[int, int]:
        """The stored value code, or with ``extra`` extra code, of each wanted key there."""
        raise NotImplementedError

    def probe_both(self, reader: Reader, row: TablebaseRow, wanted: list[int]) -> dict[int, tuple[Value, int | None]]:
        """:meth:`~tablebase.store.reading.Reading.probe_both` of distinct storable keys."""
        extra = self.probe_extra(reader, row, wanted)
        return {key: (value, extra.get(key)) for key, value in self.probe(reader, row, wanted).items()}

    def probe_array(self, reader: Reader, row: TablebaseRow, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """:meth:`~tablebase.store.reading.Reading.probe_array`, key by key."""
        with_extra = row.value_kind in EXTRA_KINDS
        listed = keys.tolist()
        wanted = storable(listed)
        stored = self.probe(reader, row, wanted)
        beside = self.probe_extra(reader, row, wanted) if with_extra else {}
        values = [stored.get(key, (0, None)) for key in listed]
        return (
            np.array([key in stored for key in listed], dtype=bool),
            np.array([outcome for outcome, _remoteness in values], dtype=np.int8),
            np.array([-1 if plies is None else plies for _outcome, plies in values], dtype=np.int32),
            np.array([beside.get(key) or 0 for key in listed], dtype=np.int64) if with_extra else None,
        )

