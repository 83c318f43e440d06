"""Chess positions and moves (:class:`ChessPosition`, :class:`ChessMove`) and what is read
from their python-chess boards: a board's material, a quick legality test, its board FEN,
and the boards and successors' endings kept of the positions read last."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from typing import NamedTuple

import chess

from tablebase.generators.chess.material import PIECES, normal_form


class ChessPosition(NamedTuple):
    """A chess position: the facts of a FEN that matter to a tablebase.

    :ivar board: the board part of a FEN, e.g. ``"K3r3/8/5k2/Q7/8/8/8/8"``.
    :ivar turn: the side to move, ``chess.WHITE`` (True) or ``chess.BLACK`` (False).
    :ivar ep_square: the en passant square (python-chess numbering, ``a1 = 0``) when an
        en passant capture is legal, else ``None``.
    :ivar halfmove: the half-move clock of the FEN (plies since the last capture or pawn
        move); shown, never used in values (DTZ counts from the position itself, as
        Syzygy's does, whatever the clock).
    :ivar fullmove: the full-move number of the FEN, advanced after black's move.

    Two positions that differ only in their clocks have the same key.
    """

    board: str
    turn: bool
    ep_square: int | None
    halfmove: int = 0
    fullmove: int = 1


class ChessMove(NamedTuple):
    """A legal move: ``move``, python-chess's ``chess.Move``; ``san`` (e.g. ``"Qa8+"``, what
    :meth:`~tablebase.generators.chess.game.Chess.format_move` shows), ``uci`` (e.g. ``"a5a8"``,
    added by :meth:`~tablebase.generators.chess.game.Chess.move_details`), and ``zeroing``: whether it
    is a capture or a pawn move, which resets the 50-move counter."""

    san: str
    uci: str
    zeroing: bool = False

    @property
    def move(self) -> chess.Move:
        """The move as python-chess's ``chess.Move``, to play on a ``chess.Board``."""
        return chess.Move.from_uci(self.uci)


UNREACHABLE_CHECKS = int(chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK)
"""Checks that no move can give (two checkers on one line through the king, three
checkers): positions no game reaches, but stored and valued as the Syzygy generator
stores and counts them, so they are accepted."""


def sides_of(board: chess.Board) -> tuple[str, str]:
    """The board's material as (white side, black side), e.g. ``("KQ", "KR")``."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    pieces = (board.kings, board.queens, board.rooks, board.bishops, board.knights, board.pawns)  # PIECES' order
    counts = tuple([(bitboard & white).bit_count() for bitboard in pieces] + [(bitboard & black).bit_count() for bitboard in pieces])
    if counts not in _SIDES_OF_COUNTS:
        _SIDES_OF_COUNTS[counts] = tuple(  # type: ignore[assignment]
            "".join(letter * count for letter, count in zip(PIECES, half)) for half in (counts[:6], counts[6:])
        )
    return _SIDES_OF_COUNTS[counts]


_SIDES_OF_COUNTS: dict[tuple[int, ...], tuple[str, str]] = {}
""":func:`sides_of` by the counts of each piece of each side (a few hundred materials)."""


def plainly_legal(board: chess.Board) -> bool:
    """Whether a board of at most :data:`~tablebase.generators.chess.material.MAX_PIECES`
    pieces is legal by the few checks python-chess's ``status()`` makes of such a board
    (one king a side, no pawn on the first or last rank, the side not to move not in
    check), without an en passant square, at a fraction of ``status()``'s cost
    (benchmarks/RESULTS.md). False leaves the verdict to ``status()``."""
    return (
        board.ep_square is None
        and (board.kings & board.occupied_co[chess.WHITE]).bit_count() == 1
        and (board.kings & board.occupied_co[chess.BLACK]).bit_count() == 1
        and not board.pawns & chess.BB_BACKRANKS
        and not board.was_into_check()
    )


def material_name(board: chess.Board) -> str:
    """The normal-form material name of a board, e.g. ``"KQvKR"`` for either colouring."""
    return material_of(sides_of(board))


@functools.lru_cache(maxsize=1024)
def material_of(sides: tuple[str, str]) -> str:
    """The normal-form material name of :func:`sides_of` (cached: a probe asks it of
    every board)."""
    first, second, _swapped = normal_form(*sides)
    return f"{first}v{second}"


class _Kept:
    """The last ``most`` things kept by position, the oldest dropped first (thread-safe)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._kept: OrderedDict[ChessPosition, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, position: ChessPosition) -> object | None:
        with self._lock:
            return self._kept.get(position)

    def keep(self, position: ChessPosition, thing: object) -> None:
        self.keep_all([(position, thing)])

    def keep_all(self, pairs: list[tuple[ChessPosition, object]]) -> None:
        with self._lock:
            for position, thing in pairs:
                self._kept[position] = thing
                self._kept.move_to_end(position)
            while len(self._kept) > self.most:
                self._kept.popitem(last=False)


BOARDS = _Kept(4096)
"""The boards of the positions read last, read in place
(:meth:`~tablebase.generators.chess.position_api.PositionAPI._read_board`), never changed:
a caller that changes a board takes a copy."""

ENDED = _Kept(4096)
"""Of the successors of the positions whose moves were made last
(:meth:`~tablebase.generators.chess.game.Chess.keyed_moves`), whether each one's side to move is in
check and whether it has no legal move: what :meth:`~tablebase.generators.chess.game.Chess.position_details`
then tells of it without a board."""


def board_fen(board: chess.Board) -> str:
    """``board.board_fen()``, from the occupied squares alone (python-chess reads all 64,
    a noticeable part of a query's time, benchmarks/RESULTS.md)."""
    ranks: list[list[tuple[int, str]]] = [[] for _ in range(8)]
    for square, piece in board.piece_map().items():
        ranks[square >> 3].append((square & 7, piece.symbol()))
    rows = []
    for placed in reversed(ranks):
        if not placed:
            rows.append("8")
            continue
        row, file = "", 0
        for at, symbol in sorted(placed):
            row += (str(at - file) if at > file else "") + symbol
            file = at + 1
        rows.append(row + (str(8 - file) if file < 8 else ""))
    return "/".join(rows)
