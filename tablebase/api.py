"""The Python API, for scripts: :func:`open` a database and probe positions, as
python-chess's ``chess.syzygy`` does for Syzygy files.

Each probe comes in two forms: ``probe_*`` raises when the answer is not stored, and
``get_*`` returns a default instead. Chess boards are probed for WDL and DTM; there is no
``probe_dtz``, as no DTZ is stored.
"""

from __future__ import annotations

import os
from typing import Any

from tablebase.errors import NotBuiltError, NotInTablebaseError, PositionError
from tablebase.game import Outcome, Position, load_game
from tablebase.query import Tablebase, Value
from tablebase.store import Store, open_store

_MISSING = (NotBuiltError, NotInTablebaseError, PositionError)
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
        """The :class:`~tablebase.query.Tablebase` of a game with parameters (text or
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
        value = self._probe_board(board)
        return value.category if value.category is not None else 2 * int(value.outcome)

    def probe_dtm(self, board: Any) -> int:
        """A ``chess.Board``'s distance to mate in plies, as
        ``chess.gaviota.probe_dtm`` gives it: positive when the side to move wins,
        negative when it loses, 0 for a draw (and for a side that is mated).

        :raises: as :meth:`probe_wdl`.
        """
        value = self._probe_board(board)
        return int(value.outcome) * (value.remoteness or 0)

    def probe_dtz(self, board: Any) -> int:
        """A ``chess.Board``'s DTZ under the 50-move rule, in plies, as
        ``chess.syzygy.Tablebase.probe_dtz`` gives it: positive when the side to move
        wins, negative when it loses, beyond 100 (or -100) for a cursed win (blessed
        loss), 0 for a draw; 0 too for a side already mated (python-chess says -1).

        :raises NotInTablebaseError: if its ending stores no DTZ (built with ``-p metric=dtm``).
        :raises: as :meth:`probe_wdl`.
        """
        value = self._probe_board(board)
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

    def _probe_board(self, board: Any) -> Value:
        value = self.probe("chess", board.fen())
        if value.outcome != Outcome.DRAW and value.remoteness is None:  # every chess win has one
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
