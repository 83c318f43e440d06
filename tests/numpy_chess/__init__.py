"""Chess with the vectorized numpy move generator (:mod:`tests.numpy_chess.moves`,
:mod:`tests.numpy_chess.unmoves`) in place of the compiled kernels: slower by far, written
apart from them, and what the tests hold the kernels to."""

from __future__ import annotations

import numpy as np

from tablebase.core.batches import BatchMoves, LevelSplit
from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.generators.chess.game import Chess, table
from tablebase.generators.chess.material import INSUFFICIENT
from tests.numpy_chess.moves import Moves, attacked, generate, has_en_passant, legal_keys, occupancy
from tests.numpy_chess.unmoves import unmoves


class NumpyChess(Chess):
    """:class:`Chess` whose batch API (legal keys, :meth:`expand`, and un-moves) is the
    numpy generator's; the per-position API and the queries stay the game's own. No
    survey in one pass (``survey_batch`` gives None: the engine surveys from
    :meth:`expand`), un-moves that may repeat a pair, and batches one at a time."""

    def __init__(self, **params: str) -> None:
        super().__init__(**params)
        self.threaded = False

    def legal(self, keys: np.ndarray) -> np.ndarray:
        if self.layout is None:
            return np.zeros(len(keys), dtype=bool)
        return legal_keys(self.layout, np.asarray(keys, dtype=np.int64))

    def expand(self, keys: np.ndarray) -> BatchMoves:
        keys = np.asarray(keys, dtype=np.int64)
        if self.material in INSUFFICIENT:
            return super().expand(keys)
        stm, ep, squares = self.layout.decode(keys)
        moves = generate(self.layout, stm, ep, squares)
        moving = np.bincount(moves.row, minlength=len(keys)) > 0
        check = attacked(self.layout, squares, occupancy(squares, range(self.layout.count)), stm)
        terminal = np.full(len(keys), NOT_TERMINAL, dtype=np.int8)
        terminal[~moving] = np.where(check[~moving], Outcome.LOSS, Outcome.DRAW)
        leaving = (moves.captured >= 0) | moves.promotes
        src, dst = self._within(stm, moves[~leaving])
        return BatchMoves(terminal, src, dst, self._exits(stm, moves[leaving]))

    def _within(self, stm: np.ndarray, moves: Moves) -> tuple[np.ndarray, np.ndarray]:
        """``(src, dst)`` of the moves that stay in the tablebase, ``src`` ascending."""
        child_stm = 1 - stm[moves.row]
        child_ep = np.zeros(len(moves.row), dtype=np.int64)
        if self.layout.en_passant:
            double = np.flatnonzero(moves.double)
            child_ep[double] = has_en_passant(self.layout, child_stm[double], moves.squares[double])
        order = np.argsort(moves.row, kind="stable")
        return moves.row[order], self.layout.canonical_keys(child_stm, child_ep, moves.squares)[order]

    def _exits(self, stm: np.ndarray, moves: Moves) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(src, table, key)`` of the captures and promotions, ``src`` ascending."""
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

    def survey_batch(self, keys: np.ndarray, split: LevelSplit | None = None, distinct: bool = True) -> None:
        return None

    @property
    def distinct_unmoves(self) -> bool:  # type: ignore[override]
        return False

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        src, pred = unmoves(self.layout, np.asarray(keys, dtype=np.int64))
        order = np.argsort(src, kind="stable")
        return src[order], pred[order]
