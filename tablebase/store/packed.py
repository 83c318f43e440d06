"""The packed storage layout: a tablebase's values in compressed chunks of positions.

A tablebase is stored as rows of ``chunks_<id>``, each holding up to
:data:`CHUNK_POSITIONS` consecutive positions (in key order):

- ``first_key``: the chunk's smallest key, its primary key;
- ``key_deltas``: the differences between consecutive keys of the chunk;
- ``codes``: one value code per position (:func:`~tablebase.core.values.value_code`:
  ``(remoteness + 1) * 3 + outcome + 1``, remoteness -1 standing for none).

Both are arrays of the narrowest unsigned integer type that holds them, stored as one
byte giving the width, then the zlib-compressed array. Chess tablebases keep their keys
in far less than their values, and both in a fraction of the row layout's bytes
(benchmarks/RESULTS.md). A point probe finds the chunk among the cached first
keys, then decodes it once; decoded chunks are kept in a small LRU cache.
"""

from __future__ import annotations

import functools
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import sqlalchemy as sa

from tablebase.core.values import CODE_TAGS, DRAW, LOSS, TO_DERIVE, code_remoteness, value_code, value_outcome
from tablebase.store.schema import KEY_TYPE

CHUNK_POSITIONS = 1 << 12
"""Positions per chunk: small enough that decoding one for a probe takes microseconds."""

CACHED_POSITIONS = 1 << 22
"""Positions of decoded chunks kept for later probes, at about 9 bytes each (36 MiB)."""

_COMPRESSION_LEVEL = 1  # levels above 1 shrink chess chunks a little and cost several times the time
_WIDTHS = (np.uint8, np.uint16, np.uint32, np.uint64)


@functools.lru_cache(maxsize=256)
def chunks_table(name: str) -> sa.Table:
    """The chunks table of one tablebase, in a metadata of its own (see the module
    docstring); the same object for the same name, as SQLAlchemy's statement cache wants."""
    return sa.Table(
        name,
        sa.MetaData(),
        sa.Column("first_key", KEY_TYPE, primary_key=True, autoincrement=False),
        sa.Column("key_deltas", sa.LargeBinary, nullable=False),
        sa.Column("codes", sa.LargeBinary, nullable=False),
    )


def pack_array(values: np.ndarray) -> bytes:
    """A non-negative integer array as one width byte and its compressed bytes, in the
    narrowest of uint8/16/32/64 that holds its largest value."""
    top = int(values.max()) if len(values) else 0
    dtype = next(d for d in _WIDTHS if top <= np.iinfo(d).max)
    data = np.ascontiguousarray(values, dtype=np.dtype(dtype).newbyteorder("<"))
    return bytes([data.itemsize]) + zlib.compress(data.tobytes(), _COMPRESSION_LEVEL)


def unpack_array(blob: bytes | memoryview) -> np.ndarray:
    """Inverse of :func:`pack_array`: a read-only uint8/16/32/64[n], the width it was stored in.

    :raises ValueError: if the blob is not one :func:`pack_array` made (zlib's
        ``zlib.error`` for bad compressed data).
    """
    blob = memoryview(blob)
    if not len(blob) or blob[0] not in (1, 2, 4, 8):
        raise ValueError("not a packed array: bad width byte")
    return np.frombuffer(zlib.decompress(blob[1:]), dtype=np.dtype(f"<u{blob[0]}"))


def encode_codes(keys: np.ndarray, codes: np.ndarray) -> tuple[int, bytes, bytes]:
    """One chunk's row ``(first_key, key_deltas, codes)`` from int64[n] ascending keys
    (n >= 1) and non-negative int[n] codes."""
    return int(keys[0]), pack_array(np.diff(keys)), pack_array(codes)


def value_codes(outcome: np.ndarray, remoteness: np.ndarray) -> np.ndarray:
    """int64[n] value codes of int8[n] outcomes and int32[n] remoteness (plies; negative for none)."""
    codes = np.maximum(remoteness, -1, dtype=np.int64)  # in place from here: a large write's time
    codes += 1
    codes *= CODE_TAGS
    codes += outcome
    codes -= LOSS
    return codes


def codes_to_derive(outcome: np.ndarray) -> np.ndarray:
    """int64[n] value codes of int8[n] outcomes whose remoteness is :data:`TO_DERIVE`:
    negative, below every code of :func:`value_codes`, and with its outcome and draws
    where :func:`split_codes` and :func:`drawn` find them."""
    return value_code(np.asarray(outcome, dtype=np.int64), TO_DERIVE)


def drawn(codes: np.ndarray) -> np.ndarray:
    """bool[n]: which of int64[n] value codes (:func:`value_codes`) are draws."""
    return value_outcome(codes) == DRAW


def split_codes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`value_codes`: int8[n] outcomes and int32[n] remoteness (-1 for none)."""
    codes = np.asarray(codes, dtype=np.int64)
    return value_outcome(codes).astype(np.int8), code_remoteness(codes).astype(np.int32)


def decode_codes(first_key: int, key_deltas: bytes | memoryview, codes: bytes | memoryview) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`encode_codes`: int64[n] keys and unsigned [n] codes.

    :raises ValueError: if the blobs are damaged or disagree in length.
    """
    deltas, values = unpack_array(key_deltas), unpack_array(codes)
    if len(values) != len(deltas) + 1:
        raise ValueError("damaged chunk: keys and values differ in number")
    keys = np.empty(len(values), dtype=np.int64)
    keys[0] = first_key
    np.cumsum(deltas, dtype=np.int64, out=keys[1:])
    keys[1:] += first_key
    return keys, values


def extra_codes(values: np.ndarray, known: np.ndarray | None = None) -> np.ndarray:
    """int64[n] codes of Grundy values or scores: ``zigzag(value) + 1`` (0, 1, -1, 2, ...
    become 1, 3, 2, 5, ...), and 0 where ``known`` (bool[n]) is false."""
    codes = np.array(values, dtype=np.int64)  # in place from here: a large write's time
    signs = codes >> 63
    codes <<= 1
    codes ^= signs  # 2v for v >= 0, -2v - 1 below
    codes += 1
    return codes if known is None else np.where(known, codes, 0)


def extra_values(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`extra_codes`: ``(values, known)``, int64[n] and bool[n]."""
    zigzag = np.asarray(codes, dtype=np.int64) - 1
    return np.where(zigzag % 2 == 0, zigzag // 2, -(zigzag + 1) // 2), codes > 0


def extra_value_of(code: int) -> int | None:
    """The Grundy value, score or DTZ of one extra code (:func:`extra_codes`), or None."""
    zigzag = code - 1
    return None if code <= 0 else (zigzag // 2 if zigzag % 2 == 0 else -(zigzag + 1) // 2)


def value_of(code: int) -> tuple[int, int | None]:
    """``(outcome, remoteness or None)`` of one value code, the remoteness
    :data:`TO_DERIVE` of a code of :func:`codes_to_derive`."""
    remoteness = code_remoteness(code)
    return value_outcome(code), (remoteness if remoteness >= 0 or remoteness == TO_DERIVE else None)


def encode_chunks(keys: np.ndarray, codes: np.ndarray) -> Iterator[tuple[int, bytes, bytes]]:
    """The rows of consecutive chunks of :data:`CHUNK_POSITIONS` positions (the last
    one shorter), from arrays as :func:`encode_codes` takes them."""
    for start in range(0, len(keys), CHUNK_POSITIONS):
        part = slice(start, start + CHUNK_POSITIONS)
        yield encode_codes(keys[part], codes[part])


def join_chunks(rows: Iterator[Sequence[Any]]) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, codes)``, int64[n] each, of every ``(first_key, key_deltas, codes)`` row, in key order."""
    return join_parts(decode_codes(*row) for row in rows)


def join_parts(parts: Iterable[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, codes)``, int64[n] each, of ``(keys, codes)`` parts in key order."""
    parts = list(parts)
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate([k for k, _c in parts]), np.concatenate([c for _k, c in parts]).astype(np.int64)


class ChunkReader:
    """Point probes of packed tablebases over one connection, with cached chunks.

    Stored chunks never change (a rebuild writes a table of another name), so what is
    cached stays valid for as long as the table exists.
    """

    def __init__(self) -> None:
        self._first_keys: dict[str, np.ndarray] = {}
        self._chunks: OrderedDict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._cached = 0  # positions in self._chunks

    def probe(self, connection: sa.Connection, table: sa.Table, wanted: Sequence[int]) -> dict[int, int]:
        """The stored code of each wanted key that is there.

        :raises ValueError: if a chunk is damaged.
        """
        if table.name not in self._first_keys:
            query = sa.select(table.c.first_key).order_by(table.c.first_key)
            self._first_keys[table.name] = np.array(connection.execute(query).scalars().all(), dtype=np.int64)
        first_keys = self._first_keys[table.name]
        found: dict[int, int] = {}
        chunk_of = np.searchsorted(first_keys, np.array(wanted, dtype=np.int64), side="right") - 1
        for key, chunk in zip(wanted, chunk_of.tolist()):
            if chunk < 0:
                continue
            keys, codes = self._chunk(connection, table, int(first_keys[chunk]))
            at = int(np.searchsorted(keys, key))
            if at < len(keys) and keys[at] == key:
                found[key] = int(codes[at])
        return found

    def _chunk(self, connection: sa.Connection, table: sa.Table, first_key: int) -> tuple[np.ndarray, np.ndarray]:
        cached = (table.name, first_key)
        if cached in self._chunks:
            self._chunks.move_to_end(cached)
            return self._chunks[cached]
        decoded = decode_codes(*connection.execute(_chunk_query(table), {"first_key": first_key}).one())
        self._chunks[cached] = decoded
        self._cached += len(decoded[0])
        while self._cached > CACHED_POSITIONS:
            self._cached -= len(self._chunks.popitem(last=False)[1][0])
        return decoded


@functools.lru_cache(maxsize=256)
def _chunk_query(table: sa.Table) -> sa.Select[Any]:
    """The query of one chunk of ``table`` by its first key (built once per table)."""
    columns = (table.c.first_key, table.c.key_deltas, table.c.codes)
    return sa.select(*columns).where(table.c.first_key == sa.bindparam("first_key"))
