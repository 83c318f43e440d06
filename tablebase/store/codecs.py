"""The compressors of the blocks layouts' blobs: zstd, which builds write by default, and
xz (LZMA2), which keeps chess's DTM and DTZ markedly smaller, but encodes a block many
times slower and decodes it several times slower (``benchmarks/disk.py``,
``benchmarks/disk_codecs.py``, benchmarks/RESULTS.md).

Both come from well-kept libraries: ``zstandard`` (Y. Collet's Zstandard, RFC 8878) and
Python's own ``lzma`` (I. Pavlov's LZMA2, through liblzma of XZ Utils), whose raw LZMA2
streams carry no container: a blob is the stream alone, its settings those of its codec.
"""

from __future__ import annotations

import lzma
import threading
from abc import ABC, abstractmethod
from typing import Any

import zstandard

from tablebase.core.errors import UsageError


class Codec(ABC):
    """One way of compressing a blob: its name, its levels and its default level.

    :ivar name: the name a user gives (``--codec``).
    :ivar levels: the levels it accepts (``--level``).
    :ivar default_level: the level of a writer given none.
    """

    name: str
    levels: range
    default_level: int
    decodes_slowly = False
    """Whether a block read alone is worth decoding a blob a thread: so xz's KRBvKR
    blocks (values and DTZ) decode sooner, zstd's later (benchmarks/RESULTS.md)."""
    _error: type[Exception]
    """What the library raises for a damaged stream."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        """Pickled by name, unpickled as the same codec (a cluster's workers, a forked
        query worker's arguments)."""
        return codec_named, (self.name,)

    def compress(self, data: bytes, level: int | None = None) -> bytes:
        """``data`` compressed at ``level`` (one of :attr:`levels`; None: :attr:`default_level`)."""
        return self._compressed(data, self.default_level if level is None else level)

    @abstractmethod
    def _compressed(self, data: bytes, level: int) -> bytes:
        """:meth:`compress` at a level of :attr:`levels`."""

    def decompress(self, blob: bytes | memoryview) -> bytes:
        """Inverse of :meth:`compress`.

        :raises ValueError: for a blob that is not one whole compressed stream.
        """
        stream = self._stream()
        try:
            data = stream.decompress(blob)
        except self._error as error:
            raise ValueError(f"damaged block: {error}") from None
        if not stream.eof or stream.unused_data:
            raise ValueError(f"damaged block: not one whole {self.name} stream")
        return data

    @abstractmethod
    def _stream(self) -> Any:
        """A new decompressor of one stream, with ``decompress``, ``eof`` and
        ``unused_data`` (the bytes after the stream)."""


class _ZstdPerThread(threading.local):
    """zstd's compressors (one a level) and decompressor, per thread, each made once
    (making one costs as much as decoding a block)."""

    def __init__(self) -> None:
        self.compressors: dict[int, zstandard.ZstdCompressor] = {}
        self.decompressor = zstandard.ZstdDecompressor()


class Zstd(Codec):
    """One zstd frame a blob."""

    name = "zstd"
    levels = range(1, 23)
    default_level = 9
    """Higher levels keep chess a little smaller and take several times as long to write
    (``db repack --level`` compacts a built database; benchmarks/RESULTS.md)."""

    def __init__(self) -> None:
        self._threads = _ZstdPerThread()

    def _compressed(self, data: bytes, level: int) -> bytes:
        compressor = self._threads.compressors.get(level)
        if compressor is None:
            compressor = self._threads.compressors[level] = zstandard.ZstdCompressor(level=level)
        return compressor.compress(data)

    _error = zstandard.ZstdError

    def _stream(self) -> Any:
        return self._threads.decompressor.decompressobj()


XZ_DICTIONARY = 1 << 20
"""LZMA2's dictionary in bytes: more than the largest blob's data (a block of 2^16 uint32
symbols and as many distinct int64 codes: 786,436 bytes), so no match is out of reach."""


class Xz(Codec):
    """One raw LZMA2 stream a blob, at xz's preset ``level`` with literals coded without
    position bits (``pb=0``: symbols are bytes, not aligned words) and the longest match
    search (``nice_len=273``), which keep KRBvKR's DTZ smaller than the preset alone
    (benchmarks/RESULTS.md)."""

    name = "xz"
    levels = range(0, 10)
    default_level = 6
    decodes_slowly = True

    def _compressed(self, data: bytes, level: int) -> bytes:
        filters = [{"id": lzma.FILTER_LZMA2, "preset": level, "pb": 0, "nice_len": 273, "dict_size": XZ_DICTIONARY}]
        return lzma.compress(data, format=lzma.FORMAT_RAW, filters=filters)

    _error = lzma.LZMAError

    def _stream(self) -> Any:
        return lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA2, "dict_size": XZ_DICTIONARY}])


ZSTD = Zstd()
XZ = Xz()
CODECS = {codec.name: codec for codec in (ZSTD, XZ)}
"""The codecs by name."""


def codec_named(name: str) -> Codec:
    """The codec called ``name``.

    :raises UsageError: for a name not in :data:`CODECS`.
    """
    try:
        return CODECS[name]
    except KeyError:
        raise UsageError(f"unknown codec {name!r}; choose one of {', '.join(CODECS)}") from None


def checked_level(codec: Codec, level: int | None) -> int:
    """``level``, or the codec's default where it is None.

    :raises UsageError: for a level the codec does not have.
    """
    if level is None:
        return codec.default_level
    if level not in codec.levels:
        raise UsageError(f"{codec.name}'s compression level must be {codec.levels.start} to {codec.levels.stop - 1}, not {level}")
    return level
