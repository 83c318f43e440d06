"""Which :class:`~tablebase.store.layout.Layout` each ``format_version`` is, and the
tables of a tablebase in its own."""

from __future__ import annotations

import sqlalchemy as sa

from tablebase.store.blocks import BY_KEY, BY_SIDE
from tablebase.store.blocks_layout import BlocksLayout, OneSidedLayout
from tablebase.store.codecs import XZ
from tablebase.store.layout import Layout
from tablebase.store.packed_layout import PackedLayout, extra_table
from tablebase.store.rows_layout import RowsLayout
from tablebase.store.schema import (
    BLOCKS,
    BLOCKS_XZ,
    EXTRA_KINDS,
    ONE_SIDED,
    ONE_SIDED_XZ,
    PACKED,
    ROWS,
    SIDED,
    SIDED_DRAWS_STORED,
    SIDED_XZ,
    TablebaseRow,
)

_BY_FORMAT: dict[int, Layout] = {
    ROWS: RowsLayout(),
    PACKED: PackedLayout(),
    BLOCKS: BlocksLayout(BY_KEY),
    SIDED_DRAWS_STORED: BlocksLayout(BY_SIDE),
    SIDED: BlocksLayout(BY_SIDE, compact=True),
    SIDED_XZ: BlocksLayout(BY_SIDE, compact=True, codec=XZ),
    BLOCKS_XZ: BlocksLayout(BY_KEY, codec=XZ),
    ONE_SIDED: OneSidedLayout(),
    ONE_SIDED_XZ: OneSidedLayout(codec=XZ),
}


def layout_of(row: TablebaseRow) -> Layout:
    """The storage layout of a tablebase, by its ``format_version``."""
    return _BY_FORMAT[row.format_version]


def tables(row: TablebaseRow) -> list[sa.Table]:
    """Every table of a tablebase."""
    separate_extra = row.value_kind in EXTRA_KINDS and layout_of(row).separate_extra
    return [values_table(row)] + ([extra_table(row)] if separate_extra else [])


def values_table(row: TablebaseRow) -> sa.Table:
    """The table that holds a tablebase's values, in its storage layout."""
    return layout_of(row).values_table(row)
