"""Large arrays on transparent huge pages, for the passes that read and write them at
random (the one-byte pass's codes).

A pass over a table of gigabytes touches a random key at every move and un-move; on
4 KiB pages nearly each touch misses the TLB and walks page tables that do not fit in the
cache themselves. Linux backs an anonymous mapping with 2 MiB pages where it is advised
to (``madvise(MADV_HUGEPAGE)``; the kernel's default ``transparent_hugepage`` setting
``madvise`` honours only advised mappings), as the Syzygy generator allocates its tables
(R. de Man, syzygy1/tb ``util.c``, ``alloc_huge``).
"""

from __future__ import annotations

import mmap

import numpy as np

HUGE_PAGE = 2 << 20
"""Bytes of a huge page on x86-64 and arm64 (4 KiB base pages)."""


def huge_zeros(count: int, dtype: np.dtype | type = np.uint8) -> np.ndarray:
    """A zeroed array of ``count`` elements of ``dtype`` (shape ``(count,)``), its
    memory an anonymous mapping (zero pages until written) advised to huge pages where
    the platform has them (elsewhere plain pages: the advice is a hint, never an error).
    The memory goes back to the system when the array and its views are collected.

    :raises MemoryError: if the mapping cannot be made.
    """
    dtype = np.dtype(dtype)
    size = max(count * dtype.itemsize, 1)
    try:
        area = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except OSError as error:
        raise MemoryError(f"cannot map {size:,} bytes: {error.strerror}") from None
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is not None and size >= HUGE_PAGE:
        try:
            area.madvise(advice)
        except OSError:
            pass  # a kernel without transparent huge pages: plain pages do
    return np.frombuffer(area, dtype=dtype, count=count)
