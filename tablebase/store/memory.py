"""glibc's malloc told to keep the memory that decoded blocks free, for the next ones.

A batch probe decodes a few hundred blocks at a time (:data:`~tablebase.store.blocks.FETCHED_AT_ONCE`,
128 KiB each in chess) and frees them before decoding the next. By default glibc gives
freed memory at the top of its heap back to the system as soon as more than 128 KiB of it
is free, so every batch of blocks was decoded into pages the kernel had to fault in and
zero again: KRBvKR's random keys spent much of their time in page faults. Kept, they take
a fraction of the faults and run faster (``benchmarks/probe.py``'s ``probe_keys`` from a
fresh process, benchmarks/RESULTS.md).
"""

from __future__ import annotations

import ctypes
import functools
import sys

M_TRIM_THRESHOLD = -1
"""``mallopt``'s parameter: the free bytes at the top of the heap above which glibc gives
them back (128 KiB by default, raised by glibc itself only as it sees large blocks freed)."""

M_MMAP_THRESHOLD = -3
"""``mallopt``'s parameter: the size from which an allocation gets pages of its own,
given back when it is freed (128 KiB by default)."""

KEPT_BYTES = 64 << 20
"""Free bytes glibc keeps at the top of its heap: two batches of chess blocks (32 MiB each)."""

OWN_PAGES_BYTES = 4 << 20
"""Allocations of at least this many bytes get pages of their own: a block's blobs
(about 66 KiB, or twice that with uint16 symbols) come from the heap, and are reused."""


@functools.cache
def keep_freed_memory() -> bool:
    """Tell glibc's malloc, once a process, to keep :data:`KEPT_BYTES` of freed memory
    and to serve allocations below :data:`OWN_PAGES_BYTES` from its heap (``mallopt``;
    it then no longer moves either bound by itself).

    :returns: whether glibc took both settings (False with another C library: musl,
        macOS's, Windows').
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)  # the C library this process runs on
        libc.gnu_get_libc_version  # noqa: B018 - only glibc has it
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, OWN_PAGES_BYTES)) and bool(mallopt(M_TRIM_THRESHOLD, KEPT_BYTES))
