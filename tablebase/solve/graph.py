"""Building a game's move graph, batch by batch, as numpy arrays.

Positions are numbered densely by their rank among the sorted canonical keys, so a key is
turned into an index with one ``searchsorted`` (or a lookup table when the index space is
small enough). The graph is built with the game's batch API
(:meth:`~tablebase.game.Game.successors`, :meth:`~tablebase.game.Game.terminal_batch`),
whose defaults fall back on the per-position API, and kept as predecessor lists
(:mod:`tablebase.solve.predecessors`).

The batches are handed to worker processes (:mod:`tablebase.solve.workers`), so move
generation runs on every core while this process numbers what comes back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.errors import GameError
from tablebase.game import NOT_TERMINAL, Game
from tablebase.progress import Stages, silent
from tablebase.solve.predecessors import PredecessorBuilder, Predecessors, index_dtype
from tablebase.solve.workers import Workers

DEFAULT_BATCH_SIZE = 1 << 16


@dataclass(frozen=True)
class MoveGraph:
    """A game's positions and moves.

    :ivar keys: int64[n] canonical keys, ascending; position ``i`` has key ``keys[i]``.
    :ivar terminal: int8[n] terminal outcome, or :data:`~tablebase.game.NOT_TERMINAL`.
    :ivar moves: the moves within the tablebase, as predecessor lists.
    :ivar exits: the moves that leave the tablebase (see :class:`ExitMoves`).
    """

    keys: np.ndarray
    terminal: np.ndarray
    moves: Predecessors
    exits: ExitMoves


@dataclass(frozen=True)
class ExitMoves:
    """Moves into other tablebases: ``src`` int64[k] position index, ``table`` int64[k]
    index into the game's ``dependencies()``, ``key`` int64[k] canonical key there."""

    src: np.ndarray
    table: np.ndarray
    key: np.ndarray

    @staticmethod
    def join(parts: list[ExitMoves]) -> ExitMoves:
        """All exits of ``parts``, in order."""
        if not parts:
            return ExitMoves(*(np.zeros(0, np.int64) for _ in range(3)))
        return ExitMoves(*(np.concatenate([getattr(p, name) for p in parts]) for name in ("src", "table", "key")))


@dataclass(frozen=True)
class Expansion:
    """The moves of one batch of positions.

    :ivar terminal: int8[b] terminal value of each position of the batch.
    :ivar live: int32[l] the batch indices of its non-terminal positions.
    :ivar counts: int32[l] the number of moves of each, within the tablebase.
    :ivar dst_key: int64[sum(counts)] their successors' keys, the moves of ``live[0]`` first.
    :ivar exits: the moves that leave the tablebase, ``src`` numbering the batch.
    """

    terminal: np.ndarray
    live: np.ndarray
    counts: np.ndarray
    dst_key: np.ndarray
    exits: ExitMoves


def expand(game: Game, keys: np.ndarray) -> Expansion:
    """The :class:`Expansion` of int64[b] canonical keys (run in a worker process).

    :raises GameError: if the game returns a negative key.
    """
    terminal = np.asarray(game.terminal_batch(keys), dtype=np.int8)
    live = np.flatnonzero(terminal == NOT_TERMINAL)
    src_index, dst_key = (np.asarray(a, dtype=np.int64) for a in game.successors(keys[live]))
    _check_keys(dst_key)
    if np.any(src_index[1:] < src_index[:-1]):
        dst_key = dst_key[np.argsort(src_index, kind="stable")]
    counts = np.bincount(src_index, minlength=len(live)).astype(np.int32)
    exits = ExitMoves.join([])
    if game.dependencies():
        src, table, key = (np.asarray(a, dtype=np.int64) for a in game.exits(keys[live]))
        exits = ExitMoves(live[src], table, key)
    return Expansion(terminal, live.astype(np.int32), counts, dst_key, exits)


def legal(game: Game, keys: np.ndarray) -> np.ndarray:
    """The legal keys among int64[b] ``keys`` (run in a worker process)."""
    return keys[np.asarray(game.legal(keys), dtype=bool)]


def index_of(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Indices of ``wanted`` keys in the sorted ``keys``.

    :raises GameError: if a key is missing (a game produced a successor outside its
        tablebase).
    """
    found, hit = _locate(keys, wanted)
    if not hit.all():
        missing = int(wanted[~hit][0])
        raise GameError(f"a move leads to key {missing}, which is not a position of the tablebase")
    return found.astype(index_dtype(len(keys)))


DENSE_INDEX_LIMIT = 1 << 26
"""Largest index space numbered through a lookup table (int32, 256 MiB) not a search."""


def dense_index(keys: np.ndarray, size: int) -> np.ndarray | None:
    """A table from key to index over ``range(size)`` (-1 for no position), or ``None``
    when the index space is larger than :data:`DENSE_INDEX_LIMIT`."""
    if size > DENSE_INDEX_LIMIT:
        return None
    table = np.full(size, -1, dtype=index_dtype(len(keys)))
    table[keys] = np.arange(len(keys), dtype=table.dtype)
    return table


def lookup(keys: np.ndarray, table: np.ndarray | None, wanted: np.ndarray) -> np.ndarray:
    """Like :func:`index_of`, through a :func:`dense_index` table when there is one."""
    if table is None:
        return index_of(keys, wanted)
    found = np.full(len(wanted), -1, dtype=table.dtype)
    inside = (wanted >= 0) & (wanted < len(table))
    found[inside] = table[wanted[inside]]
    if (found < 0).any():
        missing = int(wanted[found < 0][0])
        raise GameError(f"a move leads to key {missing}, which is not a position of the tablebase")
    return found


def _locate(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(at, hit)``: where each wanted key sorts into ``keys``, and whether it is there.

    Unsorted ``wanted`` keys are searched in sorted order, which numpy's binary search
    does about five times faster (each search starts from where the last one ended).
    """
    if np.any(wanted[1:] < wanted[:-1]):
        order = np.argsort(wanted)
        at = np.empty(len(wanted), dtype=np.int64)
        at[order] = np.searchsorted(keys, wanted[order])
    else:
        at = np.searchsorted(keys, wanted)
    hit = at < len(keys)
    hit[hit] = keys[at[hit]] == wanted[hit]
    return at, hit


def _slices(keys: np.ndarray, batch_size: int) -> list[np.ndarray]:
    return [keys[start : start + batch_size] for start in range(0, len(keys), batch_size)]


def _check_keys(keys: np.ndarray) -> np.ndarray:
    if keys.size and (keys.min() < 0):
        raise GameError(f"negative key {int(keys.min())}: keys must be in [0, 2**63)")
    return keys


def build_graph(
    game: Game, batch_size: int = DEFAULT_BATCH_SIZE, stages: Stages = silent, workers: int | None = None
) -> MoveGraph:
    """Enumerate a game's positions and expand their moves.

    Uses the index-space form when ``game.size`` is set, else discovery by forward
    search from :meth:`~tablebase.game.Game.start_positions`.

    :param batch_size: positions handed to the game per call; any value >= 1 gives the
        same graph.
    :param stages: progress reporting (stages ``enumerate`` and ``expand``, or
        ``discover`` and ``index``; then ``predecessors``).
    :param workers: processes that generate moves (default: one per core; 1 generates
        them in this process).
    :raises GameError: if the game produces keys outside its tablebase.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    with Workers(game, workers) as pool:
        if game.size is not None:
            return _build_indexed(game, batch_size, stages, pool)
        return _build_discovered(game, batch_size, stages, pool)


def _build_indexed(game: Game, batch_size: int, stages: Stages, pool: Workers) -> MoveGraph:
    size = int(game.size or 0)
    parts = []
    with stages("enumerate", size) as advance:
        ranges = (np.arange(start, min(start + batch_size, size), dtype=np.int64) for start in range(0, size, batch_size))
        for done, found in enumerate(pool.map(legal, ranges)):
            parts.append(found)
            advance(min(batch_size, size - done * batch_size))
    keys = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    del parts
    table = dense_index(keys, size)

    terminal = np.empty(len(keys), dtype=np.int8)
    moves = PredecessorBuilder(len(keys))
    exits = []
    with stages("expand", len(keys)) as advance:
        start = 0
        for expansion in pool.map(expand, _slices(keys, batch_size)):
            terminal[start : start + len(expansion.terminal)] = expansion.terminal
            sources = expansion.live.astype(np.int64) + start
            moves.add(sources, expansion.counts, lookup(keys, table, expansion.dst_key))
            exits.append(ExitMoves(expansion.exits.src + start, expansion.exits.table, expansion.exits.key))
            start += len(expansion.terminal)
            advance(len(expansion.terminal))
    del table
    return MoveGraph(keys, terminal, _finish(moves, stages), ExitMoves.join(exits))


def _build_discovered(game: Game, batch_size: int, stages: Stages, pool: Workers) -> MoveGraph:
    starts = _check_keys(
        _sorted_unique(np.asarray([game.canonical_key(p) for p in game.start_positions()], dtype=np.int64))
    )
    seen = starts
    expanded: list[tuple[np.ndarray, Expansion]] = []
    with stages("discover", None) as advance:
        frontier = starts
        while frontier.size:
            batches = _slices(frontier, batch_size)
            found = []
            for batch, expansion in zip(batches, pool.map(expand, batches)):
                expanded.append((batch, expansion))
                found.append(_sorted_unique(expansion.dst_key))
            advance(len(frontier))
            candidates = _sorted_unique(np.concatenate(found)) if found else frontier[:0]
            frontier = candidates[~_locate(seen, candidates)[1]]
            seen = np.insert(seen, np.searchsorted(seen, frontier), frontier)

    with stages("index", len(expanded)) as advance:
        keys = seen
        terminal = np.empty(len(keys), dtype=np.int8)
        moves = PredecessorBuilder(len(keys))
        exits = []
        expanded.reverse()
        while expanded:  # popped, so each batch's keys are freed once numbered
            batch, expansion = expanded.pop()
            numbers = index_of(keys, batch)
            terminal[numbers] = expansion.terminal
            moves.add(numbers[expansion.live], expansion.counts, index_of(keys, expansion.dst_key))
            exits.append(ExitMoves(numbers[expansion.exits.src].astype(np.int64), expansion.exits.table, expansion.exits.key))
            advance(1)
    return MoveGraph(keys, terminal, _finish(moves, stages), ExitMoves.join(exits))


def _finish(moves: PredecessorBuilder, stages: Stages) -> Predecessors:
    """The predecessor lists of the moves collected, as stage ``predecessors``."""
    with stages("predecessors", moves.n) as advance:
        found = moves.finish()
        advance(moves.n)
    return found


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """The distinct keys, ascending (``np.sort`` is much faster than ``np.unique`` here)."""
    ordered = np.sort(keys)
    keep = np.ones(len(ordered), dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]
