"""Scratch space on disk: arrays a build sets aside between its passes, so that its memory
holds only the pass at work.

A :class:`Scratch` is one temporary file, unlinked as soon as it is made
(:func:`tempfile.TemporaryFile`, in ``$TMPDIR``): the operating system frees it when the
build's process ends, however it ends. Arrays are written to it whole and read back a
slice at a time with ``pread`` into a fresh array, so a slice costs memory only while it
is held.

An array of :data:`DIRECT_BYTES` or more goes around the page cache (``O_DIRECT``, where
the file system takes it), through a small aligned buffer both ways: it is written once
and read once, so caching it only takes memory, and on a virtual machine that hands
freed memory back to its host (as this project's build machine does) the page cache's
fresh pages cost more than the disk: KRBvKR's survey spills several times faster this
way than through the cache (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import errno
import os
import tempfile
import weakref

import numpy as np

CHUNK_BYTES = 1 << 26
"""Bytes written or read in one system call."""

DIRECT_BYTES = 1 << 24
"""The smallest array written around the page cache."""

ALIGN = 4096
"""The alignment of direct reads and writes: their offsets, lengths and buffers."""


class Spilled:
    """An array held in a :class:`Scratch` file: ``len``, ``dtype``, and slices read on
    demand (``spilled[start:stop]``, a new array) or :meth:`load` for the whole."""

    def __init__(self, scratch: Scratch, offset: int, dtype: np.dtype, length: int, direct: bool = False) -> None:
        self._scratch = scratch  # the file stays open while the array is held
        self._fd, self._offset, self.dtype, self._length = scratch.fileno(), offset, dtype, length
        self._direct = direct  # written around the page cache, and so read

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, part: slice) -> np.ndarray:
        start, stop, step = part.indices(self._length)
        if step != 1:
            raise ValueError("a spilled array is read in contiguous slices")
        values = np.empty(max(stop - start, 0), dtype=self.dtype)
        at = self._offset + start * self.dtype.itemsize
        if self._direct:
            self._scratch.read_direct(values.view(np.uint8), at)
            return values
        view = memoryview(values.view(np.uint8))
        done = 0
        while done < len(view):
            read = os.preadv(self._fd, [view[done : done + CHUNK_BYTES]], at + done)
            if read <= 0:
                raise OSError("a scratch file ended early")
            done += read
        return values

    def load(self) -> np.ndarray:
        """The whole array, read back into memory."""
        return self[:]

    def write(self, start: int, values: np.ndarray) -> None:
        """Write ``values`` (of this array's dtype) over its elements from ``start`` on.

        :raises ValueError: if they run past its end.
        """
        if start < 0 or start + len(values) > self._length:
            raise ValueError("a write past the end of a spilled array")
        values = np.ascontiguousarray(values, dtype=self.dtype)
        at = self._offset + start * self.dtype.itemsize
        if not (self._direct and self._scratch.write_direct(values.view(np.uint8), at)):
            _write_all(self._fd, values, at)


class Scratch:
    """One unlinked temporary file that arrays are spilled to (:meth:`put`); a context
    manager that closes it, else closed when neither it nor an array spilled to it is
    held any more. :raises OSError: if the disk is full."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="tablebase-")
        self._end = 0
        self._direct: int | None = None  # the file opened again with O_DIRECT, for writes
        if hasattr(os, "O_DIRECT"):
            try:
                self._direct = os.open(f"/proc/self/fd/{self.fileno()}", os.O_RDWR | os.O_DIRECT)
            except OSError:  # no /proc, or a file system without direct I/O (tmpfs)
                pass
        self._reads = self._direct  # stays open for the arrays written so
        self._buffer = _aligned(0)  # the aligned buffer of write_direct, grown as needed
        self._close_reads = weakref.finalize(self, os.close, self._reads) if self._reads is not None else None

    def put(self, values: np.ndarray, chunk: int = 1 << 24) -> Spilled:
        """Write ``values`` (any 1-d array, strided views included, ``chunk`` elements
        at a time) and return where it lies.

        :raises OSError: if the disk is full."""
        dtype = np.dtype(values.dtype)
        if self._direct is not None and len(values) * dtype.itemsize >= DIRECT_BYTES:
            try:
                return self._put_direct(values, dtype)
            except OSError as error:
                if error.errno != errno.EINVAL:
                    raise
                self._direct = None  # direct writes refused after all: through the cache
        offset = self._end
        for start in range(0, len(values), chunk):
            part = np.ascontiguousarray(values[start : start + chunk])
            _write_all(self.fileno(), part, self._end)
            self._end += part.nbytes
        return Spilled(self, offset, dtype, len(values))

    def _put_direct(self, values: np.ndarray, dtype: np.dtype) -> Spilled:
        """:meth:`put` around the page cache: from an aligned offset, a buffer's worth at
        a time, the last one padded to :data:`ALIGN`."""
        assert self._direct is not None
        offset = -(-self._end // ALIGN) * ALIGN
        buffer = _aligned(CHUNK_BYTES)
        per = CHUNK_BYTES // dtype.itemsize // ALIGN * ALIGN  # a whole number of aligned blocks a write
        for start in range(0, len(values), per):
            part = values[start : start + per]
            size = len(part) * dtype.itemsize
            if part.flags.c_contiguous:  # as bytes: numpy copies structured records one at a time
                buffer[:size] = part.view(np.uint8)
            else:
                buffer[:size].view(dtype)[:] = part
            padded = -(-size // ALIGN) * ALIGN
            _write_all(self._direct, buffer[:padded], offset + start * dtype.itemsize)
        self._end = offset + len(values) * dtype.itemsize
        return Spilled(self, offset, dtype, len(values), direct=True)

    def read_direct(self, into: np.ndarray, at: int) -> None:
        """Fill uint8[k] ``into`` with the bytes from offset ``at`` on, read around the
        page cache (aligned reads a buffer's worth at a time).

        :raises OSError: if the file ends early."""
        assert self._reads is not None
        buffer = _aligned(min(CHUNK_BYTES, -(-(len(into) + ALIGN) // ALIGN) * ALIGN))
        done = 0
        while done < len(into):
            first = (at + done) // ALIGN * ALIGN
            skip = at + done - first
            want = min(len(buffer), -(-(skip + len(into) - done) // ALIGN) * ALIGN)
            read = os.preadv(self._reads, [memoryview(buffer[:want])], first)
            if read <= skip:
                raise OSError("a scratch file ended early")
            got = min(read - skip, len(into) - done)
            into[done : done + got] = buffer[skip : skip + got]
            done += got

    def write_direct(self, data: np.ndarray, at: int) -> bool:
        """Write uint8[k] ``data`` at offset ``at`` around the page cache, through an
        aligned buffer kept for the next call; ``False`` (nothing written) where there
        is nothing to write, the offset or length is not aligned (:data:`ALIGN`) or the
        file system refuses.

        :raises OSError: if the disk is full."""
        if self._direct is None or not len(data) or at % ALIGN or len(data) % ALIGN:
            return False
        if len(self._buffer) < min(len(data), CHUNK_BYTES):
            self._buffer = _aligned(min(len(data), CHUNK_BYTES))
        for done in range(0, len(data), len(self._buffer)):
            part = data[done : done + len(self._buffer)]
            self._buffer[: len(part)] = part
            try:
                _write_all(self._direct, self._buffer[: len(part)], at + done)
            except OSError as error:
                if error.errno != errno.EINVAL or done:
                    raise
                self._direct = None
                return False
        return True

    def reserve(self, dtype: np.dtype, length: int) -> Spilled:
        """Room for an array of ``length`` elements, all bytes zero until written
        (:meth:`Spilled.write`), taking no disk until then; its aligned writes go around
        the page cache (:meth:`write_direct`), where the file allows."""
        direct = self._reads is not None
        offset = -(-self._end // ALIGN) * ALIGN if direct else self._end
        self._end = offset + length * np.dtype(dtype).itemsize
        os.ftruncate(self.fileno(), self._end)
        return Spilled(self, offset, np.dtype(dtype), length, direct=direct)

    def fileno(self) -> int:
        """The file's descriptor."""
        return self._file.fileno()

    def close(self) -> None:
        """Drop the file and everything spilled to it."""
        if self._close_reads is not None:
            self._close_reads()
            self._reads = self._direct = None
        self._file.close()

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _aligned(size: int) -> np.ndarray:
    """uint8[size] whose first byte lies on an :data:`ALIGN` boundary."""
    raw = np.empty(size + ALIGN, dtype=np.uint8)
    skip = -raw.ctypes.data % ALIGN
    return raw[skip : skip + size]


def _write_all(fd: int, values: np.ndarray, at: int) -> None:
    """Write the bytes of the contiguous array ``values`` at offset ``at`` of ``fd``."""
    data = memoryview(values.view(np.uint8))
    done = 0
    while done < len(data):
        done += os.pwrite(fd, data[done : done + CHUNK_BYTES], at + done)
