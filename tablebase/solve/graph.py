"""Building a game's move graph, batch by batch, as numpy arrays.

Positions are numbered densely by their rank among the sorted canonical keys, so a key is
turned into an index with one ``searchsorted``. The graph is built with the game's batch
API (:meth:`~tablebase.game.Game.successors`, :meth:`~tablebase.game.Game.terminal_batch`),
whose defaults fall back on the per-position API.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.errors import GameError
from tablebase.game import NOT_TERMINAL, Game
from tablebase.progress import Stages, silent
from tablebase.solve.retrograde import index_dtype

DEFAULT_BATCH_SIZE = 1 << 16


@dataclass(frozen=True)
class MoveGraph:
    """A game's positions and moves.

    :ivar keys: int64[n] canonical keys, ascending; position ``i`` has key ``keys[i]``.
    :ivar terminal: int8[n] terminal outcome, or :data:`~tablebase.game.NOT_TERMINAL`.
    :ivar src: int32[m] (int64 past 2**31 positions) index of each move's position.
    :ivar dst: same dtype, index of each move's successor.
    :ivar exits: the moves that leave the tablebase (see :class:`ExitMoves`).
    """

    keys: np.ndarray
    terminal: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    exits: ExitMoves


@dataclass(frozen=True)
class ExitMoves:
    """Moves into other tablebases: ``src`` int64[k] position index, ``table`` int64[k]
    index into the game's ``dependencies()``, ``key`` int64[k] canonical key there."""

    src: np.ndarray
    table: np.ndarray
    key: np.ndarray


class _ExitCollector:
    """Gathers a game's exits batch by batch (none unless it has dependencies)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.active = bool(game.dependencies())
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def add(self, live_keys: np.ndarray, live_index: np.ndarray) -> None:
        """Record the exits of positions ``live_keys`` (int64), numbered ``live_index``."""
        if self.active:
            src, table, key = (np.asarray(a, dtype=np.int64) for a in self.game.exits(live_keys))
            self.parts.append((live_index[src], table, key))

    def moves(self) -> ExitMoves:
        """Everything recorded."""
        columns = zip(*self.parts) if self.parts else ((), (), ())
        return ExitMoves(*(np.concatenate(c) if c else np.zeros(0, np.int64) for c in columns))


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
    """``(at, hit)``: where each wanted key sorts into ``keys``, and whether it is there."""
    at = np.searchsorted(keys, wanted)
    hit = at < len(keys)
    hit[hit] = keys[at[hit]] == wanted[hit]
    return at, hit


def _batches(count: int, batch_size: int) -> range:
    return range(0, count, batch_size)


def _check_keys(keys: np.ndarray) -> np.ndarray:
    if keys.size and (keys.min() < 0):
        raise GameError(f"negative key {int(keys.min())}: keys must be in [0, 2**63)")
    return keys


def build_graph(game: Game, batch_size: int = DEFAULT_BATCH_SIZE, stages: Stages = silent) -> MoveGraph:
    """Enumerate a game's positions and expand their moves.

    Uses the index-space form when ``game.size`` is set, else discovery by forward
    search from :meth:`~tablebase.game.Game.start_positions`.

    :param batch_size: positions handed to the game per call; any value >= 1 gives the
        same graph.
    :param stages: progress reporting (stages ``enumerate`` and ``expand``, or
        ``discover`` and ``index``).
    :raises GameError: if the game produces keys outside its tablebase.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    if game.size is not None:
        return _build_indexed(game, batch_size, stages)
    return _build_discovered(game, batch_size, stages)


def _build_indexed(game: Game, batch_size: int, stages: Stages) -> MoveGraph:
    size = int(game.size or 0)
    parts = []
    with stages("enumerate", size) as advance:
        for start in _batches(size, batch_size):
            keys = np.arange(start, min(start + batch_size, size), dtype=np.int64)
            parts.append(keys[np.asarray(game.legal(keys), dtype=bool)])
            advance(len(keys))
    keys = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    table = dense_index(keys, size)

    terminal = np.empty(len(keys), dtype=np.int8)
    src_parts, dst_parts = [], []
    exits = _ExitCollector(game)
    with stages("expand", len(keys)) as advance:
        for start in _batches(len(keys), batch_size):
            batch = keys[start : start + batch_size]
            terminal[start : start + len(batch)] = game.terminal_batch(batch)
            live = np.flatnonzero(terminal[start : start + len(batch)] == NOT_TERMINAL)
            src_index, dst_key = game.successors(batch[live])
            src_parts.append((live[src_index] + start).astype(index_dtype(len(keys))))
            dst_parts.append(lookup(keys, table, np.asarray(dst_key, dtype=np.int64)))
            exits.add(batch[live], live + start)
            advance(len(batch))
    return MoveGraph(keys, terminal, _join(src_parts, len(keys)), _join(dst_parts, len(keys)), exits.moves())


def _join(parts: list[np.ndarray], n: int) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=index_dtype(n))


def _build_discovered(game: Game, batch_size: int, stages: Stages) -> MoveGraph:
    starts = _check_keys(
        _sorted_unique(np.asarray([game.canonical_key(p) for p in game.start_positions()], dtype=np.int64))
    )
    seen = starts
    frontiers, frontier_terminals = [], []
    src_keys, dst_keys, exit_keys = [], [], _ExitCollector(game)
    with stages("discover", None) as advance:
        frontier = starts
        while frontier.size:
            terminal = np.empty(len(frontier), dtype=np.int8)
            found = []
            for start in _batches(len(frontier), batch_size):
                batch = frontier[start : start + batch_size]
                terminal[start : start + len(batch)] = game.terminal_batch(batch)
                live = batch[terminal[start : start + len(batch)] == NOT_TERMINAL]
                src_index, dst_key = game.successors(live)
                dst_key = _check_keys(np.asarray(dst_key, dtype=np.int64))
                src_keys.append(live[src_index])
                dst_keys.append(dst_key)
                exit_keys.add(live, live)  # numbered by key until the keys are sorted
                found.append(_sorted_unique(dst_key))
            frontiers.append(frontier)
            frontier_terminals.append(terminal)
            advance(len(frontier))
            candidates = _sorted_unique(np.concatenate(found)) if found else frontier[:0]
            frontier = candidates[~_locate(seen, candidates)[1]]
            seen = np.insert(seen, np.searchsorted(seen, frontier), frontier)

    with stages("index", len(src_keys)) as advance:
        keys = seen
        terminal = np.empty(len(keys), dtype=np.int8)
        for frontier, values in zip(frontiers, frontier_terminals):
            terminal[index_of(keys, frontier)] = values
        src_parts, dst_parts = [], []
        for src_key, dst_key in zip(src_keys, dst_keys):
            src_parts.append(index_of(keys, src_key))
            dst_parts.append(index_of(keys, dst_key))
            advance(1)
        found_exits = exit_keys.moves()
        exits = ExitMoves(index_of(keys, found_exits.src).astype(np.int64), found_exits.table, found_exits.key)
    return MoveGraph(keys, terminal, _join(src_parts, len(keys)), _join(dst_parts, len(keys)), exits)


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """The distinct keys, ascending (``np.sort`` is much faster than ``np.unique`` here)."""
    ordered = np.sort(keys)
    keep = np.ones(len(ordered), dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]
