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
  than that of the same placement with the other side to move: KRPvKR's DTM keeps 16%
  less, KQvKR's 19% (``benchmarks/disk.py``).

The columns, in a table's :class:`BlockFormat` (the blocks layout's :data:`PLAIN`; the
sided layout's since format 5 with ``gaps`` and, for DTZ, ``draw_extra``):

- ``block``: the block's number, its primary key;
- ``present``: the slot ``first`` of the block's first stored key (uint32), then, but
  for ``gaps``, a bitmap of its slots from there up to its last stored one, bit ``i``
  set where slot ``first + i`` holds a stored key (numpy's little-endian bit order);
- ``codes``: one symbol per slot from ``first`` to the last stored one, of the value
  codes of :func:`~tablebase.store.packed.value_codes`; with ``gaps``, a slot without a
  stored key has the code :data:`GAP` (-1), which keeps KRPvKR 4% smaller than its
  bitmap did, all4 3%;
- ``extra``: the same of the Grundy values, scores or DTZ
  (:func:`~tablebase.store.packed.extra_codes`), null for a tablebase without. Where
  ``draw_extra`` is given (the sided layout's DTZ: a draw's is 0), a drawn position's
  extra code is not stored but read as ``draw_extra``: its slot is a don't-care like an
  unstored one, filled with the extra code of the stored non-draw before it (the DTZ of
  the first 3% of KRPvKR's index space keeps 38% less).

Without ``gaps``, a slot that holds no stored key takes the value of the slot before it
(of the first one, before it), and its extra code does in every format: a don't-care that costs almost nothing compressed, as Syzygy fills its broken
positions with the values that compress best (R. de Man, syzygy1/tb, ``src/tbgen.c``).
Over an index space, where a position's key follows from where its pieces stand, the
values then repeat with the board's own periods, which a compressor finds. A codes blob
is, compressed by the table's codec (:attr:`BlockFormat.codec`: zstd, or xz where the
``format_version`` says so), a uint32 count ``k``, the block's ``k`` distinct codes
(int64, ascending) and one symbol per key indexing them (uint8, uint16 or uint32: the
narrowest that holds ``k - 1``), all little-endian. KRBvKR keeps about 0.2 bytes a
position this way with zstd, DTM and DTZ together (``benchmarks/disk.py``), 0.15 with
xz; the packed layout, with its keys, about 0.5.
"""

from __future__ import annotations

import functools
import os
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple, Optional

import numpy as np
import sqlalchemy as sa

from tablebase.util.cores import usable_cores
from tablebase.core.errors import UsageError
from tablebase.store.codecs import ZSTD, Codec
from tablebase.store.memory import keep_freed_memory
from tablebase.store.packed import codes_to_derive, drawn, extra_codes, extra_values, value_codes
from tablebase.store.schema import KEY_TYPE

BLOCK_KEYS = 1 << 16
"""Keys per block: decoding one takes about 20 us, so a probe that misses the cache costs
about as much as one of the packed layout; blocks of 2^20 keys kept 12% less (KRBvKR)
and made a random probe 4 times slower."""

CACHE_VARIABLE = "TABLEBASE_CACHE_MIB"
"""The environment variable that sets a reader's cache of decoded blocks in MiB (then
:data:`CACHED_KEYS` is ignored): every process reading a database has its own, so a
``serve`` or ``query -`` with N workers may hold N times as much."""

CACHED_KEYS = 1 << 29
"""Keys of decoded blocks kept for later probes, at about two bytes each with DTZ (a
byte a column of symbols, a bit of bitmap): 1.1 GiB at most, 8,192 blocks, a whole
5-piece ending's with its dependencies' (KRBvKR's index space of 335 million keys fills
5,120). Fewer make the least recently used order evict every block before its next use
where queries range over an ending at random: with 2,048 blocks, ranking the moves of
the same 1,000 random KRBvKR positions again fetched 5,654 blocks."""


_SYMBOL_TYPES = (np.dtype("<u1"), np.dtype("<u2"), np.dtype("<u4"))
_COUNT = np.dtype("<u4")
_CODE = np.dtype("<i8")


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
_MATED_VALUE = int(value_codes(np.array([-1]), np.array([0]))[0])
"""The value code of a mated side to move."""
_ZERO_DTZ = int(extra_codes(np.zeros(1, dtype=np.int64))[0])
"""The extra code of DTZ 0."""


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


class Symbols(NamedTuple):
    """A decoded codes blob: the value code of key offset ``i`` is ``table[symbols[i]]``."""

    table: np.ndarray
    """int64[k] distinct codes, ascending."""
    symbols: np.ndarray
    """uint8, uint16 or uint32 [n], one per slot from the block's first stored key to its
    last."""
    listed: list[int]
    """``table`` as Python ints, and ``each`` ``symbols`` as a memoryview: one key's
    code read without a numpy scalar (a warm probe's path)."""
    each: memoryview

    def codes(self, offsets: np.ndarray | slice | int = slice(None)) -> np.ndarray:
        """int64 codes of the keys at ``offsets`` (all by default; one for an int)."""
        return self.table[self.symbols[offsets]]

    def code(self, offset: int) -> int:
        """The code of the key at ``offset``."""
        return self.listed[self.each[offset]]

    def stored_codes(self, offsets: np.ndarray | slice | int = slice(None)) -> np.ndarray:
        """:meth:`codes`, every one of which is stored (see :meth:`DrawsPutBack.stored_codes`)."""
        return self.codes(offsets)


def _symbol_type(count: int) -> np.dtype:
    """The narrowest of :data:`_SYMBOL_TYPES` that indexes a table of ``count`` codes."""
    return next(dtype for dtype in _SYMBOL_TYPES if count - 1 <= np.iinfo(dtype).max)


def encode_symbols(codes: np.ndarray, runs: np.ndarray | None = None, level: int | None = None, codec: Codec = ZSTD) -> bytes:
    """A codes blob (see the module docstring) of int[n] codes of -1 or more (-1:
    :data:`GAP`), n >= 1, each repeated ``runs[i]`` times where int[n] ``runs`` is given
    (the symbols are repeated, a byte each where they fit, not the 8-byte codes),
    compressed by ``codec`` at ``level`` (None: its default)."""
    codes = np.asarray(codes, dtype=np.int64)
    top = int(codes.max())
    if top < 1 << 22 and int(codes.min()) >= GAP:  # the usual case: small codes, counted in one pass
        shifted = codes - GAP
        table = np.flatnonzero(np.bincount(shifted, minlength=top - GAP + 1)) + GAP
        width = _symbol_type(len(table))
        lookup = np.zeros(top - GAP + 1, dtype=width)
        lookup[table - GAP] = np.arange(len(table))
        symbols = lookup[shifted]
    else:
        table, symbols = np.unique(codes, return_inverse=True)
        width = _symbol_type(len(table))
        symbols = symbols.astype(width)
    if runs is not None:
        symbols = np.repeat(symbols, runs)
    parts = (np.array([len(table)], _COUNT).tobytes(), table.astype(_CODE).tobytes(), symbols.tobytes())
    return codec.compress(b"".join(parts), level)


def decode_symbols(blob: bytes | memoryview, codec: Codec = ZSTD) -> Symbols:
    """Inverse of :func:`encode_symbols`.

    :raises ValueError: if the blob is damaged.
    """
    data = codec.decompress(blob)
    if len(data) < _COUNT.itemsize:
        raise ValueError("damaged block: no symbol table")
    count = int(np.frombuffer(data, _COUNT, count=1)[0])
    start = _COUNT.itemsize + count * _CODE.itemsize
    if count == 0 or len(data) < start:
        raise ValueError("damaged block: a short symbol table")
    table = np.frombuffer(data, _CODE, count=count, offset=_COUNT.itemsize)
    width = _symbol_type(count)
    if (len(data) - start) % width.itemsize:
        raise ValueError("damaged block: a part of a symbol")
    symbols = np.frombuffer(data, width, offset=start)
    if len(symbols) and int(symbols.max()) >= count:
        raise ValueError("damaged block: a symbol outside its table")
    return Symbols(table, symbols, table.tolist(), memoryview(symbols))


def encode_present(first: int, present: np.ndarray, level: int | None = None, codec: Codec = ZSTD) -> bytes:
    """A present blob of the first stored offset and bool[n] from there."""
    data = np.array([first], _COUNT).tobytes() + np.packbits(present, bitorder="little").tobytes()
    return codec.compress(data, level)


def decode_present(blob: bytes | memoryview, length: int, codec: Codec = ZSTD) -> tuple[int, np.ndarray]:
    """Inverse of :func:`encode_present`: the first offset and the bitmap of ``length``
    bits, packed (uint8[(length + 7) // 8], little-endian bit order).

    :raises ValueError: if the blob is damaged or not of ``length`` bits.
    """
    data = codec.decompress(blob)
    bits = np.frombuffer(data, dtype=np.uint8, offset=min(len(data), _COUNT.itemsize))
    if len(data) < _COUNT.itemsize or len(bits) != (length + 7) // 8:
        raise ValueError("damaged block: its bitmap and its values differ in length")
    return int(np.frombuffer(data, _COUNT, count=1)[0]), bits


def encode_block(
    slots: np.ndarray,
    codes: np.ndarray,
    extra: np.ndarray | None,
    level: int | None = None,
    form: BlockFormat = PLAIN,
    dtm_left_out: bool = False,
) -> tuple[bytes, bytes, bytes | None]:
    """One block's ``(present, codes, extra)`` blobs from the int64[m] ascending slots
    (m >= 1) of its stored keys, their int64[m] value codes (0 or more) and extra codes
    (or none), in the format ``form``, compressed by its codec at ``level`` (None: the
    codec's default): a slot without a stored key takes the value code :data:`GAP` or
    the one before it, and the extra code before it, as does a draw's extra code where
    ``form.draw_extra`` is given. With ``dtm_left_out`` (a block of the side whose DTM
    ``form`` leaves out), the codes blob holds the extra codes instead, and no extra
    blob is made (:attr:`BlockFormat.dtm_left_out`)."""
    first = int(slots[0])
    local = slots - first
    length = int(local[-1]) + 1
    if dtm_left_out:
        whole = np.full(length, GAP, dtype=np.int64)
        whole[local] = np.where(codes == _MATED_VALUE, MATED, extra)
        return np.array([first], _COUNT).tobytes(), encode_symbols(whole, None, level, form.codec), None
    runs = np.diff(local, append=length)  # each stored code, then the slots up to the next stored one
    filled_extra = None
    if extra is not None:
        left = _draws_left_out(codes, extra, runs, form.draw_extra) if form.draw_extra is not None else (extra, runs)
        filled_extra = encode_symbols(*left, level, form.codec)
    if form.gaps:
        values = np.full(length, GAP, dtype=np.int64)
        values[local] = codes
        return np.array([first], _COUNT).tobytes(), encode_symbols(values, None, level, form.codec), filled_extra
    present = np.zeros(length, dtype=bool)
    present[local] = True
    return encode_present(first, present, level, form.codec), encode_symbols(codes, runs, level, form.codec), filled_extra


def _draws_left_out(codes: np.ndarray, extra: np.ndarray, runs: np.ndarray, draw_extra: int) -> tuple[np.ndarray, np.ndarray]:
    """``(extra codes, runs)`` of a block's int64[m] value codes, extra codes and runs
    (slots each code fills) with every draw's slots given to the non-draw before it (the
    leading ones to the first non-draw): int64[j] each, j <= m; ``[draw_extra]`` over
    every slot where all are draws."""
    kept = np.flatnonzero(~drawn(codes))
    if not len(kept):
        return np.array([draw_extra], dtype=np.int64), np.array([runs.sum()], dtype=np.int64)
    ends = np.concatenate([[0], np.cumsum(runs)])[np.append(kept, len(runs))]
    kept_runs = np.diff(ends)
    kept_runs[0] += ends[0]
    return extra[kept], kept_runs


class DecodedBlock(NamedTuple):
    """A block as probes read it."""

    first: int
    """The offset of its first stored key in the block."""
    bits: np.ndarray | None
    """uint8[(n + 7) // 8]: which offsets from ``first`` on are stored, a bit each
    (packed: a cached block takes a byte a key for its values, an eighth for this); None
    in a :attr:`BlockFormat.gaps` format, whose value codes say it."""
    codes: Symbols
    """The value codes."""
    extra: Symbols | DrawsPutBack | None
    """The extra codes, or None where the tablebase has none."""
    length: int
    """n, the offsets from ``first`` to the last stored one."""
    each_bit: memoryview | None
    """``bits`` as a memoryview, read a key at a time without numpy scalars."""
    gap: int = -1
    """The symbol of :data:`GAP` among ``codes`` (-1: none)."""

    def stored(self, offset: int) -> bool:
        """Whether key offset ``offset`` of the block (from its start) is stored."""
        offset -= self.first
        if not 0 <= offset < self.length:
            return False
        if self.each_bit is None:
            return self.codes.each[offset] != self.gap
        return bool(self.each_bit[offset >> 3] >> (offset & 7) & 1)

    def stored_many(self, offsets: np.ndarray) -> np.ndarray:
        """bool[m]: :meth:`stored` of int64[m] offsets from ``first``."""
        inside = (offsets >= 0) & (offsets < self.length)
        hit = np.zeros(len(offsets), dtype=bool)
        at = offsets[inside]
        hit[inside] = self.codes.symbols[at] != self.gap if self.bits is None else (self.bits[at >> 3] >> (at & 7)) & 1 == 1
        return hit

    def present(self) -> np.ndarray:
        """int64[m] offsets from ``first`` that are stored, ascending."""
        if self.bits is None:
            return np.flatnonzero(self.codes.symbols != self.gap)
        return np.flatnonzero(np.unpackbits(self.bits, count=self.length, bitorder="little"))

    def column(self, name: str) -> Symbols | DrawsPutBack:
        """``codes`` or ``extra``, by name.

        :raises ValueError: for extra codes the block lacks.
        """
        found = self.codes if name == "codes" else self.extra
        if found is None:
            raise ValueError("damaged block: its extra codes are missing")
        return found


def decode_block(
    present: bytes | memoryview,
    codes: bytes | memoryview,
    extra: bytes | memoryview | None = None,
    form: BlockFormat = PLAIN,
    aside: ThreadPoolExecutor | None = None,
    dtm_left_out: bool = False,
) -> DecodedBlock:
    """A block's blobs, decoded, in the format ``form`` (see :func:`encode_block`), the
    extra codes by ``aside`` (a thread of it) while this thread decodes the values, where
    it is given; ``dtm_left_out`` for a block that leaves its DTM out
    (:meth:`BlockFormat.leaves_dtm_out`).

    :raises ValueError: if a blob is damaged or they disagree in length.
    """
    if dtm_left_out:
        return _decoded_without_dtm(present, codes, form)
    pending = None if extra is None or aside is None else aside.submit(decode_symbols, extra, form.codec)
    values = decode_symbols(codes, form.codec)
    if pending is not None:
        beside = pending.result()
    else:
        beside = None if extra is None else decode_symbols(extra, form.codec)
    if beside is not None and len(beside.symbols) != len(values.symbols):
        raise ValueError("damaged block: its extra codes are of another length")
    if beside is not None and form.draw_extra is not None:
        beside = DrawsPutBack(beside, values, form.draw_extra)
    if form.gaps:
        if len(present) != _COUNT.itemsize:
            raise ValueError("damaged block: its first slot")
        gap = 0 if values.listed[0] == GAP else -1  # the table ascends
        return DecodedBlock(int(np.frombuffer(present, _COUNT)[0]), None, values, beside, len(values.symbols), None, gap)
    first, bits = decode_present(present, len(values.symbols), form.codec)
    return DecodedBlock(first, bits, values, beside, len(values.symbols), memoryview(bits))


def _decoded_without_dtm(present: bytes | memoryview, blob: bytes | memoryview, form: BlockFormat) -> DecodedBlock:
    """A block whose DTM is left out (see :func:`encode_block`), decoded: its one symbol
    stream read through two tables, the value codes (WDL, the DTM to derive) and the DTZ
    codes.

    :raises ValueError: if a blob is damaged.
    """
    stored = decode_symbols(blob, form.codec)
    if len(present) != _COUNT.itemsize:
        raise ValueError("damaged block: its first slot")
    table = stored.table
    dtz, _known = extra_values(table)
    outcome = np.where(table == MATED, -1, np.sign(dtz))
    values = np.where(table == GAP, GAP, np.where(table == MATED, _MATED_VALUE, codes_to_derive(outcome)))
    beside = np.where(table > MATED, table, _ZERO_DTZ)
    gap = 0 if stored.listed[0] == GAP else -1  # the table ascends
    length = len(stored.symbols)
    return DecodedBlock(
        int(np.frombuffer(present, _COUNT)[0]),
        None,
        Symbols(values, stored.symbols, values.tolist(), stored.each),
        Symbols(beside, stored.symbols, beside.tolist(), stored.each),
        length,
        None,
        gap,
    )


class DrawsPutBack:
    """A block's extra codes where a draw's is not stored (:func:`_draws_left_out`): read
    as ``draw_extra`` wherever the value beside it is a draw, the rest as stored. Put back
    as each is read, so decoding a block costs nothing more (a warm probe one list
    lookup more).

    :param extra: the stored extra codes, a don't-care at each draw.
    :param values: the block's value codes.
    :param draw_extra: every draw's extra code.
    """

    def __init__(self, extra: Symbols, values: Symbols, draw_extra: int) -> None:
        self.stored, self.values, self.draw_extra = extra, values, draw_extra
        self.drawn = drawn(values.table)
        """bool[k]: which of the value symbols are draws."""
        self._drawn_each, self._value_each, self._listed, self._each = self.drawn.tolist(), values.each, extra.listed, extra.each

    def codes(self, offsets: np.ndarray | slice | int = slice(None)) -> np.ndarray:
        """As :meth:`Symbols.codes`."""
        return np.where(self.drawn[self.values.symbols[offsets]], self.draw_extra, self.stored.codes(offsets))

    def code(self, offset: int) -> int:
        """As :meth:`Symbols.code`."""
        return self.draw_extra if self._drawn_each[self._value_each[offset]] else self._listed[self._each[offset]]

    def stored_codes(self, offsets: np.ndarray | slice | int = slice(None)) -> np.ndarray:
        """The codes as stored, a draw's the don't-care in its slot: for a caller that puts
        every draw's back itself, once for many blocks."""
        return self.stored.codes(offsets)


@functools.cache
def _coders() -> ThreadPoolExecutor:
    """The threads that encode the blocks of a write, or decode those of a read, side by
    side, one a core (the codecs and numpy let go of the GIL)."""
    return ThreadPoolExecutor(usable_cores(), "blocks")


os.register_at_fork(after_in_child=_coders.cache_clear)  # a forked child (a query worker) has none of its parent's threads


def _start_coders() -> None:
    """Start :func:`_coders`' threads, which a thread pool starts only at its first tasks:
    an ending's first probe would wait for them (KRPvKR with xz: a lone block's two blobs
    decoded side by side in 1.16 ms instead of 0.75)."""
    coders = _coders()
    for _ in range(usable_cores()):
        coders.submit(int)


_DECODING_ASIDE = True
"""Whether this process decodes the blocks of a read in :func:`_coders`' threads, beside
the reading thread (see :func:`share_cores`)."""


def share_cores(processes: int) -> None:
    """Say that this process is one of ``processes`` that read side by side (the workers
    of ``query -`` and ``serve``): where they leave it no core beyond its reading
    thread's, it decodes the blocks of a read in that thread, as threads beside it
    would only add hand-offs (``query chess -`` over 10,000 KRBvKR positions with 2
    workers on 2 cores: 4.32 > 4.09 s with zstd, 5.37 > 5.07 s with xz).

    :param processes: the readers sharing this machine's cores, at least 1.
    """
    global _DECODING_ASIDE
    _DECODING_ASIDE = usable_cores() // max(1, processes) > 1


def _decoded_rows(rows: Iterable[Sequence[Any]], form: BlockFormat) -> dict[int, DecodedBlock]:
    """The decoded blocks of fetched rows (``block, present, codes, extra``) by number,
    decoded in :func:`_coders`' threads where there are several and this process decodes
    aside (xz decodes a block of chess in about 0.4 ms, zstd in 0.04).

    :raises ValueError: if a block is damaged.
    """
    rows = list(rows)
    if len(rows) == 1 or not _DECODING_ASIDE:
        return {row[0]: _decoded_alone(row[1:], form, row[0]) for row in rows}
    decoded = _coders().map(lambda row: decode_block(*row[1:], form=form, dtm_left_out=form.leaves_dtm_out(row[0])), rows)
    return dict(zip((row[0] for row in rows), decoded))


def _decoded_alone(blobs: Sequence[Any], form: BlockFormat, block: int) -> DecodedBlock:
    """:func:`decode_block` of one block read alone, its two blobs side by side where
    the codec :attr:`~tablebase.store.codecs.Codec.decodes_slowly` and this process
    decodes aside."""
    aside = _coders() if form.codec.decodes_slowly and _DECODING_ASIDE else None
    return decode_block(*blobs, form=form, aside=aside, dtm_left_out=form.leaves_dtm_out(block))


class BlockWriter:
    """Cuts the values of one tablebase, given in ascending key order over any number of
    calls, into the rows of :func:`blocks_table`, encoded by one thread a core; the keys
    of the last span (:attr:`Blocking.span`) wait for :meth:`finish`.

    :param blocking: where keys are stored.
    :param level: the level of ``form``'s codec (None: its default).
    :param form: what the blobs hold.
    """

    def __init__(self, blocking: Blocking = BY_KEY, level: int | None = None, form: BlockFormat = PLAIN) -> None:
        self.blocking, self.level, self.form = blocking, level, form
        self._pending: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = None

    def add(self, keys: np.ndarray, codes: np.ndarray, extra: np.ndarray | None) -> Iterator[tuple[Any, ...]]:
        """The rows of every block that ``keys`` complete: int64[n] ascending keys (above
        those of earlier calls), int64[n] value codes and extra codes (or none)."""
        if self._pending is not None:
            before_keys, before_codes, before_extra = self._pending
            keys, codes = np.concatenate([before_keys, keys]), np.concatenate([before_codes, codes])
            extra = None if extra is None or before_extra is None else np.concatenate([before_extra, extra])
        self._pending = None
        if not len(keys):
            return
        spans = keys // self.blocking.span
        starts = np.flatnonzero(np.diff(spans)) + 1
        bounds = [0, *starts.tolist(), len(keys)]
        last = len(bounds) - 2
        self._pending = (keys[bounds[last] :], codes[bounds[last] :], None if extra is None else extra[bounds[last] :])
        spans = [
            (keys[begin:end], codes[begin:end], None if extra is None else extra[begin:end])
            for begin, end in zip(bounds[:last], bounds[1 : last + 1])
        ]
        for rows in _coders().map(lambda span: self._rows(*span), spans):
            yield from rows

    def finish(self) -> Iterator[tuple[Any, ...]]:
        """The rows of the last span, if any value is left."""
        if self._pending is not None:
            yield from self._rows(*self._pending)
            self._pending = None

    def _rows(self, keys: np.ndarray, codes: np.ndarray, extra: np.ndarray | None) -> list[tuple[Any, ...]]:
        """The rows of the blocks of one span's keys, by block number."""
        blocks, slots = self.blocking.place(keys)
        rows = []
        for block in np.unique(blocks).tolist():
            mine = blocks == block
            these = None if extra is None else extra[mine]
            rows.append((block, *encode_block(slots[mine], codes[mine], these, self.level, self.form, self.form.leaves_dtm_out(block))))
        return rows


Fetch = Callable[[int], Optional[Sequence[Any]]]
"""Runs :data:`BLOCK_QUERY` on one tablebase's table for a block number: its row, or None."""

FetchMany = Callable[[list[int]], Iterable[Sequence[Any]]]
"""Runs :data:`BLOCKS_IN_QUERY` on one tablebase's table for block numbers: the rows of
those that are stored."""

FETCHED_AT_ONCE = 256
"""Blocks an array probe reads in one query (and holds decoded at once: about 50 MiB)."""

KEPT_UP_TO = 256
"""An array probe that reads at most this many blocks keeps them in the cache as a
point probe does: the successors of a few positions (a DTM left out, valued from the
moves), read again by the next such probe."""


MISSING = object()
"""What :class:`BlockReader`'s cache gives for a block it does not hold (``None`` is a
block that holds no stored key)."""


def cached_keys() -> int:
    """The keys of decoded blocks a :class:`BlockReader` keeps: ``$TABLEBASE_CACHE_MIB``
    MiB at about two bytes a key (a byte a column of symbols with DTZ, a bit of bitmap),
    else :data:`CACHED_KEYS`.

    :raises UsageError: if the variable is not a whole number of MiB, at least 1.
    """
    text = os.environ.get(CACHE_VARIABLE)
    if text is None:
        return CACHED_KEYS
    if not text.strip().isdigit() or int(text) < 1:
        raise UsageError(f"${CACHE_VARIABLE} must be a whole number of MiB, at least 1, not {text!r}")
    return int(text) << 19


class BlockReader:
    """Point probes of blocks tables over one connection, with cached decoded blocks.

    Stored blocks never change (a rebuild writes a table of another name), so what is
    cached stays valid for as long as the table exists.
    """

    def __init__(self, most: int) -> None:
        """:param most: the keys of decoded blocks to keep (:func:`cached_keys`). Makes
        this process's malloc keep freed memory (:func:`~tablebase.store.memory.keep_freed_memory`)."""
        keep_freed_memory()
        if _DECODING_ASIDE:
            _start_coders()
        self._blocks: OrderedDict[tuple[str, int], DecodedBlock | None] = OrderedDict()
        self._cached = 0  # keys in self._blocks
        self._most = most

    def probe(self, fetch: Fetch, table: BlocksTable, column: str, wanted: Sequence[int]) -> dict[int, int]:
        """The stored code (of ``column``: ``codes`` or ``extra``) of each wanted key that
        is there; ``fetch`` is called only for blocks that are not cached.

        :raises ValueError: if a block is damaged.
        """
        return {key: decoded.column(column).code(at) for key, decoded, at in self._stored(fetch, table, wanted)}

    def probe_both(self, fetch: Fetch, table: BlocksTable, wanted: Sequence[int]) -> dict[int, tuple[int, int]]:
        """:meth:`probe` of ``codes`` and ``extra`` at once, one block lookup a key:
        ``(code, extra code)`` of each wanted key that is stored.

        :raises ValueError: if a block is damaged or lacks its extra codes.
        """
        return {
            key: (decoded.codes.code(at), decoded.column("extra").code(at))
            for key, decoded, at in self._stored(fetch, table, wanted)
        }

    def cached_both(self, table: BlocksTable, wanted: Sequence[int]) -> dict[int, tuple[int, int]] | None:
        """:meth:`probe_both` answered from the cache alone (no query, nothing that can
        fail): ``None`` where a wanted key's block is not cached, or lacks extra codes."""
        both = {}
        place = table.blocking.place
        for key in wanted:
            block, offset = place(key)
            decoded = self._hit(table.name, block)
            if decoded is MISSING or (decoded is not None and decoded.extra is None):
                return None
            if decoded is not None and decoded.stored(offset):
                at = offset - decoded.first
                both[key] = (decoded.codes.code(at), decoded.extra.code(at))
        return both

    def load(self, fetch_many: FetchMany, table: BlocksTable, wanted: Sequence[int]) -> None:
        """Read the blocks of wanted keys that are not cached in one query (a query ranking
        a position's moves wants a block for nearly every move) and cache them.

        :raises ValueError: if a block is damaged.
        """
        place = table.blocking.place
        missing = sorted({block for block in {place(key)[0] for key in wanted} if (table.name, block) not in self._blocks})
        if not missing:
            return
        stored = _decoded_rows(fetch_many(missing), table.form)
        for number in missing:
            self._keep(table.name, number, stored.get(number))

    def _hit(self, name: str, block: int) -> DecodedBlock | None | object:
        """The cached block ``block`` of the table named ``name``, marked recently used,
        or :data:`MISSING`."""
        decoded = self._blocks.get((name, block), MISSING)
        if decoded is not MISSING:
            self._blocks.move_to_end((name, block))
        return decoded

    def _stored(self, fetch: Fetch, table: BlocksTable, wanted: Sequence[int]) -> Iterator[tuple[int, DecodedBlock, int]]:
        """``(key, its decoded block, its offset from the block's first)`` of each wanted
        key that is stored, the blocks from the cache or ``fetch``."""
        place = table.blocking.place
        for key in wanted:
            block, offset = place(key)
            decoded = self._block(fetch, table, block)
            if decoded is not None and decoded.stored(offset):
                yield key, decoded, offset - decoded.first

    def probe_array(
        self, fetch_many: FetchMany, table: BlocksTable, keys: np.ndarray, extra: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """:meth:`probe` of int64[n] keys at once, block by block, each block read once,
        :data:`FETCHED_AT_ONCE` in a query (and left out of the cache, which a sweep
        would only churn, unless at most :data:`KEPT_UP_TO`): ``(found, codes, extra
        codes)``, bool[n], int64[n] and int64[n] or None without ``extra`` (codes 0
        where not found).

        :raises ValueError: if a block is damaged.
        """
        keys = np.asarray(keys, dtype=np.int64)
        form = table.form
        found = np.zeros(len(keys), dtype=bool)
        codes = np.zeros(len(keys), dtype=np.int64)
        beside = np.zeros(len(keys), dtype=np.int64) if extra else None
        numbers, slots = table.blocking.place(keys)
        order = np.argsort(numbers, kind="stable")
        groups = np.split(order, np.flatnonzero(np.diff(numbers[order])) + 1) if len(keys) else []
        for start in range(0, len(groups), FETCHED_AT_ONCE):
            chosen = groups[start : start + FETCHED_AT_ONCE]
            wanted = [int(numbers[these[0]]) for these in chosen]
            blocks = {number: self._blocks.get((table.name, number)) for number in wanted}
            missing = [number for number, decoded in blocks.items() if decoded is None]
            blocks.update(_decoded_rows(fetch_many(missing), form))
            if len(groups) <= KEPT_UP_TO:
                for number in missing:
                    self._keep(table.name, number, blocks[number])
            for these, number in zip(chosen, wanted):
                self._found_in(blocks[number], slots, these, (found, codes, beside))
        if beside is not None and form.draw_extra is not None:  # the draws' extra codes put back at once, not block by block
            beside[found & drawn(codes)] = form.draw_extra
        return found, codes, beside

    @staticmethod
    def _found_in(decoded: DecodedBlock | None, slots: np.ndarray, these: np.ndarray, into: tuple[np.ndarray, ...]) -> None:
        """Fill ``into`` (found, codes, extra codes or None) at the indices ``these`` of
        keys of one block, whose slots are ``slots[these]``, from the decoded block (None:
        it holds no key); the extra codes as stored (a draw's left for the caller to put
        back: :class:`DrawsPutBack`)."""
        found, codes, beside = into
        if decoded is not None:
            offsets = slots[these] - decoded.first
            hit = decoded.stored_many(offsets)
            found[these] = hit
            codes[these[hit]] = decoded.codes.codes(offsets[hit])
            if beside is not None:
                beside[these[hit]] = decoded.column("extra").stored_codes(offsets[hit])

    def _block(self, fetch: Fetch, table: BlocksTable, block: int) -> DecodedBlock | None:
        """A block with every column decoded (a probe of values is followed by one of
        DTZ), cached; None for a block that holds no stored key."""
        decoded = self._hit(table.name, block)
        if decoded is not MISSING:
            return decoded  # type: ignore[return-value]
        stored = fetch(block)
        decoded = None if stored is None else _decoded_alone(stored, table.form, block)
        self._keep(table.name, block, decoded)
        return decoded

    def _keep(self, name: str, block: int, decoded: DecodedBlock | None) -> None:
        """Cache a decoded block (None: it holds no stored key), the least recently used
        ones dropped beyond the keys the reader keeps."""
        self._blocks[name, block] = decoded
        self._cached += 1 if decoded is None else decoded.length
        while self._cached > self._most:
            dropped = self._blocks.popitem(last=False)[1]
            self._cached -= 1 if dropped is None else dropped.length


READ_STAND_IN = "blocks_read_stand_in"
"""The name of the table that :data:`BLOCK_QUERY` and :data:`BLOCKS_IN_QUERY` read: a store
compiles each once for its dialect and puts a tablebase's table's name in this one's
place in their SQL text (compiling them for each table cost a third of a millisecond of
an ending's first probe)."""

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


def block_parts(rows: Iterable[Sequence[Any]], blocking: Blocking = BY_KEY, form: BlockFormat = PLAIN) -> Iterator[tuple[np.ndarray, ...]]:
    """``(keys, codes)`` or, for rows with extra codes, ``(keys, codes, extra)``, int64[m]
    each, ascending by key, of the rows of :func:`blocks_query` in the format ``form``:
    a part a span of keys (:attr:`Blocking.span`), its blocks' keys merged.

    :raises ValueError: if a block is damaged.
    """
    span, parts = None, []
    for number, present, codes, *extra in rows:
        decoded = decode_block(present, codes, *extra, form=form, dtm_left_out=form.leaves_dtm_out(number))
        offsets = decoded.present()
        keys = blocking.keys(number, decoded.first + offsets)
        if parts and keys[0] // blocking.span != span:
            yield _merged(parts)
            parts = []
        span = keys[0] // blocking.span
        parts.append([keys, decoded.codes.codes(offsets)] + ([decoded.column("extra").codes(offsets)] if extra else []))
    if parts:
        yield _merged(parts)


def _merged(parts: list[list[np.ndarray]]) -> tuple[np.ndarray, ...]:
    """The columns of a span's blocks, ascending by key."""
    if len(parts) == 1:
        return tuple(parts[0])
    columns = [np.concatenate(column) for column in zip(*parts)]
    order = np.argsort(columns[0], kind="stable")
    return tuple(column[order] for column in columns)
