"""The packed layout (:data:`~tablebase.store.schema.PACKED`): a tablebase's keys and
values in chunks (:mod:`~tablebase.store.packed`), its Grundy values, scores or DTZ in
chunks of a table of their own, ``extra_<id>`` (which the rows layout shares)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import sqlalchemy as sa

from tablebase.store.layout import Layout, Part, Writes, require_extra
from tablebase.store.packed import chunks_table, decode_codes, encode_chunks, join_chunks, value_codes
from tablebase.store.reader import Reader
from tablebase.store.schema import TablebaseRow


class PackedLayout(Layout):
    """Chunks of keys and codes, the extra codes in a table of their own (``extra_<id>``)."""

    table = staticmethod(chunks_table)

    def records(
        self, writes: Writes, row: TablebaseRow, keys: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray, extra: np.ndarray | None
    ) -> Iterable[tuple[object, ...]]:
        return encode_chunks(keys, value_codes(outcome, remoteness))

    def read_codes(self, reader: Reader, row: TablebaseRow, extra: bool) -> tuple[np.ndarray, np.ndarray]:
        with reader.cursor(row, _chunks_query(extra_table(row) if extra else self.values_table(row))) as cursor:
            return join_chunks(cursor)

    def read_parts(self, reader: Reader, row: TablebaseRow, extra: bool) -> Iterator[Part]:
        """A tablebase's codes a stored chunk at a time, with its extra codes where
        ``extra``."""
        with reader.cursor(row, _chunks_query(self.values_table(row))) as cursor, contextlib.ExitStack() as stack:
            extras = stack.enter_context(reader.cursor(row, _chunks_query(extra_table(row)))) if extra else None
            for chunk in cursor:
                keys, codes = decode_codes(*chunk)
                if extras is None:
                    yield keys, codes
                    continue
                beside = extras.fetchone()
                extra_keys, stored = decode_codes(*beside) if beside else (keys[:0], codes[:0])
                if not np.array_equal(keys, extra_keys):
                    raise ValueError("values and extra values are chunked apart")
                yield keys, codes, stored

    def codes(self, reader: Reader, row: TablebaseRow, wanted: list[int], extra: bool) -> dict[int, int]:
        """The stored value code, or with ``extra`` extra code, of each wanted key there."""
        with reader.reading(row) as connection:
            return reader.chunks.probe(connection, extra_table(row) if extra else self.values_table(row), wanted)


def _chunks_query(table: sa.Table) -> sa.Select[Any]:
    """Every chunk of a packed table, in key order."""
    return sa.select(table.c.first_key, table.c.key_deltas, table.c.codes).order_by(table.c.first_key)


def extra_table(row: TablebaseRow) -> sa.Table:
    """The packed table ``extra_<id>`` of a tablebase's Grundy values or scores (see
    :func:`~tablebase.store.packed.extra_codes`).

    :raises StoreError: for a tablebase that stores none.
    """
    require_extra(row)
    return chunks_table(f"extra_{row.id}")
