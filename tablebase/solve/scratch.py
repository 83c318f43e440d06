"""Scratch space on disk: arrays a build sets aside between its passes, so that its memory
holds only the pass at work.

A :class:`Scratch` is one temporary file, unlinked as soon as it is made
(:func:`tempfile.TemporaryFile`, in ``$TMPDIR``): the operating system frees it when the
build's process ends, however it ends. Arrays are written to it whole and read back a
slice at a time with ``pread`` into a fresh array, so a slice costs memory only while it
is held (the file's pages stay in the page cache, not in the process).
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

CHUNK_BYTES = 1 << 26
"""Bytes written or read in one system call."""


class Spilled:
    """An array held in a :class:`Scratch` file: ``len``, ``dtype``, and slices read on
    demand (``spilled[start:stop]``, a new array) or :meth:`load` for the whole."""

    def __init__(self, scratch: Scratch, offset: int, dtype: np.dtype, length: int) -> None:
        self._scratch = scratch  # the file stays open while the array is held
        self._fd, self._offset, self.dtype, self._length = scratch.fileno(), offset, dtype, length

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, part: slice) -> np.ndarray:
        start, stop, step = part.indices(self._length)
        if step != 1:
            raise ValueError("a spilled array is read in contiguous slices")
        values = np.empty(max(stop - start, 0), dtype=self.dtype)
        view = memoryview(values.view(np.uint8))
        done, at = 0, self._offset + start * self.dtype.itemsize
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
        _write_all(self._fd, np.ascontiguousarray(values, dtype=self.dtype), self._offset + start * self.dtype.itemsize)


class Scratch:
    """One unlinked temporary file that arrays are spilled to (:meth:`put`); a context
    manager that closes it, else closed when neither it nor an array spilled to it is
    held any more. :raises OSError: if the disk is full."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="tablebase-")
        self._end = 0

    def put(self, values: np.ndarray, chunk: int = 1 << 24) -> Spilled:
        """Write ``values`` (any 1-d array, strided views included, ``chunk`` elements
        at a time) and return where it lies."""
        offset = self._end
        for start in range(0, len(values), chunk):
            part = np.ascontiguousarray(values[start : start + chunk])
            _write_all(self.fileno(), part, self._end)
            self._end += part.nbytes
        return Spilled(self, offset, np.dtype(values.dtype), len(values))

    def reserve(self, dtype: np.dtype, length: int) -> Spilled:
        """Room for an array of ``length`` elements, all bytes zero until written
        (:meth:`Spilled.write`), taking no disk until then."""
        offset, self._end = self._end, self._end + length * np.dtype(dtype).itemsize
        os.ftruncate(self.fileno(), self._end)
        return Spilled(self, offset, np.dtype(dtype), length)

    def fileno(self) -> int:
        """The file's descriptor."""
        return self._file.fileno()

    def close(self) -> None:
        """Drop the file and everything spilled to it."""
        self._file.close()

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _write_all(fd: int, values: np.ndarray, at: int) -> None:
    """Write the bytes of the contiguous array ``values`` at offset ``at`` of ``fd``."""
    data = memoryview(values.view(np.uint8))
    done = 0
    while done < len(data):
        done += os.pwrite(fd, data[done : done + CHUNK_BYTES], at + done)
