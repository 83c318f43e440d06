"""Lichess's tablebase protocol (``/standard`` and ``/standard/mainline``, and the same
for ``/atomic`` and ``/antichess``), answered from our chess, atomic and antichess
tablebases, so that existing clients can point at a ``tablebase serve``.

The field names, their signs and the order of moves follow lila-tablebase
(github.com/lichess-org/lila-tablebase): ``dtm`` is in plies, positive when the side to
move wins, negative when it loses, 0 for a draw and for a side already mated; each
move's values are those of the position after it, for the side to move there.

A chess tablebase built with DTZ (``-p metric=both``, the default, or ``dtz``) gives
the category under the 50-move rule (Syzygy's five) and ``dtz``, exact in plies, so
``precise_dtz`` equals it, and ``/standard/mainline`` plays the DTZ-optimal line. A
field that the stored metrics cannot give is ``null``, never invented: from DTM alone
(``-p metric=dtm``) ``dtz`` and ``precise_dtz`` are ``null``, and the category of a win
or loss is ``win`` or ``loss`` only where the mate comes within 100 plies (so that no
50-move count can intervene), else ``maybe-win`` or ``maybe-loss``. ``dtc`` (distance to
conversion, which lila-tablebase reads from tables of other kinds) is always ``null``: no
table here stores it. A FEN may have underscores for spaces (``Chess.parse``).
"""

from __future__ import annotations

from typing import Any

import chess

from tablebase.core.values import CATEGORIES, RULE_PLIES, Outcome, signed_distance
from tablebase.read.query import DEFAULT_LINE_BOUND, RankedMove, Tablebase, Value

GAMES = {"standard": "chess", "atomic": "atomic", "antichess": "antichess"}
"""The game of each of lila-tablebase's variant routes."""

CATEGORY_ORDER = ("loss", "maybe-loss", "blessed-loss", "draw", "cursed-win", "maybe-win", "win")
"""Categories of a move's successor, best for the mover first (the successor's side to
move loses), as lila-tablebase sorts them."""


def category(value: Value) -> str:
    """The lichess category of a value, for the side to move."""
    if value.category is not None:
        return CATEGORIES[value.category]
    if value.outcome == Outcome.DRAW:
        return "draw"
    sure = value.remoteness is not None and value.remoteness <= RULE_PLIES  # a mate within the rule's plies wins whatever it says
    if value.outcome == Outcome.WIN:
        return "win" if sure else "maybe-win"
    return "loss" if sure else "maybe-loss"


def dtm(value: Value) -> int | None:
    """Signed DTM in plies for the side to move (0 for a draw), or ``None`` if unknown."""
    return signed_distance(value.outcome, value.remoteness)


def _flags(tablebase: Tablebase, position: Any) -> dict[str, bool]:
    """Whether the side to move is mated or stalemated, has won or lost by the rules of
    its variant (an exploded king, no piece left), or neither side can mate
    (``Chess.position_details``, which knows a just-ranked move's successor without a
    board; the variants' ``position_details``)."""
    details = tablebase.game.position_details(position)
    return {
        "checkmate": details["checkmate"],
        "stalemate": details["stalemate"],
        "variant_win": details.get("variant_win", False),
        "variant_loss": details.get("variant_loss", False),
        "insufficient_material": details["insufficient_material"],
    }


def _values(value: Value) -> dict[str, Any]:
    return {"category": category(value), "dtz": value.dtz, "precise_dtz": value.dtz, "dtc": None, "dtm": dtm(value)}


def _move_json(tablebase: Tablebase, ranked: RankedMove) -> dict[str, Any]:
    """A move's entry: its SAN, UCI and zeroing as the game's move gives them, the
    values after it, and the flags of the position it reaches."""
    move = ranked.move
    return {"uci": move.uci, "san": move.san, **_values(ranked.value), "zeroing": move.zeroing, **_flags(tablebase, ranked.position)}


def _move_order(entry: dict[str, Any]) -> tuple[int, int, int]:
    """lila-tablebase's order: by the successor's category, best for the mover first;
    then the fastest win (smallest DTM of the lost successor in absolute value) or the
    slowest loss; then zeroing moves first. Where DTZ is stored, the query's own order
    (:meth:`~tablebase.read.query.RankedMove.rank`, which also weighs checkmate and DTZ)
    breaks the remaining ties, as the sort is stable."""
    successor_dtm = entry["dtm"] if entry["dtm"] is not None else 0
    return (CATEGORY_ORDER.index(entry["category"]), -successor_dtm, not entry["zeroing"])


def standard(tablebase: Tablebase, fen: str) -> dict[str, Any]:
    """The ``/standard`` object of a FEN: the position's category and distances, its
    flags, and every legal move with the values after it, best first.

    :param tablebase: the chess tablebases, open for queries.
    :param fen: a FEN; underscores may stand for spaces.
    :raises PositionError: for a FEN that cannot be read or is illegal.
    :raises NotBuiltError: if the ending's tablebase is not built.
    """
    position = tablebase.parse(fen)
    value = tablebase.probe(position)
    moves = sorted((_move_json(tablebase, ranked) for ranked in tablebase.moves(position)), key=_move_order)
    return {**_values(value), **_flags(tablebase, position), "moves": moves}


def mainline(tablebase: Tablebase, fen: str) -> dict[str, Any]:
    """The ``/standard/mainline`` object: the line of best play from a FEN as
    ``{"mainline": [{"uci", "san", "dtz", "dtm"}...], "winner", "dtz", "precise_dtz"}``,
    ``winner`` being ``"w"``, ``"b"`` or ``null`` for a draw. With DTZ stored, it is the
    DTZ-optimal line (a zeroing move first where it wins), as lichess plays it.

    :raises PositionError: for a FEN that cannot be read or is illegal.
    :raises NotBuiltError: if an ending's tablebase is not built.
    """
    position = tablebase.parse(fen)
    value = tablebase.probe(position)
    plies = DEFAULT_LINE_BOUND if value.outcome != Outcome.DRAW else 0
    played = [
        {"uci": ranked.move.uci, "san": ranked.move.san, "dtz": ranked.value.dtz, "dtm": dtm(ranked.value)}
        for ranked in tablebase.line(position, plies, "dtm" if value.dtz is None else "dtz")
    ]
    winner = None
    if value.outcome != Outcome.DRAW:
        winner = "w" if (value.outcome == Outcome.WIN) == (position.turn == chess.WHITE) else "b"
    return {"mainline": played, "winner": winner, "dtz": value.dtz, "precise_dtz": value.dtz}
