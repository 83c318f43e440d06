"""The threads that encode the blocks of a write and decode those of a read side by
side (:mod:`~tablebase.store.block_codec`), one a core, and whether a process that
shares its cores with other readers decodes aside at all."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tablebase.store.block_codec import DecodedBlock, decode_block
from tablebase.store.blocks import BlockFormat
from tablebase.util.cores import usable_cores


@functools.cache
def coders() -> ThreadPoolExecutor:
    """The threads that encode the blocks of a write, or decode those of a read, side by
    side, one a core (the codecs and numpy let go of the GIL)."""
    return ThreadPoolExecutor(usable_cores(), "blocks")


os.register_at_fork(after_in_child=coders.cache_clear)  # a forked child (a query worker) has none of its parent's threads


_DECODING_ASIDE = True
"""Whether this process decodes the blocks of a read in :func:`coders`' threads, beside
the reading thread (see :func:`share_cores`)."""


def start_coders() -> None:
    """Start :func:`coders`' threads where this process decodes aside, which a thread
    pool starts only at its first tasks: an ending's first probe would wait for them
    (KRPvKR with xz: a lone block's two blobs decoded side by side took much longer
    while the threads started, benchmarks/RESULTS.md)."""
    if not _DECODING_ASIDE:
        return
    threads = coders()
    for _ in range(usable_cores()):
        threads.submit(int)


def share_cores(processes: int) -> None:
    """Say that this process is one of ``processes`` that read side by side (the workers
    of ``query -`` and ``serve``): where they leave it no core beyond its reading
    thread's, it decodes the blocks of a read in that thread, as threads beside it
    would only add hand-offs (``query chess -`` over KRBvKR positions with 2 workers on
    2 cores runs faster so, with zstd and with xz; benchmarks/RESULTS.md).

    :param processes: the readers sharing this machine's cores, at least 1.
    """
    global _DECODING_ASIDE
    _DECODING_ASIDE = usable_cores() // max(1, processes) > 1


def decoded_rows(rows: Iterable[Sequence[Any]], form: BlockFormat) -> dict[int, DecodedBlock]:
    """The decoded blocks of fetched rows (``block, present, codes, extra``) by number,
    decoded in :func:`coders`' threads where there are several and this process decodes
    aside (xz decodes a block of chess much slower than zstd, benchmarks/RESULTS.md).

    :raises ValueError: if a block is damaged.
    """
    rows = list(rows)
    if len(rows) == 1 or not _DECODING_ASIDE:
        return {row[0]: decoded_alone(row[1:], form, row[0]) for row in rows}
    decoded = coders().map(lambda row: decode_block(*row[1:], form=form, dtm_left_out=form.leaves_dtm_out(row[0])), rows)
    return dict(zip((row[0] for row in rows), decoded))


def decoded_alone(blobs: Sequence[Any], form: BlockFormat, block: int) -> DecodedBlock:
    """:func:`decode_block` of one block read alone, its two blobs side by side where
    the codec :attr:`~tablebase.store.codecs.Codec.decodes_slowly` and this process
    decodes aside."""
    aside = coders() if form.codec.decodes_slowly and _DECODING_ASIDE else None
    return decode_block(*blobs, form=form, aside=aside, dtm_left_out=form.leaves_dtm_out(block))
