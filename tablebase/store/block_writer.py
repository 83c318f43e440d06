"""Writing a tablebase in blocks: its values, in ascending key order over any number of
calls, cut into the rows of a blocks table (:mod:`~tablebase.store.blocks`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from tablebase.store.block_codec import encode_block
from tablebase.store.block_threads import coders
from tablebase.store.blocks import BY_KEY, PLAIN, BlockFormat, Blocking


class BlockWriter:
    """Cuts the values of one tablebase, given in ascending key order over any number of
    calls, into the rows of :func:`~tablebase.store.blocks.blocks_table`, encoded by one thread a core; the keys
    of the last span (:attr:`~tablebase.store.blocks.Blocking.span`) wait for :meth:`finish`.

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
        for rows in coders().map(lambda span: self._rows(*span), spans):
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
