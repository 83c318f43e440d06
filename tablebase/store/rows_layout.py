"""The rows layout (:data:`~tablebase.store.schema.ROWS`): one table row a position
(:func:`~tablebase.store.schema.positions_table`), its Grundy values, scores or DTZ
packed as in the packed layout."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import sqlalchemy as sa

from tablebase.store.layout import Part, Value, Writes
from tablebase.store.packed import value_codes
from tablebase.store.packed_layout import PackedLayout
from tablebase.store.reader import Reader
from tablebase.store.schema import TablebaseRow, positions_table

PROBE_BATCH = 500
"""Keys a point probe of the rows layout asks for in one query."""


class RowsLayout(PackedLayout):
    """One table row a position (:func:`~tablebase.store.schema.positions_table`): key,
    outcome and remoteness, in any order; the extra values packed as in the base."""

    table = staticmethod(positions_table)
    in_key_order = False

    def records(
        self, writes: Writes, row: TablebaseRow, keys: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray, extra: np.ndarray | None
    ) -> Iterable[tuple[object, ...]]:
        return zip(keys.tolist(), outcome.tolist(), [None if r < 0 else r for r in remoteness.tolist()])

    def read_values(self, reader: Reader, row: TablebaseRow) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        table = self.values_table(row)
        no_remoteness = sa.func.coalesce(table.c.remoteness, sa.literal_column("-1"))
        query = sa.select(table.c.key, table.c.outcome, no_remoteness).order_by(table.c.key)
        layout = np.dtype([("key", np.int64), ("outcome", np.int8), ("remoteness", np.int32)])
        with reader.cursor(row, query) as cursor:
            values = np.fromiter(map(tuple, cursor), dtype=layout)
        return values["key"].copy(), values["outcome"].copy(), values["remoteness"].copy()

    def read_parts(self, reader: Reader, row: TablebaseRow, extra: bool) -> Iterator[Part]:
        """The whole tablebase as one part."""
        keys, outcome, remoteness = self.read_values(reader, row)
        codes = value_codes(outcome, remoteness)
        yield (keys, codes, self._extra_codes(reader, row, keys)) if extra else (keys, codes)

    def _extra_codes(self, reader: Reader, row: TablebaseRow, keys: np.ndarray) -> np.ndarray:
        """int64[n] the extra codes of ascending ``keys`` (0 where none is stored)."""
        extra_keys, codes = self.read_codes(reader, row, extra=True)
        found = np.zeros(len(keys), dtype=np.int64)
        found[np.searchsorted(keys, extra_keys)] = codes
        return found

    def probe(self, reader: Reader, row: TablebaseRow, wanted: list[int]) -> dict[int, Value]:
        table = self.values_table(row)
        query = sa.select(table.c.key, table.c.outcome, table.c.remoteness).where(table.c.key.in_(sa.bindparam("keys", expanding=True)))
        found: dict[int, Value] = {}
        with reader.reading(row) as connection:
            for start in range(0, len(wanted), PROBE_BATCH):
                for key, outcome, remoteness in connection.execute(query, {"keys": wanted[start : start + PROBE_BATCH]}):
                    found[key] = (outcome, remoteness)
        return found
