"""Building a game's move graph, batch by batch, as numpy arrays.

Positions are numbered densely by their rank among the sorted canonical keys, so a key is
turned into an index with one ``searchsorted`` (or a lookup table when the index space is
small enough). The graph is built with the game's batch API
(:meth:`~tablebase.core.game.Game.successors`, :meth:`~tablebase.core.game.Game.terminal_batch`),
whose defaults fall back on the per-position API. It is the one builder of every
:class:`~tablebase.core.game.Mode`: the moves go into a :class:`MoveSink` chosen by the game's
value kind (:mod:`tablebase.solve.kinds`),
predecessor lists (:mod:`tablebase.solve.predecessors`) for the passes that walk moves
backwards, or forward lists (:mod:`tablebase.solve.movelist`) for sums and scores, whose
passes value each move from all its parts or with its reward. Another way of finding
moves (an un-move generator) can fill the same sinks.

The batches are handed to worker processes (:mod:`tablebase.solve.workers`), so move
generation runs on every core while this process numbers what comes back.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from tablebase.core.errors import GameError
from tablebase.core.game import Game
from tablebase.core.values import NOT_TERMINAL
from tablebase.solve.keyset import locate, search_forward, sorted_unique
from tablebase.solve.movelist import MoveList, MoveListBuilder, as_rows
from tablebase.solve.predecessors import PredecessorBuilder, Predecessors, index_dtype
from tablebase.solve.workers import Workers, WorkersChoice
from tablebase.util.progress import Stages, silent

DEFAULT_BATCH_SIZE = 1 << 16


@dataclass(frozen=True)
class MoveGraph:
    """A game's positions and moves.

    :ivar keys: int64[n] canonical keys, ascending; position ``i`` has key ``keys[i]``.
    :ivar terminal: int8[n] terminal outcome, or :data:`~tablebase.core.game.NOT_TERMINAL`.
    :ivar moves: the moves within the tablebase: predecessor lists, or forward lists
        for a game that splits or is scored (see :func:`sink_for`).
    :ivar exits: the moves that leave the tablebase (see :class:`ExitMoves`).
    """

    keys: np.ndarray
    terminal: np.ndarray
    moves: Predecessors | MoveList
    exits: ExitMoves

    def forward(self) -> tuple[np.ndarray, np.ndarray]:
        """Every move within the tablebase as ``(src, parts)``: int64[m] the position
        each is made from, int64[m, k] the positions it leads to (-1 pads a sum)."""
        if isinstance(self.moves, MoveList):
            return self.moves.src, self.moves.parts
        return self.moves.preds.astype(np.int64), self.moves.targets().reshape(-1, 1)


class MoveSink(Protocol):
    """Where a graph builder puts the moves it numbers (:class:`PredecessorBuilder` or
    :class:`~tablebase.solve.movelist.MoveListBuilder`)."""

    n: int

    def add(self, sources: np.ndarray, counts: np.ndarray, dst: np.ndarray, reward: np.ndarray | None) -> None:
        """Record the moves of distinct positions ``sources`` (int[k]), ``counts``
        (int[k]) moves each, the moves of ``sources[0]`` first: successor indices ``dst``
        (int[sum(counts)], or int[sum(counts), parts] with -1 padding) and ``reward``
        (int64[sum(counts)], scored games) or ``None``."""

    def finish(self) -> Predecessors | MoveList:
        """Everything added, in the sink's form."""


@dataclass(frozen=True)
class MoveShape:
    """What a value kind's passes need of a game's moves (its
    :attr:`~tablebase.solve.kinds.ValueKind.shape`, resolved once and passed down):
    ``splits``, a move leaves a sum of positions (int64[m, k] successors); ``rewards``, a
    move carries :meth:`~tablebase.core.game.Game.move_rewards`; ``move_list``, the graph
    is forward lists, not predecessor lists."""

    splits: bool = False
    rewards: bool = False
    move_list: bool = False


def sink_for(shape: MoveShape, n: int) -> MoveSink:
    """Forward lists for a game that splits (a move values all its parts) or is scored (a
    move carries a reward); predecessor lists for every other game."""
    if shape.move_list:
        return MoveListBuilder(n)
    return PredecessorBuilder(n)


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
    :ivar dst_key: int64[sum(counts)] their successors' keys, the moves of ``live[0]``
        first; int64[sum(counts), k] for a game that splits (-1 pads a sum of fewer parts).
    :ivar reward: int64[sum(counts)] what each move earns (scored games), else ``None``.
    :ivar exits: the moves that leave the tablebase, ``src`` numbering the batch.
    """

    terminal: np.ndarray
    live: np.ndarray
    counts: np.ndarray
    dst_key: np.ndarray
    reward: np.ndarray | None
    exits: ExitMoves


def expand(game: Game, keys: np.ndarray, shape: MoveShape) -> Expansion:
    """The :class:`Expansion` of int64[b] canonical keys (run in a worker process), moves
    of the ``shape`` of the game's kind.

    :raises GameError: as :func:`batch_moves`, or for rewards not one per move.
    """
    terminal, src, dst_key, exits = batch_moves(game, keys, shape.splits)
    live = np.flatnonzero(terminal == NOT_TERMINAL)
    reward = None
    if shape.rewards:
        reward = np.asarray(game.move_rewards(keys[live]), dtype=np.int64)
        if reward.shape != src.shape:
            raise GameError(f"{game.name}: move_rewards() gave {len(reward)} rewards for {len(src)} moves")
    if np.any(src[1:] < src[:-1]):
        order = np.argsort(src, kind="stable")
        dst_key = dst_key[order]
        reward = None if reward is None else reward[order]
    counts = np.bincount(src, minlength=len(keys))[live].astype(np.int32)
    return Expansion(terminal, live.astype(np.int32), counts, dst_key, reward, exits)


def batch_moves(game: Game, keys: np.ndarray, splits: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, ExitMoves]:
    """:meth:`Game.expand <tablebase.core.game.Game.expand>` of int64[b] canonical keys as the
    engine reads it, checked: int8[b] terminal values, int64[m] each move's row in
    ``keys`` and its successor's key (int64[m, k] for a game that ``splits``: a move
    leaves a sum of positions), the exits.

    :raises GameError: naming the position, if the game returns a key that cannot be one
        (negative, other than the -1 padding of a sum), parts of a sum in another shape
        than one row per move, or a move from outside the batch or from a terminal position.
    """
    moves = game.expand(keys)
    terminal = np.asarray(moves.terminal, dtype=np.int8)
    src, dst = (np.asarray(a, dtype=np.int64) for a in (moves.src, moves.dst))
    if splits and dst.ndim == 1:
        dst = dst.reshape(-1, 1)
    if len(dst) != len(src) or dst.ndim != (2 if splits else 1):
        raise GameError(f"{game.name}: successors() gave {len(src)} moves but successors of shape {dst.shape}")
    check_successors(game, keys, src, dst, -1 if splits else 0)
    ended = terminal[src] != NOT_TERMINAL
    if ended.any():
        raise GameError(f"{game.name}: expand() gave a move from the terminal position of key {int(keys[src[np.argmax(ended)]])}")
    return terminal, src, dst, ExitMoves(*(np.asarray(a, dtype=np.int64) for a in moves.exits))


def check_successors(game: Game, keys: np.ndarray, src_index: np.ndarray, dst_key: np.ndarray, lowest: int) -> None:
    """:raises GameError: naming the position of the first move whose successor key is
    below ``lowest``, or whose source is not one of ``keys``."""
    if src_index.size and (src_index.min() < 0 or src_index.max() >= len(keys)):
        raise GameError(f"{game.name}: successors() gave a move from index {int(src_index.min())}, outside its batch")
    bad = as_rows(dst_key < lowest).any(axis=1)
    if bad.any():
        move = int(np.argmax(bad))
        wrong = as_rows(dst_key)[move]
        raise_bad_move(game, int(keys[src_index[move]]), int(wrong[wrong < lowest][0]), "keys must be in [0, 2**63)")


def raise_bad_move(game: Game, key: int, successor: int, why: str) -> None:
    """:raises GameError: a move from the position of ``key`` leads to key ``successor``."""
    try:
        shown = f"position {game.format(game.decode(key))!r} (key {key})"
    except Exception:  # the message must not fail on a game that cannot show the position
        shown = f"the position of key {key}"
    raise GameError(f"{game.name}: a move from {shown} leads to key {successor}: {why}")


def legal(game: Game, keys: np.ndarray) -> np.ndarray:
    """The legal keys among int64[b] ``keys`` (run in a worker process)."""
    return keys[np.asarray(game.legal(keys), dtype=bool)]


def index_of(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Indices of ``wanted`` keys in the sorted ``keys``.

    :raises GameError: if a key is missing (a game produced a successor outside its
        tablebase).
    """
    found, hit = locate(keys, wanted)
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
    """Indices of ``wanted`` keys (any shape) in the sorted ``keys``, through a
    :func:`dense_index` table when there is one; -1 for a key that is not there (the
    -1 padding of a sum stays -1)."""
    flat = wanted.reshape(-1)
    if table is None:
        at, hit = locate(keys, flat)
        found = np.where(hit, at, -1).astype(index_dtype(len(keys)))
    else:
        found = np.full(len(flat), -1, dtype=table.dtype)
        inside = (flat >= 0) & (flat < len(table))
        found[inside] = table[flat[inside]]
    return found.reshape(wanted.shape)


def slices(keys: np.ndarray, batch_size: int) -> list[np.ndarray]:
    """``keys`` cut into consecutive batches of ``batch_size`` (views)."""
    return [keys[start : start + batch_size] for start in range(0, len(keys), batch_size)]


def _number(game: Game, keys: np.ndarray, table: np.ndarray | None, sources: np.ndarray, expansion: Expansion) -> np.ndarray:
    """The successor indices of an expansion's moves (``sources``: int64[l] the index of
    each of its live positions).

    :raises GameError: naming the position, for a successor that is not a position of
        the tablebase.
    """
    found = lookup(keys, table, expansion.dst_key)
    missing = (found < 0) & (expansion.dst_key >= 0)
    if missing.any():
        move = int(np.argmax(as_rows(missing).any(axis=1)))
        source = int(np.repeat(sources, expansion.counts)[move])
        wrong = as_rows(expansion.dst_key)[move][as_rows(missing)[move]][0]
        raise_bad_move(game, int(keys[source]), int(wrong), "not a position of the tablebase")
    return found


def build_graph(
    game: Game, shape: MoveShape, batch_size: int = DEFAULT_BATCH_SIZE, stages: Stages = silent, workers: WorkersChoice = None
) -> MoveGraph:
    """Enumerate a game's positions and expand their moves, of the ``shape`` of its kind
    (:attr:`ValueKind.shape <tablebase.solve.kinds.ValueKind.shape>`).

    Uses the index-space form when ``game.size`` is set, else discovery by forward
    search from :meth:`~tablebase.core.game.Game.start_positions`.

    :param batch_size: positions handed to the game per call; any value >= 1 gives the
        same graph.
    :param stages: progress reporting (stages ``enumerate`` and ``expand``, or
        ``discover`` and ``index``; then ``predecessors``).
    :param workers: processes that generate moves (default: one per core; 1 generates
        them in this process), or :class:`~tablebase.solve.workers.RemoteWorkers`.
    :raises GameError: if the game produces keys outside its tablebase.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    with Workers(game, workers) as pool:
        if game.size is not None:
            return _build_indexed(game, shape, batch_size, stages, pool)
        return _build_discovered(game, shape, batch_size, stages, pool)


def _build_indexed(game: Game, shape: MoveShape, batch_size: int, stages: Stages, pool: Workers) -> MoveGraph:
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
    moves = sink_for(shape, len(keys))
    exits = []
    with stages("expand", len(keys)) as advance:
        start = 0
        for expansion in pool.map(functools.partial(expand, shape=shape), slices(keys, batch_size)):
            terminal[start : start + len(expansion.terminal)] = expansion.terminal
            sources = expansion.live.astype(np.int64) + start
            moves.add(sources, expansion.counts, _number(game, keys, table, sources, expansion), expansion.reward)
            exits.append(ExitMoves(expansion.exits.src + start, expansion.exits.table, expansion.exits.key))
            start += len(expansion.terminal)
            advance(len(expansion.terminal))
    del table
    return MoveGraph(keys, terminal, _finish(moves, stages), ExitMoves.join(exits))


def start_keys(game: Game) -> np.ndarray:
    """int64[s]: the distinct canonical keys of the game's start positions, ascending,
    where forward search begins.

    :raises GameError: if one is negative."""
    starts = sorted_unique(np.asarray([game.canonical_key(p) for p in game.start_positions()], dtype=np.int64))
    if starts.size and starts[0] < 0:
        raise GameError(f"{game.name}: a start position gave key {int(starts[0])}; keys must be in [0, 2**63)")
    return starts


def _build_discovered(game: Game, shape: MoveShape, batch_size: int, stages: Stages, pool: Workers) -> MoveGraph:
    starts = start_keys(game)
    expanded: list[tuple[np.ndarray, Expansion]] = []

    def successors(frontier: np.ndarray) -> Iterator[np.ndarray]:
        batches = slices(frontier, batch_size)
        for batch, expansion in zip(batches, pool.map(functools.partial(expand, shape=shape), batches)):
            expanded.append((batch, expansion))
            yield sorted_unique(expansion.dst_key[expansion.dst_key >= 0])

    with stages("discover", None) as advance:
        seen = search_forward(starts, successors, advance)

    with stages("index", len(seen)) as advance:
        keys = seen
        terminal = np.empty(len(keys), dtype=np.int8)
        moves = sink_for(shape, len(keys))
        exits = []
        expanded.reverse()
        while expanded:  # popped, so each batch's keys are freed once numbered
            batch, expansion = expanded.pop()
            numbers = index_of(keys, batch)
            terminal[numbers] = expansion.terminal
            sources = numbers[expansion.live].astype(np.int64)
            moves.add(sources, expansion.counts, _number(game, keys, None, sources, expansion), expansion.reward)
            exits.append(ExitMoves(numbers[expansion.exits.src].astype(np.int64), expansion.exits.table, expansion.exits.key))
            advance(len(batch))
    return MoveGraph(keys, terminal, _finish(moves, stages), ExitMoves.join(exits))


def _finish(moves: MoveSink, stages: Stages) -> Predecessors | MoveList:
    """The moves collected, in the sink's form, as stage ``predecessors``."""
    with stages("predecessors", moves.n) as advance:
        found = moves.finish()
        advance(moves.n)
    return found


