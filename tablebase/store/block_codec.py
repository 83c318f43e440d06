"""One block's blobs of the blocks layouts (:mod:`~tablebase.store.blocks`), encoded and
decoded: a codes blob's symbol table and symbols, the bitmap of stored slots, a draw's
DTZ left out and put back, a side whose DTM is left out, and the blocks of a whole
table decoded into parts in key order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np

from tablebase.store.blocks import BY_KEY, GAP, MATED, PLAIN, BlockFormat, Blocking
from tablebase.store.codecs import ZSTD, Codec
from tablebase.store.packed import codes_to_derive, drawn, extra_codes, extra_values, value_codes

_SYMBOL_TYPES = (np.dtype("<u1"), np.dtype("<u2"), np.dtype("<u4"))
_COUNT = np.dtype("<u4")
_CODE = np.dtype("<i8")
_MATED_VALUE = int(value_codes(np.array([-1]), np.array([0]))[0])
"""The value code of a mated side to move."""
_ZERO_DTZ = int(extra_codes(np.zeros(1, dtype=np.int64))[0])
"""The extra code of DTZ 0."""

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
    :data:`~tablebase.store.blocks.GAP`), n >= 1, each repeated ``runs[i]`` times where int[n] ``runs`` is given
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
    codec's default): a slot without a stored key takes the value code :data:`~tablebase.store.blocks.GAP` or
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
    """The symbol of :data:`~tablebase.store.blocks.GAP` among ``codes`` (-1: none)."""

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
    (:meth:`~tablebase.store.blocks.BlockFormat.leaves_dtm_out`).

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



def block_parts(rows: Iterable[Sequence[Any]], blocking: Blocking = BY_KEY, form: BlockFormat = PLAIN) -> Iterator[tuple[np.ndarray, ...]]:
    """``(keys, codes)`` or, for rows with extra codes, ``(keys, codes, extra)``, int64[m]
    each, ascending by key, of the rows of :func:`~tablebase.store.blocks.blocks_query` in the format ``form``:
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
