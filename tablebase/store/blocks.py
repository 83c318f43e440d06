"""The blocks storage layouts: a tablebase's values over fixed ranges of keys, no keys stored.

A tablebase is stored as rows of ``blocks_<id>``, one for each block of
:data:`BLOCK_KEYS` slots that holds a stored position. A :class:`Blocking` places each
key in a block and a slot of it:

- :data:`BY_KEY` (the ``blocks`` layout): block ``key // BLOCK_KEYS``, slot
  ``key % BLOCK_KEYS``, consecutive keys side by side;
- :data:`BY_SIDE` (the ``sided`` layout, for keys whose lowest bit is the side to move,
  as chess's are): the keys of each side to move apart, each range of ``2 * BLOCK_KEYS``
  keys in two blocks, its even keys in the first and its odd keys in the second. A
  position's value is much more like that of its neighbour with the same side to move
  than that of the same placement with the other side to move: KRPvKR's and KQvKR's DTM
  keep less so (``benchmarks/disk.py``, benchmarks/RESULTS.md).

The columns, in a table's :class:`BlockFormat` (the blocks layout's :data:`PLAIN`; the
sided layout's since format 5 with ``gaps`` and, for DTZ, ``draw_extra``):

- ``block``: the block's number, its primary key;
- ``present``: the slot ``first`` of the block's first stored key (uint32), then, but
  for ``gaps``, a bitmap of its slots from there up to its last stored one, bit ``i``
  set where slot ``first + i`` holds a stored key (numpy's little-endian bit order);
- ``codes``: one symbol per slot from ``first`` to the last stored one, of the value
  codes of :func:`~tablebase.store.packed.value_codes`; with ``gaps``, a slot without a
  stored key has the code :data:`GAP` (-1), which keeps KRPvKR and all4 smaller than
  their bitmaps did (benchmarks/RESULTS.md);
- ``extra``: the same of the Grundy values, scores or DTZ
  (:func:`~tablebase.store.packed.extra_codes`), null for a tablebase without. Where
  ``draw_extra`` is given (the sided layout's DTZ: a draw's is 0), a drawn position's
  extra code is not stored but read as ``draw_extra``: its slot is a don't-care like an
  unstored one, filled with the extra code of the stored non-draw before it (KRPvKR's
  DTZ keeps much less so, benchmarks/RESULTS.md).

Without ``gaps``, a slot that holds no stored key takes the value of the slot before it
(of the first one, before it), and its extra code does in every format: a don't-care that costs almost nothing compressed, as Syzygy fills its broken
positions with the values that compress best (R. de Man, syzygy1/tb, ``src/tbgen.c``).
Over an index space, where a position's key follows from where its pieces stand, the
values then repeat with the board's own periods, which a compressor finds. A codes blob
is, compressed by the table's codec (:attr:`BlockFormat.codec`: zstd, or xz where the
``format_version`` says so), a uint32 count ``k``, the block's ``k`` distinct codes
(int64, ascending) and one symbol per key indexing them (uint8, uint16 or uint32: the
narrowest that holds ``k - 1``), all little-endian: a fraction of the bytes a position
of the packed layout, which stores the keys too (``benchmarks/disk.py``,
benchmarks/RESULTS.md).
"""
from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np
import sqlalchemy as sa

from tablebase.store.codecs import ZSTD, Codec
from tablebase.store.schema import KEY_TYPE

BLOCK_KEYS = 1 << 16
"""Keys per block: few enough that decoding one for a probe that misses the cache costs
about as much as such a probe of the packed layout; blocks of 2^20 keys kept a little
less (KRBvKR) and made a random probe several times slower (benchmarks/RESULTS.md)."""


class Blocking:
    """Where keys are stored: block ``key // BLOCK_KEYS``, slot ``key % BLOCK_KEYS``
    (:data:`BY_KEY`). Every key is in one block and one slot, and a block's slots ascend
    with its keys; the blocks of a range of :attr:`span` consecutive keys hold those keys
    alone."""

    span = BLOCK_KEYS
    """The keys whose blocks hold them alone: a writer cuts its keys at multiples of it."""

    def place(self, keys: Any) -> tuple[Any, Any]:
        """``(block, slot)`` of a key (an int), or of int64[n] keys (int64[n] blocks and
        int64[n] slots)."""
        return keys // BLOCK_KEYS, keys % BLOCK_KEYS

    def keys(self, block: int, slots: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`place`: the int64[m] keys of block ``block``'s int64[m] slots."""
        return block * BLOCK_KEYS + slots


_SPAN_SHIFT = (2 * BLOCK_KEYS).bit_length() - 1
"""log2 of :attr:`SideBlocking.span`."""


class SideBlocking(Blocking):
    """The keys of each side to move apart (:data:`BY_SIDE`): key ``k`` in block
    ``2 * (k // (2 * BLOCK_KEYS)) + k % 2``, slot ``k // 2 % BLOCK_KEYS``."""

    span = 2 * BLOCK_KEYS

    def place(self, keys: Any) -> tuple[Any, Any]:
        return (keys >> _SPAN_SHIFT << 1) | (keys & 1), (keys >> 1) & (BLOCK_KEYS - 1)

    def keys(self, block: int, slots: np.ndarray) -> np.ndarray:
        return (block >> 1 << _SPAN_SHIFT) + (slots << 1) + (block & 1)


BY_KEY = Blocking()
"""The ``blocks`` layout's blocking."""
BY_SIDE = SideBlocking()
"""The ``sided`` layout's blocking."""

GAP = -1
"""The value code of a slot that holds no stored key, in a :attr:`BlockFormat.gaps` table."""



MATED = 0
"""The code of a mated side to move in a block whose DTM is left out
(:attr:`BlockFormat.dtm_left_out`): its DTZ, 0, is a draw's, its value a loss at
remoteness 0 (DTZ codes, :func:`~tablebase.store.packed.extra_codes`, are 1 and up)."""


class BlockFormat(NamedTuple):
    """What a blocks table's blobs hold, beside where its keys lie (:class:`Blocking`)."""

    draw_extra: int | None = None
    """The extra code that a reader gives every draw, which is then not stored (the
    sided layout's DTZ: 0; see the module docstring); None: every extra code is stored."""
    gaps: bool = False
    """Whether a slot without a stored key has a value code of its own, :data:`GAP`, and
    ``present`` holds only the first stored slot (the sided layout since format 5); else
    ``present`` holds a bitmap and such a slot repeats the value code before it."""
    codec: Codec = ZSTD
    """What compresses the blobs (:mod:`~tablebase.store.codecs`)."""
    dtm_left_out: bool = False
    """Whether the blocks of black to move (the sided layout's odd blocks) leave their DTM
    out (the one-sided formats; only with DTZ): such a block has no ``extra`` blob, its
    ``codes`` blob holds each key's DTZ code (:data:`MATED` for a side that is mated,
    :data:`GAP` for an unstored one), which says its WDL, and a reader values its DTM
    from its moves (:func:`~tablebase.store.packed.codes_to_derive`)."""

    def leaves_dtm_out(self, block: int) -> bool:
        """Whether block number ``block`` is one whose DTM is left out (:attr:`dtm_left_out`)."""
        return self.dtm_left_out and block % 2 == 1


PLAIN = BlockFormat()
"""The blocks layout's format: a bitmap, every extra code stored."""

SPAN_KEYS = max(BY_KEY.span, BY_SIDE.span)
"""Keys whose blocks hold them alone in every layout: partitions of an index space
cut at multiples of it write blocks of their own."""


@functools.lru_cache(maxsize=256)
def blocks_table(name: str) -> sa.Table:
    """The blocks table of one tablebase, in a metadata of its own (see the module
    docstring; where its keys lie and what its blobs hold, a :class:`BlocksTable` says);
    the same object for the same name, as SQLAlchemy's statement cache wants."""
    return sa.Table(
        name,
        sa.MetaData(),
        sa.Column("block", KEY_TYPE, primary_key=True, autoincrement=False),
        sa.Column("present", sa.LargeBinary, nullable=False),
        sa.Column("codes", sa.LargeBinary, nullable=False),
        sa.Column("extra", sa.LargeBinary, nullable=True),
    )


class BlocksTable(NamedTuple):
    """What a reader needs of a tablebase's blocks table (:func:`blocks_table` makes the
    table itself, a heavier object that only writes and whole reads need)."""

    name: str
    """The table's name."""
    blocking: Blocking
    """Where its keys are stored."""
    form: BlockFormat
    """What its blobs hold."""



READ_STAND_IN = "blocks_read_stand_in"
"""The name of the table that :data:`BLOCK_QUERY` and :data:`BLOCKS_IN_QUERY` read: a store
compiles each once for its dialect and puts a tablebase's table's name in this one's
place in their SQL text (compiling them for each table cost a good part of an ending's
first probe, benchmarks/RESULTS.md)."""

_READ = blocks_table(READ_STAND_IN)

BLOCK_QUERY = sa.select(_READ.c.present, _READ.c.codes, _READ.c.extra).where(_READ.c.block == sa.bindparam("block"))
"""The query of one block's blobs, by its number (``block``)."""

BLOCKS_IN_QUERY = sa.select(_READ.c.block, _READ.c.present, _READ.c.codes, _READ.c.extra).where(
    _READ.c.block.in_(sa.bindparam("blocks", expanding=True))
)
"""The query of the blocks whose numbers ``blocks`` lists."""


def blocks_query(table: sa.Table, extra: bool) -> sa.Select[Any]:
    """Every block of a table in key order: its number, ``present`` and codes, and its extra
    codes when ``extra``."""
    columns = [table.c.block, table.c.present, table.c.codes] + ([table.c.extra] if extra else [])
    return sa.select(*columns).order_by(table.c.block)
