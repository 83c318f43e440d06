"""The Python API, for scripts: :func:`open` a database and probe positions, as
python-chess's ``chess.syzygy`` does for Syzygy files.

Each probe comes in two forms: ``probe_*`` raises when the answer is not stored, and
``get_*`` returns a default instead. Chess boards are probed for WDL, DTZ and DTM, one
at a time (read from the board's bitboards, no FEN written) or many at once
(``probe_wdl_many`` and its kin, one probe per ending); any game's keys are probed in
arrays (``probe_keys``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from tablebase.core.errors import NotBuiltError, NotInTablebaseError, PositionError
from tablebase.core.game import Game, Position
from tablebase.core.values import Outcome, signed_distance
from tablebase.read.filled import probe_array
from tablebase.read.query import Tablebase, Value
from tablebase.solve.dtz import categories
from tablebase.solve.registry import load_game
from tablebase.store import Store, open_store

_MISSING = (NotBuiltError, NotInTablebaseError, PositionError)


class KeyValues(NamedTuple):
    """The stored values of an array of keys (:meth:`Tablebases.probe_keys`)."""

    found: np.ndarray
    """bool[n]: whether the key is stored."""
    outcome: np.ndarray
    """int8[n]: -1, 0, 1 for the side to move (0 where not found)."""
    remoteness: np.ndarray
    """int32[n]: plies, -1 for none."""
    extra: np.ndarray | None
    """int64[n]: Grundy values, scores or DTZ (plies), or None where none are stored."""
"""What a ``get_*`` probe answers with its default: no such tablebase, position or board."""


class Tablebases:
    """An open database of tablebases; a context manager that closes it.

    :param store: an open :class:`~tablebase.store.Store`; see :func:`open`.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self._open: dict[tuple[str, tuple[tuple[str, Any], ...]], Tablebase] = {}

    def __enter__(self) -> Tablebases:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the database."""
        self.store.close()

    def tablebase(self, game: str, **params: Any) -> Tablebase:
        """The :class:`~tablebase.read.query.Tablebase` of a game with parameters (text or
        values, as ``-p`` takes them), for moves, lines and reports.

        :raises UnknownGameError: for an unknown game.
        :raises ParameterError: for a bad parameter.
        """
        key = (game, tuple(sorted((name, str(value)) for name, value in params.items())))
        if key not in self._open:
            self._open[key] = Tablebase(load_game(game, params), self.store)
        return self._open[key]

    def probe(self, game: str, position: str | Position, **params: Any) -> Value:
        """The value of a position, given as text (``start`` and sums ``a+b`` too) or as
        the game's own position object; outcome for the side to move, remoteness in plies.

        :raises PositionError: for text that is not a position of the game.
        :raises NotBuiltError: if its tablebase is not built.
        :raises NotInTablebaseError: if it is not stored.
        """
        tablebase = self.tablebase(game, **params)
        if isinstance(position, str):
            tablebase = tablebase.reader(position)
            position = tablebase.parse(position)
        return tablebase.probe(position)

    def get(self, game: str, position: str | Position, default: Any = None, **params: Any) -> Value | Any:
        """Like :meth:`probe`, but ``default`` where the value is not stored."""
        try:
            return self.probe(game, position, **params)
        except _MISSING:
            return default

    def probe_wdl(self, board: Any) -> int:
        """A ``chess.Board``'s win/draw/loss for the side to move, as
        ``chess.syzygy.Tablebase.probe_wdl`` gives it: Syzygy's category under the 50-move
        rule where the ending stores DTZ (2 a win, 1 a cursed win, 0 a draw, -1 a blessed
        loss, -2 a loss), else 2, 0 or -2 without the rule.

        :raises PositionError: for a board of more than 5 pieces, with castling rights or
            illegal.
        :raises NotBuiltError: if the tablebase of its material is not built.
        """
        value = self._probe_board(board, dtm=False)
        return value.category if value.category is not None else 2 * int(value.outcome)

    def probe_dtm(self, board: Any) -> int:
        """A ``chess.Board``'s distance to mate in plies, as
        ``chess.gaviota.probe_dtm`` gives it: positive when the side to move wins,
        negative when it loses, 0 for a draw (and for a side that is mated).

        :raises: as :meth:`probe_wdl`.
        """
        value = self._probe_board(board)
        return signed_distance(value.outcome, value.remoteness) or 0  # a win or loss has one: _probe_board checks

    def probe_dtz(self, board: Any) -> int:
        """A ``chess.Board``'s DTZ under the 50-move rule, in plies, as
        ``chess.syzygy.Tablebase.probe_dtz`` gives it: positive when the side to move
        wins, negative when it loses, beyond 100 (or -100) for a cursed win (blessed
        loss), 0 for a draw; 0 too for a side already mated (python-chess says -1).

        :raises NotInTablebaseError: if its ending stores no DTZ (built with ``-p metric=dtm``).
        :raises: as :meth:`probe_wdl`.
        """
        value = self._probe_board(board, dtm=False)
        if value.dtz is None:
            raise NotInTablebaseError(f"{board.fen()}: its ending stores no DTZ (build it with -p metric=both)")
        return value.dtz

    def get_dtz(self, board: Any, default: Any = None) -> int | Any:
        """Like :meth:`probe_dtz`, but ``default`` where the board has no stored DTZ."""
        try:
            return self.probe_dtz(board)
        except _MISSING:
            return default

    def get_wdl(self, board: Any, default: Any = None) -> int | Any:
        """Like :meth:`probe_wdl`, but ``default`` where the board is not in a tablebase."""
        try:
            return self.probe_wdl(board)
        except _MISSING:
            return default

    def get_dtm(self, board: Any, default: Any = None) -> int | Any:
        """Like :meth:`probe_dtm`, but ``default`` where the board is not in a tablebase."""
        try:
            return self.probe_dtm(board)
        except _MISSING:
            return default

    def probe_keys(self, game: str, keys: np.ndarray, **params: Any) -> KeyValues:
        """The stored values of many canonical keys of one tablebase at once (a chess
        ending's: ``probe_keys("chess", keys, material="KQvKR")``), vectorized over the
        blocks layout: for scripts that value millions of positions.

        :param keys: int64[n] canonical keys (``Game.canonical_key``), any order.
        :raises NotBuiltError: if the tablebase is not built.
        :raises UnknownGameError, ParameterError: for a bad game or parameter.
        """
        tablebase = self.tablebase(game, **params)
        return KeyValues(*probe_array(self.store, tablebase.row(tablebase.game), keys))

    def probe_wdl_many(self, boards: Iterable[Any]) -> np.ndarray:
        """int8[n]: :meth:`probe_wdl` of each board, one probe per ending.

        :raises: as :meth:`probe_wdl`, and :class:`NotInTablebaseError` for a board that
            is not stored.
        """
        outcome, _remoteness, dtz = self._probe_boards(boards, dtm=False)
        return categories(outcome, dtz) if dtz is not None else (2 * outcome).astype(np.int8)

    def probe_dtm_many(self, boards: Iterable[Any]) -> np.ndarray:
        """int32[n]: :meth:`probe_dtm` of each board (plies), one probe per ending.

        :raises: as :meth:`probe_wdl_many`.
        """
        outcome, remoteness, _dtz = self._probe_boards(boards)
        return (outcome * np.maximum(remoteness, 0)).astype(np.int32)

    def probe_dtz_many(self, boards: Iterable[Any]) -> np.ndarray:
        """int32[n]: :meth:`probe_dtz` of each board (plies), one probe per ending.

        :raises: as :meth:`probe_wdl_many`, and :class:`NotInTablebaseError` where an
            ending stores no DTZ.
        """
        _outcome, _remoteness, dtz = self._probe_boards(boards, dtm=False)
        if dtz is None:
            raise NotInTablebaseError("an ending of these boards stores no DTZ (build it with -p metric=both)")
        return dtz.astype(np.int32)

    def _from_moves(self, board: Any) -> bool:
        """Whether a board is valued from its moves, not stored (an en passant right in
        an ending whose keys have none: ``Chess.stored``)."""
        if board.ep_square is None:
            return False
        tablebase = self.tablebase("chess")
        position = tablebase.parse(board.fen())
        return not tablebase.game.table_of(position).stored(position)

    def _probe_boards(self, boards: Iterable[Any], dtm: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """``(outcome, remoteness, dtz)`` of boards: int8[n], int32[n] (-1 for none) and
        int64[n], or None for DTZ where an ending stores none; with ``dtm`` false, a
        remoteness an ending leaves out is not valued (a reader of WDL and DTZ alone)."""
        tablebase = self.tablebase("chess")
        boards = list(boards)
        by_table: dict[int, tuple[Game, list[int], list[int]]] = {}
        searched = {}
        for index, board in enumerate(boards):
            if self._from_moves(board):
                searched[index] = self._probe_board(board)
                continue
            owner, key = tablebase.game.board_key(board)  # type: ignore[attr-defined]
            _owner, indices, keys = by_table.setdefault(id(owner), (owner, [], []))
            indices.append(index)
            keys.append(key)
        outcome = np.zeros(len(boards), dtype=np.int8)
        remoteness = np.full(len(boards), -1, dtype=np.int32)
        dtz: np.ndarray | None = np.zeros(len(boards), dtype=np.int64)
        for owner, indices, keys in by_table.values():
            found, these, plies, extra = probe_array(self.store, tablebase.row(owner), np.array(keys, dtype=np.int64), dtm)
            if not found.all():
                missing = boards[indices[int(np.flatnonzero(~found)[0])]]
                raise NotInTablebaseError(f"{missing.fen()} is not in the tablebase")
            outcome[indices], remoteness[indices] = these, plies
            if extra is None:
                dtz = None
            elif dtz is not None:
                dtz[indices] = extra
        for index, value in searched.items():
            outcome[index], remoteness[index] = int(value.outcome), -1 if value.remoteness is None else value.remoteness
            if value.dtz is None:
                dtz = None
            elif dtz is not None:
                dtz[index] = value.dtz
        return outcome, remoteness, dtz

    def _probe_board(self, board: Any, dtm: bool = True) -> Value:
        """A board's value; with ``dtm`` false its remoteness may be None where its
        ending leaves it out (``--dtm-sides``), for a reader of WDL and DTZ alone."""
        tablebase = self.tablebase("chess")
        if self._from_moves(board):
            value = tablebase.probe(tablebase.parse(board.fen()))
        else:
            owner, key = tablebase.game.board_key(board)  # type: ignore[attr-defined]  # no FEN round trip
            value = tablebase.value_of_key(owner, key, dtm)
        if dtm and value.outcome != Outcome.DRAW and value.remoteness is None:  # every chess win has one
            raise NotInTablebaseError(f"{board.fen()} has no distance to mate")
        return value


def open(location: str | os.PathLike[str] | None = None) -> Tablebases:  # noqa: A001 - as shelve.open
    """Open a database of tablebases for probing (a missing SQLite file is an error, not
    a new database).

    :param location: an SQLite path or SQLAlchemy URL (default ``$TABLEBASE_DB``, else
        ``tablebase.sqlite``).
    :raises StoreError: if there is no tablebase database there.
    """
    return Tablebases(open_store(location, create=False))
