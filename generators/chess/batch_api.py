"""The batch API of :class:`~tablebase.generators.chess.game.Chess` over its index space
(:mod:`tablebase.generators.chess.layout`), by the compiled kernels: legality, moves,
the survey in one pass, un-moves, and the pawns' progress of the DTZ pass."""

from __future__ import annotations

import numpy as np

from tablebase.core.batches import BatchMoves, BatchSurvey, LevelSplit
from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.generators.chess.events import KernelExits
from tablebase.generators.chess.fen import fens
from tablebase.generators.chess.legality import legal_kernel
from tablebase.generators.chess.material import INSUFFICIENT
from tablebase.generators.chess.moves import generate_kernel, move_verdicts_kernel
from tablebase.generators.chess.survey import survey_kernel
from tablebase.generators.chess.unmoves import unmoves_kernel


class BatchAPI:
    """The batch methods of :class:`~tablebase.generators.chess.game.Chess`, which reads
    ``layout``, ``spec``, ``material`` and ``size`` of the game and the ways to leave
    the ending of :class:`~tablebase.generators.chess.events.ExitEvents`."""

    def legal(self, keys: np.ndarray) -> np.ndarray:
        """bool[n]: the canonical keys of legal positions (see
        :func:`~tablebase.generators.chess.legality.legal_kernel`); none for a collection."""
        if self.layout is None:
            return np.zeros(len(keys), dtype=bool)
        return legal_kernel(np.asarray(keys, dtype=np.int64), self.spec, self.layout.en_passant)

    def format_keys(self, keys: np.ndarray) -> list[str]:
        """The FEN of each of int64[n] keys' positions, as :meth:`format` of
        :meth:`decode` writes it, by the compiled :func:`~tablebase.generators.chess.fen.fens`;
        a key with the ``ep`` bit (KPvKP's) one at a time, python-chess judging whether
        its FEN shows the en passant square."""
        texts, ep_rows = fens(self.layout, keys)
        for row in ep_rows.tolist():
            texts[row] = self.format(self.decode(int(keys[row])))
        return texts

    def expand(self, keys: np.ndarray) -> BatchMoves:
        """Terminal values, moves within the tablebase and captures and promotions of
        int64[n] canonical keys from one compiled generation
        (:func:`~tablebase.generators.chess.moves.generate_kernel`), ``src`` ascending
        (see :class:`~tablebase.core.game.BatchMoves`). Every position of KvK, KBvK and KNvK
        is a draw; captures and promotions count as moves."""
        return self._generated(keys, with_exits=True)

    def _generated(self, keys: np.ndarray, with_exits: bool) -> BatchMoves:
        """:meth:`expand`, its exits left empty unless ``with_exits`` (each exit's
        canonical key in its dependency costs compiled work (``exit_keys_kernel``))."""
        keys = np.asarray(keys, dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        if self.material in INSUFFICIENT:
            return BatchMoves(np.full(len(keys), Outcome.DRAW, dtype=np.int8), none, none, (none, none, none))
        terminal, src, dst, row, event, squares = generate_kernel(keys, self.spec, self._event_numbers, bool(self.spec.pawns[0] >= 0))
        live = np.flatnonzero(terminal == NOT_TERMINAL)
        exits = (none, none, none)
        if with_exits and self._events:
            exits = self._compiled_exits(KernelExits(live[row], event, squares), keys & 1)
        return BatchMoves(terminal, live[src], dst, exits)

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The moves that stay in the tablebase (no capture, no promotion), from
        :meth:`expand`.

        :param keys: int64[n] canonical keys of non-terminal positions.
        :returns: ``(src_index, dst_key)``, int64[m] each, ``src_index`` ascending;
            destination keys are canonical.
        """
        moves = self._generated(keys, with_exits=False)
        return moves.src, moves.dst

    def move_verdicts(self, keys: np.ndarray, codes: np.ndarray, classes: np.ndarray) -> np.ndarray:
        """int8[n]: what the moves within the tablebase of each of int64[n] keys lead to
        by the classes (int8[256]) of their successors' codes in uint8[size] ``codes``,
        each position's moves generated until the first that settles it
        (:func:`~tablebase.generators.chess.moves.move_verdicts_kernel`; see
        :meth:`~tablebase.core.game.Game.move_verdicts`)."""
        keys = np.asarray(keys, dtype=np.int64)
        return move_verdicts_kernel(keys, self.spec, self._event_numbers, self.layout.en_passant, codes, classes)

    def survey_batch(self, keys: np.ndarray, split: LevelSplit | None = None, distinct: bool = True) -> BatchSurvey | None:
        """Legality, terminal values, distinct moves (those to another level of
        ``split`` listed; without ``distinct``, only whether there is one) and exits of
        int64[n] keys in one compiled pass
        (:func:`~tablebase.generators.chess.survey.survey_kernel`)."""
        keys = np.asarray(keys, dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        if self.material in INSUFFICIENT:
            legal = self.legal(keys)
            return BatchSurvey(legal, np.full(len(keys), Outcome.DRAW, np.int8), np.zeros(len(keys), np.int64), (none, none), (none, none, none))
        levels, block, level = (split.levels, split.block, split.level) if split is not None else (np.zeros(1, np.int64), 1 << 62, 0)
        legal, terminal, moves, cross_row, cross_key, row, event, squares = survey_kernel(
            keys, self.spec, self._event_numbers, self.layout.en_passant, levels, block, level, distinct
        )
        exits = self._compiled_exits(KernelExits(row, event, squares), keys & 1) if self._events else (none, none, none)
        return BatchSurvey(legal, terminal, moves, (cross_row, cross_key), exits)

    distinct_unmoves = True
    """:meth:`predecessors` lists each pair once (``unmoves_kernel``)."""

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Un-moves within the tablebase (see
        :func:`~tablebase.generators.chess.unmoves.unmoves_kernel`).

        :param keys: int64[n] canonical keys.
        :returns: ``(src_index, pred_key)``, int64[m] each, ``src_index`` ascending;
            predecessor keys are canonical, some of them illegal.
        """
        return unmoves_kernel(np.asarray(keys, dtype=np.int64), self.spec, self.layout.en_passant)

    def progress(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: how far the pawns have advanced, each by its ranks from its own
        side; every pawn move raises it, every other move that stays in the tablebase
        keeps it (the colour flip of KPvKP keeps it too), so the DTZ pass tells pawn
        moves by it (:mod:`tablebase.solve.dtz`). 0 without pawns, and for a
        collection, which has no positions.

        :param keys: int64[n] keys of this tablebase.
        """
        if self.layout is None:
            return np.zeros(len(keys), dtype=np.int64)
        _stm, _ep, squares = self.layout.decode(np.asarray(keys, dtype=np.int64))
        total = np.zeros(len(squares), dtype=np.int64)
        for slot, piece in enumerate(self.layout.types):
            if piece == "P":
                rank = squares[:, slot] >> 3
                total += rank if self.layout.colours[slot] == 0 else 7 - rank
        return total

    def zeroing_inside(self) -> bool:
        """Whether pawn moves stay in the tablebase: whether it has pawns."""
        return self.layout is not None and "P" in self.layout.types

    def progress_block(self) -> int:
        """The keys that share the squares of every slot from the first pawn's on (the
        pawns, and the black pieces after white's pawns), so their :meth:`progress`:
        :meth:`~tablebase.generators.chess.layout.Layout.stride` of that slot; the whole
        index space without pawns."""
        if not self.zeroing_inside():
            return max(int(self.size or 1), 1)
        assert self.layout is not None
        return self.layout.stride(self.layout.types.index("P"))

    def exits(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The captures and promotions, which lead into :meth:`dependencies`, from
        :meth:`expand`.

        :param keys: int64[n] canonical keys of non-terminal positions.
        :returns: ``(src_index, table, key)``, int64[m] each, ``src_index`` ascending:
            ``table`` indexes :meth:`dependencies`, ``key`` is canonical there.
        """
        return self.expand(keys).exits

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: ``LOSS`` for checkmate, ``DRAW`` for stalemate and for every position
        of KvK, KBvK and KNvK, else :data:`NOT_TERMINAL`, from :meth:`expand`."""
        return self._generated(keys, with_exits=False).terminal
