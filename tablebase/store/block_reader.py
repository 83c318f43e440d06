"""Probes of blocks tables (:mod:`~tablebase.store.blocks`) over one connection, with a
cache of decoded blocks: point probes, array probes, and the cache's size."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Optional

import numpy as np

from tablebase.core.errors import UsageError
from tablebase.store.block_codec import DecodedBlock
from tablebase.store.block_threads import decoded_alone, decoded_rows, start_coders
from tablebase.store.blocks import BlocksTable
from tablebase.store.memory import keep_freed_memory
from tablebase.store.packed import drawn

CACHE_VARIABLE = "TABLEBASE_CACHE_MIB"
"""The environment variable that sets a reader's cache of decoded blocks in MiB (then
:data:`CACHED_KEYS` is ignored): every process reading a database has its own, so a
``serve`` or ``query -`` with N workers may hold N times as much."""

CACHED_KEYS = 1 << 29
"""Keys of decoded blocks kept for later probes, at about two bytes each with DTZ (a
byte a column of symbols, a bit of bitmap): 1.1 GiB at most, 8,192 blocks, a whole
5-piece ending's with its dependencies' (KRBvKR's index space of 335 million keys fills
5,120). Fewer make the least recently used order evict every block before its next use
where queries range over an ending at random: with 2,048 blocks, ranking the moves of
the same random KRBvKR positions again fetched their blocks anew (benchmarks/RESULTS.md)."""


Fetch = Callable[[int], Optional[Sequence[Any]]]
"""Runs :data:`~tablebase.store.blocks.BLOCK_QUERY` on one tablebase's table for a block number: its row, or None."""

FetchMany = Callable[[list[int]], Iterable[Sequence[Any]]]
"""Runs :data:`~tablebase.store.blocks.BLOCKS_IN_QUERY` on one tablebase's table for block numbers: the rows of
those that are stored."""

FETCHED_AT_ONCE = 256
"""Blocks an array probe reads in one query (and holds decoded at once: about 50 MiB)."""

KEPT_UP_TO = 256
"""An array probe that reads at most this many blocks keeps them in the cache as a
point probe does: the successors of a few positions (a DTM left out, valued from the
moves), read again by the next such probe."""


MISSING = object()
"""What :class:`BlockReader`'s cache gives for a block it does not hold (``None`` is a
block that holds no stored key)."""


def cached_keys() -> int:
    """The keys of decoded blocks a :class:`BlockReader` keeps: ``$TABLEBASE_CACHE_MIB``
    MiB at about two bytes a key (a byte a column of symbols with DTZ, a bit of bitmap),
    else :data:`CACHED_KEYS`.

    :raises UsageError: if the variable is not a whole number of MiB, at least 1.
    """
    text = os.environ.get(CACHE_VARIABLE)
    if text is None:
        return CACHED_KEYS
    if not text.strip().isdigit() or int(text) < 1:
        raise UsageError(f"${CACHE_VARIABLE} must be a whole number of MiB, at least 1, not {text!r}")
    return int(text) << 19


class BlockReader:
    """Point probes of blocks tables over one connection, with cached decoded blocks.

    Stored blocks never change (a rebuild writes a table of another name), so what is
    cached stays valid for as long as the table exists.
    """

    def __init__(self, most: int) -> None:
        """:param most: the keys of decoded blocks to keep (:func:`cached_keys`). Makes
        this process's malloc keep freed memory (:func:`~tablebase.store.memory.keep_freed_memory`)."""
        keep_freed_memory()
        start_coders()
        self._blocks: OrderedDict[tuple[str, int], DecodedBlock | None] = OrderedDict()
        self._cached = 0  # keys in self._blocks
        self._most = most

    def probe(self, fetch: Fetch, table: BlocksTable, column: str, wanted: Sequence[int]) -> dict[int, int]:
        """The stored code (of ``column``: ``codes`` or ``extra``) of each wanted key that
        is there; ``fetch`` is called only for blocks that are not cached.

        :raises ValueError: if a block is damaged.
        """
        return {key: decoded.column(column).code(at) for key, decoded, at in self._stored(fetch, table, wanted)}

    def probe_both(self, fetch: Fetch, table: BlocksTable, wanted: Sequence[int]) -> dict[int, tuple[int, int]]:
        """:meth:`probe` of ``codes`` and ``extra`` at once, one block lookup a key:
        ``(code, extra code)`` of each wanted key that is stored.

        :raises ValueError: if a block is damaged or lacks its extra codes.
        """
        return {
            key: (decoded.codes.code(at), decoded.column("extra").code(at))
            for key, decoded, at in self._stored(fetch, table, wanted)
        }

    def cached_both(self, table: BlocksTable, wanted: Sequence[int]) -> dict[int, tuple[int, int]] | None:
        """:meth:`probe_both` answered from the cache alone (no query, nothing that can
        fail): ``None`` where a wanted key's block is not cached, or lacks extra codes."""
        both = {}
        place = table.blocking.place
        for key in wanted:
            block, offset = place(key)
            decoded = self._hit(table.name, block)
            if decoded is MISSING or (decoded is not None and decoded.extra is None):
                return None
            if decoded is not None and decoded.stored(offset):
                at = offset - decoded.first
                both[key] = (decoded.codes.code(at), decoded.extra.code(at))
        return both

    def load(self, fetch_many: FetchMany, table: BlocksTable, wanted: Sequence[int]) -> None:
        """Read the blocks of wanted keys that are not cached in one query (a query ranking
        a position's moves wants a block for nearly every move) and cache them.

        :raises ValueError: if a block is damaged.
        """
        place = table.blocking.place
        missing = sorted({block for block in {place(key)[0] for key in wanted} if (table.name, block) not in self._blocks})
        if not missing:
            return
        stored = decoded_rows(fetch_many(missing), table.form)
        for number in missing:
            self._keep(table.name, number, stored.get(number))

    def _hit(self, name: str, block: int) -> DecodedBlock | None | object:
        """The cached block ``block`` of the table named ``name``, marked recently used,
        or :data:`MISSING`."""
        decoded = self._blocks.get((name, block), MISSING)
        if decoded is not MISSING:
            self._blocks.move_to_end((name, block))
        return decoded

    def _stored(self, fetch: Fetch, table: BlocksTable, wanted: Sequence[int]) -> Iterator[tuple[int, DecodedBlock, int]]:
        """``(key, its decoded block, its offset from the block's first)`` of each wanted
        key that is stored, the blocks from the cache or ``fetch``."""
        place = table.blocking.place
        for key in wanted:
            block, offset = place(key)
            decoded = self._block(fetch, table, block)
            if decoded is not None and decoded.stored(offset):
                yield key, decoded, offset - decoded.first

    def probe_array(
        self, fetch_many: FetchMany, table: BlocksTable, keys: np.ndarray, extra: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """:meth:`probe` of int64[n] keys at once, block by block, each block read once,
        :data:`FETCHED_AT_ONCE` in a query (and left out of the cache, which a sweep
        would only churn, unless at most :data:`KEPT_UP_TO`): ``(found, codes, extra
        codes)``, bool[n], int64[n] and int64[n] or None without ``extra`` (codes 0
        where not found).

        :raises ValueError: if a block is damaged.
        """
        keys = np.asarray(keys, dtype=np.int64)
        form = table.form
        found = np.zeros(len(keys), dtype=bool)
        codes = np.zeros(len(keys), dtype=np.int64)
        beside = np.zeros(len(keys), dtype=np.int64) if extra else None
        numbers, slots = table.blocking.place(keys)
        order = np.argsort(numbers, kind="stable")
        groups = np.split(order, np.flatnonzero(np.diff(numbers[order])) + 1) if len(keys) else []
        for start in range(0, len(groups), FETCHED_AT_ONCE):
            chosen = groups[start : start + FETCHED_AT_ONCE]
            wanted = [int(numbers[these[0]]) for these in chosen]
            blocks = {number: self._blocks.get((table.name, number)) for number in wanted}
            missing = [number for number, decoded in blocks.items() if decoded is None]
            blocks.update(decoded_rows(fetch_many(missing), form))
            if len(groups) <= KEPT_UP_TO:
                for number in missing:
                    self._keep(table.name, number, blocks[number])
            for these, number in zip(chosen, wanted):
                self._found_in(blocks[number], slots, these, (found, codes, beside))
        if beside is not None and form.draw_extra is not None:  # the draws' extra codes put back at once, not block by block
            beside[found & drawn(codes)] = form.draw_extra
        return found, codes, beside

    @staticmethod
    def _found_in(decoded: DecodedBlock | None, slots: np.ndarray, these: np.ndarray, into: tuple[np.ndarray, ...]) -> None:
        """Fill ``into`` (found, codes, extra codes or None) at the indices ``these`` of
        keys of one block, whose slots are ``slots[these]``, from the decoded block (None:
        it holds no key); the extra codes as stored (a draw's left for the caller to put
        back: :class:`~tablebase.store.block_codec.DrawsPutBack`)."""
        found, codes, beside = into
        if decoded is not None:
            offsets = slots[these] - decoded.first
            hit = decoded.stored_many(offsets)
            found[these] = hit
            codes[these[hit]] = decoded.codes.codes(offsets[hit])
            if beside is not None:
                beside[these[hit]] = decoded.column("extra").stored_codes(offsets[hit])

    def _block(self, fetch: Fetch, table: BlocksTable, block: int) -> DecodedBlock | None:
        """A block with every column decoded (a probe of values is followed by one of
        DTZ), cached; None for a block that holds no stored key."""
        decoded = self._hit(table.name, block)
        if decoded is not MISSING:
            return decoded  # type: ignore[return-value]
        stored = fetch(block)
        decoded = None if stored is None else decoded_alone(stored, table.form, block)
        self._keep(table.name, block, decoded)
        return decoded

    def _keep(self, name: str, block: int, decoded: DecodedBlock | None) -> None:
        """Cache a decoded block (None: it holds no stored key), the least recently used
        ones dropped beyond the keys the reader keeps."""
        self._blocks[name, block] = decoded
        self._cached += 1 if decoded is None else decoded.length
        while self._cached > self._most:
            dropped = self._blocks.popitem(last=False)[1]
            self._cached -= 1 if dropped is None else dropped.length
