"""Writing a tablebase in blocks: its values, in ascending key order over any number of
calls, cut into the rows of a blocks table (:mod:`~tablebase.store.blocks`)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import numpy as np

from tablebase.store.block_codec import encode_block
from tablebase.store.block_threads import coders
from tablebase.store.blocks import BY_KEY, PLAIN, BlockFormat, Blocking


class BlockWriter:
    """Cuts the values of one tablebase, given in ascending key order over any number of
    calls, into the rows of :func:`~tablebase.store.blocks.blocks_table`, encoded by one
    thread a core while the caller makes its next values: each call hands back the rows
    of the spans (:attr:`~tablebase.store.blocks.Blocking.span`) the call before completed;
    the keys of the last span, and the rows still being encoded, wait for :meth:`finish`.

    It keeps the arrays it is given, not copies, until it hands back their rows: a caller
    leaves them as they are.

    :param blocking: where keys are stored.
    :param level: the level of ``form``'s codec (None: its default).
    :param form: what the blobs hold.
    """

    def __init__(self, blocking: Blocking = BY_KEY, level: int | None = None, form: BlockFormat = PLAIN) -> None:
        self.blocking, self.level, self.form = blocking, level, form
        self._pending: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = None
        self._encoding: list[Future[list[tuple[Any, ...]]]] = []

    def add(self, keys: np.ndarray, codes: np.ndarray, extra: np.ndarray | None) -> Iterator[tuple[Any, ...]]:
        """The rows of every block that the keys of the call before completed, once
        ``keys`` (int64[n] ascending keys, above those of earlier calls), int64[n] value
        codes and extra codes (or none) are handed to the encoding threads."""
        if self._pending is not None:
            before_keys, before_codes, before_extra = self._pending
            keys, codes = np.concatenate([before_keys, keys]), np.concatenate([before_codes, codes])
            extra = None if extra is None or before_extra is None else np.concatenate([before_extra, extra])
        self._pending = None
        encoded, self._encoding = self._encoding, []
        if len(keys):
            bounds = [0, *_span_starts(keys, self.blocking.span).tolist(), len(keys)]
            last = bounds[-2]
            self._pending = (keys[last:], codes[last:], None if extra is None else extra[last:])
            for begin, end in zip(bounds[:-2], bounds[1:-1]):
                if begin < end:
                    part = (keys[begin:end], codes[begin:end], None if extra is None else extra[begin:end])
                    self._encoding.append(coders().submit(self._rows, *part))
        for future in encoded:
            yield from future.result()

    def finish(self) -> Iterator[tuple[Any, ...]]:
        """The rows still being encoded, then those of the last span, if any value is left."""
        encoded, self._encoding = self._encoding, []
        for future in encoded:
            yield from future.result()
        if self._pending is not None:
            yield from self._rows(*self._pending)
            self._pending = None

    def _rows(self, keys: np.ndarray, codes: np.ndarray, extra: np.ndarray | None) -> list[tuple[Any, ...]]:
        """The rows of the blocks of one span's keys, by block number."""
        blocks, slots = self.blocking.place(keys)
        first = int(blocks.min())
        order, starts = _by_block(blocks, first, int(blocks.max()) - first + 1)
        rows = []
        for at in range(len(starts) - 1):
            if starts[at] == starts[at + 1]:
                continue
            mine = slice(None) if starts[at + 1] - starts[at] == len(keys) else order[starts[at] : starts[at + 1]]
            these = None if extra is None else extra[mine]
            block = first + at
            rows.append((block, *encode_block(slots[mine], codes[mine], these, self.level, self.form, self.form.leaves_dtm_out(block))))
        return rows


def _span_starts(keys: np.ndarray, span: int) -> np.ndarray:
    """Where each span of int64[n] ascending ``keys`` but the first begins: int64 offsets,
    ascending, the same offset repeated for spans without a key. Keys as dense as an
    index space's take a binary search a span, not a division a key."""
    first, last = int(keys[0]) // span, int(keys[-1]) // span
    if last - first <= len(keys) // 64:
        return np.searchsorted(keys, np.arange(first + 1, last + 1, dtype=np.int64) * span)
    return np.flatnonzero(np.diff(keys // span)) + 1


def _by_block(blocks: np.ndarray, first: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of int64[n] ``blocks`` (``first`` to ``first + count - 1``, count at most
    256: a span's few blocks) grouped by block, in their order within each:
    ``(order, starts)``, int64[n] and int64[count + 1], block ``first + j``'s rows being
    ``order[starts[j]:starts[j + 1]]`` (numpy's stable sort of bytes is a radix sort, in
    one pass, where ``np.unique`` and a mask a block took most of a write's time)."""
    local = (blocks - first).astype(np.uint8)
    order = np.argsort(local, kind="stable")
    starts = np.zeros(count + 1, np.int64)
    np.cumsum(np.bincount(local, minlength=count), out=starts[1:])
    return order, starts
