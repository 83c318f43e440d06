"""The blocks layouts (:mod:`~tablebase.store.blocks`): the blocks layout, the sided
layout and its one-sided formats, whose tablebases lie in fixed blocks of keys, no keys
stored, values and extra values side by side in a row a block, read through the
reader's cache of decoded blocks."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable, Iterator

import numpy as np
import sqlalchemy as sa

from tablebase.core.values import StoredKind
from tablebase.store.block_codec import block_parts
from tablebase.store.block_writer import BlockWriter
from tablebase.store.blocks import BY_SIDE, PLAIN, BlockFormat, Blocking, BlocksTable, blocks_query, blocks_table
from tablebase.store.codecs import ZSTD, Codec
from tablebase.store.layout import Layout, Part, Value, Writes, once_per_row
from tablebase.store.packed import extra_codes, extra_value_of, extra_values, join_parts, split_codes, value_codes, value_of
from tablebase.store.reader import Reader
from tablebase.store.schema import EXTRA_KINDS, TablebaseRow

DRAW_DTZ_CODE = int(extra_codes(np.zeros(1, dtype=np.int64))[0])
"""The extra code of a draw's DTZ, 0: what the sided layout's reader gives every draw."""

_READ_TABLES: weakref.WeakKeyDictionary[TablebaseRow, BlocksTable] = weakref.WeakKeyDictionary()
""":meth:`BlocksLayout.read_table` of each catalog row object still in use."""


@functools.lru_cache(maxsize=1 << 16)
def _value_and_extra(code: int, extra: int) -> tuple[Value, int | None]:
    """``(value_of(code), extra_value_of(extra))``, kept: a tablebase has few distinct
    pairs, and a probe of a position's moves asks for tens of them."""
    return value_of(code), extra_value_of(extra)


class BlocksLayout(Layout):
    """Fixed blocks of keys, no keys stored, values and extra values side by side in a
    row a block (:mod:`~tablebase.store.blocks`), read through the store's cache of
    decoded blocks; a build's last span of keys is kept until it completes.

    :param blocking: where keys are stored (:data:`~tablebase.store.blocks.BY_KEY` in the
        blocks layout, :data:`~tablebase.store.blocks.BY_SIDE` in the sided one).
    :param compact: whether unstored keys are a value code of their own, not a bitmap,
        and a draw's DTZ is left out, the reader knowing it is 0 (the sided layout since
        format 5: :class:`~tablebase.store.blocks.BlockFormat`).
    :param codec: what compresses the blobs.
    """

    separate_extra = False

    def __init__(self, blocking: Blocking, compact: bool = False, codec: Codec = ZSTD) -> None:
        self.blocking, self.compact, self.codec = blocking, compact, codec

    def make_table(self, row: TablebaseRow) -> sa.Table:
        return blocks_table(row.table_name)

    def form(self, row: TablebaseRow) -> BlockFormat:
        """What the blobs of a tablebase of this layout hold."""
        if self.compact:
            return BlockFormat(DRAW_DTZ_CODE if row.value_kind == StoredKind.DTZ else None, gaps=True, codec=self.codec)
        return PLAIN._replace(codec=self.codec)

    def read_table(self, row: TablebaseRow) -> BlocksTable:
        """What a probe needs of a tablebase's table, made once for each catalog row object
        (making its :class:`sa.Table` costs a good part of an ending's first probe,
        benchmarks/RESULTS.md)."""
        return once_per_row(_READ_TABLES, row, self._made_read_table)

    def _made_read_table(self, row: TablebaseRow) -> BlocksTable:
        """:meth:`read_table`, made."""
        return BlocksTable(row.table_name, self.blocking, self.form(row))

    def records(
        self, writes: Writes, row: TablebaseRow, keys: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray, extra: np.ndarray | None
    ) -> Iterable[tuple[object, ...]]:
        writer = writes.block_writers.get(row.id)
        if writer is None:
            writer = writes.block_writers[row.id] = BlockWriter(self.blocking, writes.level, self.form(row))
        return writer.add(keys, value_codes(outcome, remoteness), extra)

    def read_codes(self, reader: Reader, row: TablebaseRow, extra: bool) -> tuple[np.ndarray, np.ndarray]:
        return join_parts((part[0], part[-1]) for part in self.read_parts(reader, row, extra))

    def read_parts(self, reader: Reader, row: TablebaseRow, extra: bool) -> Iterator[Part]:
        table = self.values_table(row)
        with reader.cursor(row, blocks_query(table, extra)) as cursor:
            yield from block_parts(cursor, self.blocking, self.form(row))

    def codes(self, reader: Reader, row: TablebaseRow, wanted: list[int], extra: bool) -> dict[int, int]:
        with reader.reported(), reader.damage_reported(row):
            return reader.blocks.probe(reader.fetch(row), self.read_table(row), "extra" if extra else "codes", wanted)

    def probe_both(self, reader: Reader, row: TablebaseRow, wanted: list[int]) -> dict[int, tuple[Value, int | None]]:
        """Both codes from one block lookup a key, a warm probe's from the cache alone."""
        return {key: _value_and_extra(*codes) for key, codes in self.both_codes(reader, row, wanted).items()}

    def both_codes(self, reader: Reader, row: TablebaseRow, wanted: list[int]) -> dict[int, tuple[int, int]]:
        """The value and extra codes of each wanted key that is stored (see :meth:`probe_both`)."""
        blocks = reader.blocks
        table = self.read_table(row)
        both = blocks.cached_both(table, wanted)
        if both is None:
            with reader.reported(), reader.damage_reported(row):
                blocks.load(reader.fetch_many(row), table, wanted)
                both = blocks.cached_both(table, wanted)  # None where they outnumber the cache
                if both is None:
                    both = blocks.probe_both(reader.fetch(row), table, wanted)
        return both

    def probe_array(self, reader: Reader, row: TablebaseRow, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """Vectorized block by block."""
        with reader.reported(), reader.damage_reported(row):
            found, codes, extra = reader.blocks.probe_array(reader.fetch_many(row), self.read_table(row), keys, row.value_kind in EXTRA_KINDS)
        outcome, remoteness = split_codes(codes)
        outcome[~found], remoteness[~found] = 0, -1
        return found, outcome, remoteness, None if extra is None else extra_values(extra)[0]


class OneSidedLayout(BlocksLayout):
    """The sided layout with black to move's DTM left out
    (:data:`~tablebase.store.schema.ONE_SIDED`, :data:`~tablebase.store.schema.ONE_SIDED_XZ`;
    :attr:`~tablebase.store.blocks.BlockFormat.dtm_left_out`): every read gives those
    keys' remoteness as :data:`~tablebase.core.values.TO_DERIVE`, which the read layer
    values from their moves (:mod:`tablebase.read.derived`), so that no reader above it
    sees the difference."""

    def __init__(self, codec: Codec = ZSTD) -> None:
        super().__init__(BY_SIDE, compact=True, codec=codec)

    def form(self, row: TablebaseRow) -> BlockFormat:
        return super().form(row)._replace(dtm_left_out=True)

