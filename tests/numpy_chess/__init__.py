"""Chess with the vectorized numpy move generator (:mod:`tests.numpy_chess.moves`,
:mod:`tests.numpy_chess.unmoves`) in place of the compiled kernels: slower by far, written
apart from them, and what the tests hold the kernels to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from tablebase.game import NOT_TERMINAL, LevelSplit, Outcome
from tablebase.generators.chess.game import INSUFFICIENT, Chess, table
from tablebase.generators.chess.layout import Layout
from tests.numpy_chess.moves import Moves, attacked, generate, has_en_passant, legal_keys, occupancy
from tests.numpy_chess.unmoves import unmoves


class _LastBatch:
    """The legal moves of the last batch generated, by any table: the engine asks
    ``terminal_batch`` of a batch, then ``successors`` and ``exits`` of its non-terminal
    part, and this generates the moves once. One batch in all bounds the memory held
    (not thread-safe: :class:`NumpyChess` is not ``threaded``)."""

    def __init__(self) -> None:
        self.layout: Layout | None = None
        self.keys = np.zeros(0, dtype=np.int64)
        self.moves: Moves | None = None

    def moves_of(self, layout: Layout, keys: np.ndarray) -> tuple[Moves, np.ndarray]:
        """The legal moves of int64[n] keys, or of a batch that holds them all, and each
        move's row in ``keys`` (int64[m], -1 for a position not among them)."""
        if self.layout is layout and self.moves is not None and len(self.keys):
            at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
            if np.array_equal(self.keys[at], keys):
                renumber = np.full(len(self.keys), -1, dtype=np.int64)
                renumber[at] = np.arange(len(keys))
                return self.moves, renumber[self.moves.row]
        moves = generate(layout, *layout.decode(keys))
        if np.all(keys[1:] > keys[:-1]):
            self.layout, self.keys, self.moves = layout, keys.copy(), moves
        return moves, moves.row

    def select(self, layout: Layout, keys: np.ndarray, wanted: Callable[[Moves], np.ndarray]) -> Moves:
        """The moves of :meth:`moves_of` that ``wanted`` (bool[m] of the moves) keeps,
        their ``row`` indexing ``keys``."""
        moves, row = self.moves_of(layout, keys)
        keep = wanted(moves) & (row >= 0)
        return replace(moves[keep], row=row[keep])


_LAST_BATCH = _LastBatch()


class NumpyChess(Chess):
    """:class:`Chess` whose batch API (legal keys, terminal values, moves, exits and
    un-moves) is the numpy generator's; the per-position API and the queries stay the
    game's own. No survey in one pass (``survey_batch`` gives None: the engine surveys
    from the members), un-moves that may repeat a pair, and batches one at a time."""

    def __init__(self, **params: str) -> None:
        super().__init__(**params)
        self.threaded = False

    def legal(self, keys: np.ndarray) -> np.ndarray:
        if self.layout is None:
            return np.zeros(len(keys), dtype=bool)
        return legal_keys(self.layout, np.asarray(keys, dtype=np.int64))

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        keys = np.asarray(keys, dtype=np.int64)
        if self.material in INSUFFICIENT:
            return np.full(len(keys), Outcome.DRAW, dtype=np.int8)
        stm, _ep, squares = self.layout.decode(keys)
        _moves, row = _LAST_BATCH.moves_of(self.layout, keys)
        moving = np.bincount(row[row >= 0], minlength=len(keys)) > 0
        check = attacked(self.layout, squares, occupancy(squares, range(self.layout.count)), stm)
        values = np.full(len(keys), NOT_TERMINAL, dtype=np.int8)
        values[~moving] = np.where(check[~moving], Outcome.LOSS, Outcome.DRAW)
        return values

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        keys = np.asarray(keys, dtype=np.int64)
        stm = keys & 1
        moves = _LAST_BATCH.select(self.layout, keys, lambda moves: (moves.captured < 0) & ~moves.promotes)
        child_stm = 1 - stm[moves.row]
        child_ep = np.zeros(len(moves.row), dtype=np.int64)
        if self.layout.en_passant:
            double = np.flatnonzero(moves.double)
            child_ep[double] = has_en_passant(self.layout, child_stm[double], moves.squares[double])
        order = np.argsort(moves.row, kind="stable")
        return moves.row[order], self.layout.canonical_keys(child_stm, child_ep, moves.squares)[order]

    def exits(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        keys = np.asarray(keys, dtype=np.int64)
        stm = keys & 1
        moves = _LAST_BATCH.select(self.layout, keys, lambda moves: (moves.captured >= 0) | moves.promotes)
        index = {dependency.material: i for i, dependency in enumerate(self.dependencies())}
        parts = []
        for (slot, captured, promotion), (name, order, swapped) in self._events.items():
            chosen = moves[(moves.slot == slot) & (moves.captured == captured) & (moves.promotes == bool(promotion))]
            child = chosen.squares[:, order] ^ (56 if swapped else 0)
            child_stm = (1 - stm[chosen.row]) ^ int(swapped)
            child_keys = table(name).layout.canonical_keys(child_stm, np.zeros_like(child_stm), child)
            parts.append((chosen.row, np.full(len(chosen.row), index[name]), child_keys))
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
        src, tables, dst = (np.concatenate(column) for column in zip(*parts))
        order = np.argsort(src, kind="stable")
        return src[order], tables[order], dst[order]

    def survey_batch(self, keys: np.ndarray, split: LevelSplit | None = None) -> None:
        return None

    @property
    def distinct_unmoves(self) -> bool:  # type: ignore[override]
        return False

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        src, pred = unmoves(self.layout, np.asarray(keys, dtype=np.int64))
        order = np.argsort(src, kind="stable")
        return src[order], pred[order]
