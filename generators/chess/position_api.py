"""The per-position API of :class:`~tablebase.generators.chess.game.Chess`, with
python-chess: FENs read and written, a position's key and canonical form, its legal
moves with SAN and UCI, and the details a query shows."""

from __future__ import annotations

import functools
import re
from typing import Any

import chess
import numpy as np

from tablebase.core.errors import PositionError
from tablebase.core.game import Game
from tablebase.core.values import Outcome, signed_distance
from tablebase.generators.chess.children import children
from tablebase.generators.chess.layout import NO_KEY
from tablebase.generators.chess.material import INSUFFICIENT, MAX_PIECES, PIECES
from tablebase.generators.chess.positions import (
    BOARDS,
    ENDED,
    UNREACHABLE_CHECKS,
    ChessMove,
    ChessPosition,
    board_fen,
    material_name,
    material_of,
    plainly_legal,
    sides_of,
)

_PIECE_TYPES = {letter: chess.Piece.from_symbol(letter).piece_type for letter in PIECES}

_STATUS_PROBLEMS = (
    (int(chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING | chess.STATUS_TOO_MANY_KINGS),
     "each side needs exactly one king"),
    (int(chess.STATUS_PAWNS_ON_BACKRANK), "a pawn stands on the first or last rank"),
    (int(chess.STATUS_OPPOSITE_CHECK), "the side not to move is in check"),
    (int(chess.STATUS_INVALID_EP_SQUARE), "the en passant square does not follow a double pawn push"),
)


def _compose(*maps):
    """The bitboard map applying ``maps`` right to left."""
    def composed(bitboard: int) -> int:
        for step in reversed(maps):
            bitboard = step(bitboard)
        return bitboard
    return composed


_TRANSFORMS = (
    _compose(),
    chess.flip_horizontal,
    chess.flip_vertical,
    _compose(chess.flip_horizontal, chess.flip_vertical),
    chess.flip_diagonal,
    _compose(chess.flip_diagonal, chess.flip_horizontal),
    _compose(chess.flip_diagonal, chess.flip_vertical),
    _compose(chess.flip_diagonal, chess.flip_horizontal, chess.flip_vertical),
)
"""The board's 8 symmetries as python-chess bitboard maps; with pawns only the first two
(identity and the mirror of files) keep the game the same."""


_MATING_MATERIAL = re.compile("[QRPqrp]")
"""A piece in a FEN's placement with which no position is insufficient material."""


class PositionAPI:
    """The per-position methods of :class:`~tablebase.generators.chess.game.Chess`
    (positions :class:`ChessPosition`, moves :class:`ChessMove`), which reads
    ``layout``, ``spec``, ``material`` and ``metric`` and the sub-tablebases
    (``table_of``, ``dependencies``, ``stored``) of the game, and the ways to leave the
    ending of :class:`~tablebase.generators.chess.events.ExitEvents`."""

    @staticmethod
    def _board(position: ChessPosition) -> chess.Board:
        """A python-chess board of a position (no castling rights), with its clocks, the
        caller's to change: a copy of :meth:`_read_board`'s."""
        return PositionAPI._read_board(position).copy(stack=False)

    @staticmethod
    def _read_board(position: ChessPosition) -> chess.Board:
        """The board of a position that :data:`BOARDS` keeps (read from the FEN and
        kept if it has none), to be read only: never changed, not even and undone."""
        cached = BOARDS.get(position)
        if cached is not None:
            return cached  # type: ignore[return-value]
        board = chess.Board(None)
        board.set_board_fen(position.board)
        board.turn = position.turn
        board.ep_square = position.ep_square
        board.halfmove_clock = position.halfmove
        board.fullmove_number = position.fullmove
        BOARDS.keep(position, board)
        return board

    @staticmethod
    def _position(board: chess.Board) -> ChessPosition:
        """The position of a board, keeping its en passant square only where an en
        passant capture is legal, and its clocks."""
        ep_square = board.ep_square if board.has_legal_en_passant() else None
        return ChessPosition(board_fen(board), board.turn, ep_square, board.halfmove_clock, board.fullmove_number)

    def parse(self, text: str) -> ChessPosition:
        """Read a FEN (python-chess syntax, underscores taken for spaces, as lichess's
        URLs write them): of this tablebase's material, or of any material of at most
        :data:`~tablebase.generators.chess.material.MAX_PIECES` pieces for a collection (``all3``, ``all4``, ``all5``).

        :raises PositionError: (a usage error) for a FEN of another material than a
            single ending's, a FEN python-chess cannot read, more than MAX_PIECES pieces,
            castling rights, or an illegal position (not exactly one king each, a pawn
            on the first or last rank, the side not to move in check, a bad en passant
            square); a check no move can give is accepted (the Syzygy generator values
            such positions too).
        """
        try:
            board = chess.Board(text.replace("_", " ").strip())
        except ValueError as error:
            raise PositionError(f"bad FEN {text!r}: {error}") from None
        self._check(board, text)
        return self._kept(board)

    def position_of(self, given: Any) -> Any:
        """The position of a ``chess.Board`` (checked as :meth:`parse` checks a FEN; the
        board is not changed), or ``given`` itself, taken to be a :class:`ChessPosition`.

        :raises PositionError: as :meth:`parse` says.
        """
        if not isinstance(given, chess.Board):
            return given
        board = given.copy(stack=False)
        self._check(board)
        return self._kept(board)

    def _kept(self, board: chess.Board) -> ChessPosition:
        """The position of a checked board of the caller's, which :data:`BOARDS` keeps
        (its en passant square set to the position's): no FEN is read again."""
        position = self._position(board)
        board.ep_square = position.ep_square
        BOARDS.keep(position, board)
        return position

    def _check(self, board: chess.Board, text: str | None = None) -> str:
        """The normal-form material of a board that this game can value.

        :param text: the FEN it was read from, for messages (default: the board's).
        :raises PositionError: as :meth:`parse` says.
        """
        return material_of(self._checked_sides(board, text))

    def _checked_sides(self, board: chess.Board, text: str | None = None) -> tuple[str, str]:
        """:func:`sides_of` of a board that this game can value.

        :raises PositionError: as :meth:`parse` says.
        """
        pieces = chess.popcount(board.occupied)
        if pieces > MAX_PIECES:
            raise PositionError(
                f"bad FEN {text or board.fen()!r}: {pieces} pieces; chess tablebases hold at most {MAX_PIECES}, kings included"
            )
        if board.castling_rights:
            raise PositionError(f"bad FEN {text or board.fen()!r}: castling rights are not allowed in a tablebase; write '-'")
        if plainly_legal(board):
            return self._own_sides(board, text)
        status = int(board.status()) & ~UNREACHABLE_CHECKS  # plain integers: IntFlag arithmetic is slow
        if not status:
            return self._own_sides(board, text)
        for flags, problem in _STATUS_PROBLEMS:
            if status & flags:
                raise PositionError(f"illegal FEN {text or board.fen()!r}: {problem}")
        raise PositionError(f"illegal FEN {text or board.fen()!r}: python-chess status {status:#x}")

    def _own_sides(self, board: chess.Board, text: str | None) -> tuple[str, str]:
        """:func:`sides_of` of a board of this tablebase's material (either colouring), or
        of any material for a collection.

        :raises PositionError: for a board of another material.
        """
        sides = sides_of(board)
        if self.layout is not None and (self.layout.white, self.layout.black) not in (sides, sides[::-1]):
            raise PositionError(
                f"FEN {text or board.fen()!r} is a {material_name(board)} position, not {self.material} as -p material says; "
                "leave -p material out to query any material"
            )
        return sides

    def format(self, position: ChessPosition) -> str:
        """The FEN, with no castling rights, and the position's half-move clock and
        full-move number (0 and 1 for a position decoded from a key)."""
        ep = "-" if position.ep_square is None else chess.SQUARE_NAMES[position.ep_square]
        turn = "w" if position.turn else "b"
        return f"{position.board} {turn} - {ep} {position.halfmove} {position.fullmove}"

    def board_drawing(self) -> tuple[str, dict[str, Any]]:
        """The FEN of :meth:`format` drawn as a chess board on the web pages."""
        return "chess", {}

    def format_move(self, move: ChessMove) -> str:
        """The move in SAN, e.g. ``Qa8+``."""
        return move.san

    def move_number(self, position: ChessPosition, ply: int) -> str:
        """The move number as chess writes it, from the position's full-move number:
        ``"2."`` before white's move, ``"2..."`` before black's."""
        return f"{position.fullmove}." if position.turn else f"{position.fullmove}..."

    def move_details(self, move: ChessMove) -> dict[str, str | bool]:
        """The move in UCI, e.g. ``{"uci": "a5a8"}`` (``"e7e8q"`` for a promotion),
        with ``san`` and ``zeroing`` (a capture or pawn move), lichess's names."""
        return {"uci": move.uci, "san": move.san, "zeroing": move.zeroing}

    def position_details(self, position: ChessPosition) -> dict[str, bool]:
        """Why a position may have ended, as python-chess tells: ``checkmate``,
        ``stalemate`` and ``insufficient_material`` (no sequence of legal moves can mate:
        KvK, KBvK, KNvK, or bishops all on squares of one colour). A successor of a
        position whose moves were just made is told without a board (:data:`ENDED`)."""
        ended = ENDED.get(position)
        if ended is None:
            board = self._read_board(position)
            ended = (board.is_check(), not any(board.generate_legal_moves()))  # one search for a legal move
        check, stuck = ended  # type: ignore[misc]
        pieces = position.board
        insufficient = not _MATING_MATERIAL.search(pieces) and self._read_board(position).is_insufficient_material()
        return {"checkmate": stuck and check, "stalemate": stuck and not check, "insufficient_material": insufficient}

    def value_details(self, outcome: Outcome, remoteness: int | None) -> dict[str, int]:
        """``dtm``, lichess's signed distance to mate in plies (negative when the side
        to move is mated, 0 for a draw), and the conventional count in moves,
        ``{"mate_in": n}``: the moves the winning side makes until mate, whichever side
        that is (a win in ``2n - 1`` plies, a loss in ``2n``; 0 for a side that is
        mated); none without DTM."""
        if outcome == Outcome.DRAW:
            return {"dtm": 0} if self.metric != "dtz" else {}
        if remoteness is None:
            return {}
        return {"dtm": signed_distance(outcome, remoteness), "mate_in": (remoteness + 1) // 2}

    def moves(self, position: ChessPosition) -> list[tuple[ChessMove, ChessPosition]]:
        """Every legal move (en passant included), with its position (:meth:`keyed_moves`)."""
        return [(move, child) for move, child, _table, _key in self.keyed_moves(position)]

    def keyed_moves(self, position: ChessPosition) -> list[tuple[ChessMove, ChessPosition, Game | None, int]]:
        """Every legal move with its SAN and UCI as python-chess writes them, and its
        position, tablebase and canonical key, from one compiled call
        (:func:`~tablebase.generators.chess.children.children`); a position with an en
        passant square keeps it only where the capture is legal. The clocks advance as
        python-chess's ``Board.push`` advances them: the half-move clock is reset by a
        capture or a pawn move, the full-move number grows after black's move."""
        owner = self.table_of(position)
        if owner is not self:
            return owner.keyed_moves(position)
        assert self.layout is not None
        board = self._read_board(position)
        flip = sides_of(board) != (self.layout.white, self.layout.black)
        found = children(board, self._slot_squares(board, flip), flip, self.spec, self._event_numbers, self._children_of_events())
        dependencies = self.dependencies()
        turn, fullmove = not board.turn, position.fullmove + (board.turn == chess.BLACK)
        keyed: list[tuple[ChessMove, ChessPosition, Game | None, int]] = []
        ended = []
        for child in found:
            after = ChessPosition(child.board_fen, turn, child.en_passant, 0 if child.zeroing else position.halfmove + 1, fullmove)
            ended.append((after, (child.check, child.stuck)))
            move = ChessMove(child.san, child.uci, child.zeroing)
            if child.table is None:  # a way out this tablebase does not number
                keyed.append((move, after, *self.stored_key(after)))
                continue
            table = self if child.table < 0 else dependencies[child.table]
            stored = table.stored(after)
            keyed.append((move, after, table if stored else None, child.key if stored else -1))
        ENDED.keep_all(ended)
        return keyed

    def terminal(self, position: ChessPosition) -> Outcome | None:
        """``LOSS`` when checkmated, ``DRAW`` for stalemate or an ending without any
        mate (:data:`INSUFFICIENT`), else ``None``."""
        board = self._read_board(position)
        if material_name(board) in INSUFFICIENT:
            return Outcome.DRAW
        if board.is_checkmate():
            return Outcome.LOSS
        return Outcome.DRAW if board.is_stalemate() else None

    def _placement(self, board: chess.Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(stm, ep, squares)`` arrays of one row for a board of this tablebase's
        material in its own colouring (white holds the first side).

        :raises PositionError: for another material or colouring.
        """
        if self.layout is None or sides_of(board) != (self.layout.white, self.layout.black):
            first = self.material.split("v")[0]
            raise PositionError(f"{board.fen()}: not a {self.material} position with white holding {first}")
        ep = int(board.has_legal_en_passant())
        return np.array([int(not board.turn)]), np.array([ep]), np.array([self._slot_squares(board)], dtype=np.int64)

    def _slot_squares(self, board: chess.Board, flip: bool = False) -> list[int]:
        """The square of each slot of the layout on a board of its material (with
        ``flip``, on the board's colour flip, ``Board.mirror``), identical pieces in
        ascending squares."""
        squares = [0] * self.layout.count
        mirror = 56 if flip else 0
        for piece_type, white, slots in self._slot_groups:
            mask = board.pieces_mask(piece_type, white ^ flip)
            if len(slots) == 1:
                squares[slots[0]] = (mask.bit_length() - 1) ^ mirror
                continue
            for slot, square in zip(slots, sorted(square ^ mirror for square in chess.scan_forward(mask))):
                squares[slot] = square
        return squares

    @functools.cached_property
    def _slot_groups(self) -> list[tuple[int, bool, list[int]]]:
        """The slots of the layout by piece: ``(python-chess piece type, white, slots in
        ascending order)``, identical pieces in one group."""
        groups: dict[tuple[int, bool], list[int]] = {}
        for slot, (colour, letter) in enumerate(zip(self.layout.colours, self.layout.types)):
            groups.setdefault((_PIECE_TYPES[letter], not colour), []).append(slot)
        return [(piece_type, white, slots) for (piece_type, white), slots in groups.items()]

    def encode(self, position: ChessPosition) -> int:
        """The key of a position as it stands (see :mod:`tablebase.generators.chess.layout`).

        :raises PositionError: for another material or colouring, or the white king
            outside its region; :meth:`canonical_key` takes any position of the material.
        """
        key = int(self.layout.keys_of(*self._placement(self._read_board(position)))[0]) if self.layout else NO_KEY
        if key == NO_KEY:
            shown = self.format(position)
            raise PositionError(f"{shown}: not in the index space of {self.material}; use its canonical form")
        return key

    def decode(self, key: int) -> ChessPosition:
        """The position of a key (inverse of :meth:`encode` on legal keys)."""
        stm, ep, squares = self.layout.decode(np.array([key], dtype=np.int64))
        board = chess.Board(None)
        for square, colour, letter in zip(squares[0].tolist(), self.layout.colours, self.layout.types):
            board.set_piece_at(square, chess.Piece(_PIECE_TYPES[letter], not colour))
        board.turn = not stm[0]
        if ep[0]:
            pawn = next(s for s in self.layout.slots(int(stm[0]) ^ 1) if self.layout.types[s] == "P")
            board.ep_square = int(squares[0, pawn]) + (-8 if stm[0] else 8)
        return self._position(board)

    def canonical_key(self, position: ChessPosition) -> int:
        """The key of :meth:`canonical` (the same one), from the squares of the position
        or of its colour flip by :meth:`Layout.canonical_key`, the build's own
        canonical form, in plain integers (no board is transformed).

        :raises PositionError: for a position of another material.
        """
        return self._board_canonical_key(self._read_board(position))

    def _board_canonical_key(self, board: chess.Board, sides: tuple[str, str] | None = None) -> int:
        """:meth:`canonical_key` of a python-chess board, whose :func:`sides_of` may be given."""
        ours = (self.layout.white, self.layout.black) if self.layout else None
        sides = sides or sides_of(board)
        if ours not in (sides, sides[::-1]):
            raise PositionError(f"{board.fen()}: not a position of {self.material}")
        flip = sides != ours  # read as the colour flip (Board.mirror) does
        squares = self._slot_squares(board, flip)
        return self.layout.canonical_key(int(not board.turn) ^ flip, int(board.has_legal_en_passant()), squares)

    def canonical(self, position: ChessPosition) -> ChessPosition:
        """The image of the position with the smallest key, under the board symmetries
        (python-chess transforms) and the colour flip (``Board.mirror``), among those in
        this tablebase's colouring.

        :raises PositionError: for a position of another material.
        """
        board = self._read_board(position)
        ours = (self.layout.white, self.layout.black) if self.layout else None
        colourings = [b for b in (board, board.mirror()) if sides_of(b) == ours]
        if not colourings:
            raise PositionError(f"{self.format(position)}: not a position of {self.material}")
        symmetries = _TRANSFORMS[:2] if "P" in self.layout.types else _TRANSFORMS
        images = [b.transform(symmetry) for b in colourings for symmetry in symmetries]
        keys = [int(self.layout.keys_of(*self._placement(image))[0]) for image in images]
        return self._position(images[keys.index(min(keys))])
